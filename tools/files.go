package tools

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/ollm/ollm/core/tool"
)

// statError turns a failed open or stat into an error that names the
// path and says what to do.
func statError(err error, shown string) error {
	var te *tool.Error
	switch {
	case errors.As(err, &te):
		return te
	case errors.Is(err, fs.ErrNotExist):
		return &tool.Error{Kind: tool.ErrNotFound, Message: fmt.Sprintf("file not found: %s; check the path with ls or glob", shown)}
	case errors.Is(err, fs.ErrPermission):
		return &tool.Error{Kind: tool.ErrPermission, Message: fmt.Sprintf("%s: permission denied", shown)}
	}
	return &tool.Error{Kind: tool.ErrExec, Message: fmt.Sprintf("%s: %v", shown, err)}
}

// checkFile checks that fi is a file within the size limit.
func checkFile(fi fs.FileInfo, shown string, limit int64) error {
	switch {
	case fi.IsDir():
		return &tool.Error{Kind: tool.ErrInvalidParams, Message: fmt.Sprintf("%s is a directory; use ls to list it", shown)}
	case limit > 0 && fi.Size() > limit:
		return &tool.Error{Kind: tool.ErrTooLarge, Message: fmt.Sprintf("%s is too large (%d bytes, the limit is %d); search it with grep instead", shown, fi.Size(), limit)}
	}
	return nil
}

// readText reads a text file through its Loc: the size and type checked
// are those of the file read. binaryMsg (a message for the model) is set
// when the file is not text.
func readText(l Loc, shown string, limit int64) (t Text, binaryMsg string, err error) {
	f, err := l.Open()
	if err != nil {
		return Text{}, "", statError(err, shown)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return Text{}, "", statError(err, shown)
	}
	if err := checkFile(fi, shown, limit); err != nil {
		return Text{}, "", err
	}
	buf := bytes.NewBuffer(make([]byte, 0, fi.Size()+512))
	_, err = buf.ReadFrom(f)
	data := buf.Bytes()
	if err != nil {
		return Text{}, "", &tool.Error{Kind: tool.ErrExec, Message: fmt.Sprintf("read %s: %v", shown, err)}
	}
	t, ok := DecodeText(data)
	if !ok {
		return Text{}, fmt.Sprintf("%s is a binary file (%s, %d bytes); its content is not shown", shown, contentType(data), fi.Size()), nil
	}
	return t, "", nil
}

// writeError is the Result of a failed write.
func writeError(err error, shown string) tool.Result {
	var te *tool.Error
	if errors.As(err, &te) {
		return tool.FromError(te, tool.ErrExec)
	}
	return tool.Fail(tool.ErrExec, "write %s: %v", shown, err)
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
