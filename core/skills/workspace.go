package skills

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"
)

// maxInjected bounds what one @{...} adds to a prompt.
const maxInjected = 1 << 20

// ReadInWorkspace returns the text of path for a command's @{path}: a file,
// or every text file under a directory (hidden ones skipped), each after a
// "--- name ---" line. path is relative to root or absolute; either way it
// must stay inside root after symbolic links are followed.
func ReadInWorkspace(root, path string) (string, error) {
	if root == "" {
		return "", fmt.Errorf("no workspace to read %s from", path)
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", err
	}
	p := path
	if !filepath.IsAbs(p) {
		p = filepath.Join(root, p)
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return "", fmt.Errorf("%s: %w", path, err)
	}
	if rel, err := filepath.Rel(realRoot, real); err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return "", fmt.Errorf("%s is outside the workspace %s; a command reads files of the workspace only", path, root)
	}
	st, err := os.Stat(real)
	if err != nil {
		return "", err
	}
	if !st.IsDir() {
		data, err := readCapped(real)
		if err != nil {
			return "", err
		}
		if !utf8.Valid(data) {
			return "", fmt.Errorf("%s is not a text file", path)
		}
		return string(data), nil
	}
	var files []string
	err = filepath.WalkDir(real, func(q string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if q != real && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() {
			files = append(files, q)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	sort.Strings(files)
	var b strings.Builder
	for _, f := range files {
		data, err := readCapped(f)
		if err != nil || !utf8.Valid(data) {
			continue // binary files are skipped, as Gemini CLI does
		}
		if b.Len()+len(data) > maxInjected {
			fmt.Fprintf(&b, "[%s: more files left out at %d KiB]\n", path, maxInjected>>10)
			break
		}
		rel, _ := filepath.Rel(realRoot, f)
		fmt.Fprintf(&b, "--- %s ---\n%s\n", rel, data)
	}
	return b.String(), nil
}

func readCapped(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxInjected+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxInjected {
		data = append(data[:maxInjected], fmt.Sprintf("\n[cut at %d KiB]", maxInjected>>10)...)
	}
	return data, nil
}
