//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

func holdGitDir(root, g string) (string, error) {
	rel, err := filepath.Rel(root, filepath.Dir(g))
	base := filepath.Base(g)
	if err != nil || strings.HasPrefix(rel, "..") || (base != ".git" && base != "HEAD") {
		return "", fmt.Errorf("%s is not under %s", g, root)
	}
	dir, err := unix.Open(root, unix.O_DIRECTORY|unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return "", err
	}
	defer func() { unix.Close(dir) }()
	if rel != "." {
		for _, part := range strings.Split(rel, string(filepath.Separator)) {
			next, err := unix.Openat(dir, part, unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_RDONLY|unix.O_CLOEXEC, 0)
			if err != nil {
				return "", fmt.Errorf("open %s: %w", part, err)
			}
			unix.Close(dir)
			dir = next
		}
	}
	for i := 0; i < 100; i++ {
		name := base + HeldSuffix
		if i > 0 {
			name += fmt.Sprintf("-%d", i)
		}
		err := unix.Renameat2(dir, base, dir, name, unix.RENAME_NOREPLACE)
		if errors.Is(err, unix.EEXIST) {
			continue
		}
		if err != nil {
			return "", err
		}
		return filepath.Join(filepath.Dir(g), name), nil
	}
	return "", errors.New("too many held repositories beside it")
}
