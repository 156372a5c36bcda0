package acp

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// extraDirs checks the editor's additionalDirectories (session/new, load,
// resume, fork) and resolves their symlinks: each must be absolute and an
// existing directory. The runtime refuses the rest (a secret path, one
// holding a secret, $OLLM_HOME) and grants them to the file tools and the
// shell's sandbox (core/runtime/extra_dirs.go).
func extraDirs(dirs []string) ([]string, error) {
	var out []string
	for _, d := range dirs {
		if !filepath.IsAbs(d) {
			return nil, fmt.Errorf("additionalDirectories: %s is not an absolute path", d)
		}
		real, err := filepath.EvalSymlinks(d)
		if err != nil {
			return nil, fmt.Errorf("additionalDirectories: %s: %v", d, err)
		}
		fi, err := os.Stat(real)
		if err != nil {
			return nil, fmt.Errorf("additionalDirectories: %s: %v", d, err)
		}
		if !fi.IsDir() {
			return nil, fmt.Errorf("additionalDirectories: %s is not a directory", d)
		}
		if !slices.Contains(out, real) {
			out = append(out, real)
		}
	}
	return out, nil
}

// grantedText says what the session was given beyond its workspace.
func grantedText(dirs []string) string {
	if len(dirs) == 0 {
		return ""
	}
	return "additional directories for this session (file tools and the shell may read and write them, their .git/hooks and ollm files excepted): " + strings.Join(dirs, ", ")
}
