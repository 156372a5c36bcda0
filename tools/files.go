package tools

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ollm/ollm/core/tool"
)

// statFile checks that abs is a regular file within the size limit. The
// error names the path and says what to do.
func statFile(abs, shown string, limit int64) (fs.FileInfo, error) {
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, &tool.Error{Kind: tool.ErrNotFound, Message: fmt.Sprintf("file not found: %s; check the path with ls or glob", shown)}
	case errors.Is(err, fs.ErrPermission):
		return nil, &tool.Error{Kind: tool.ErrPermission, Message: fmt.Sprintf("%s: permission denied", shown)}
	case err != nil:
		return nil, &tool.Error{Kind: tool.ErrExec, Message: fmt.Sprintf("%s: %v", shown, err)}
	case fi.IsDir():
		return nil, &tool.Error{Kind: tool.ErrInvalidParams, Message: fmt.Sprintf("%s is a directory; use ls to list it", shown)}
	case limit > 0 && fi.Size() > limit:
		return nil, &tool.Error{Kind: tool.ErrTooLarge, Message: fmt.Sprintf("%s is too large (%d bytes, the limit is %d); search it with grep instead", shown, fi.Size(), limit)}
	}
	return fi, nil
}

// readText reads a text file. binary is true (with a message for the model)
// when the file is not text.
func readText(abs, shown string, limit int64) (t Text, binaryMsg string, err error) {
	fi, err := statFile(abs, shown, limit)
	if err != nil {
		return Text{}, "", err
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return Text{}, "", &tool.Error{Kind: tool.ErrExec, Message: fmt.Sprintf("read %s: %v", shown, err)}
	}
	t, ok := DecodeText(data)
	if !ok {
		return Text{}, fmt.Sprintf("%s is a binary file (%s, %d bytes); its content is not shown", shown, contentType(data), fi.Size()), nil
	}
	return t, "", nil
}

// joinUnder joins a slash path below dir.
func joinUnder(dir, slashRel string) string {
	return filepath.Join(dir, filepath.FromSlash(slashRel))
}

// relTo is abs relative to base with "/" separators.
func relTo(base, abs string) string {
	rel, err := filepath.Rel(base, abs)
	if err != nil {
		return abs
	}
	return filepath.ToSlash(rel)
}
