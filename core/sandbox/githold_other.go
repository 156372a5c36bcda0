//go:build !linux

package sandbox

import "errors"

// holdGitDir: there is no sandbox here to have created one.
func holdGitDir(root, g string) (string, error) {
	return "", errors.New("moving a repository aside is built for Linux only")
}
