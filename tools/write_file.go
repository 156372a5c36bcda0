package tools

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/ollm/ollm/core/tool"
	"github.com/ollm/ollm/store"
)

//go:embed write_file.md
var writeFileMD string

type writeFileParams struct {
	Path      string `json:"path"`
	Content   string `json:"content"`
	Overwrite bool   `json:"overwrite"`
}

func newWriteFile(e *env) tool.Tool {
	return &tool.Func[writeFileParams]{
		Spec: tool.Spec{ToolName: "write_file", Desc: writeFileMD, ToolKind: tool.KindEdit, Params: obj([]string{"path", "content"}, map[string]*tool.Schema{
			"path":      str("file to write"),
			"content":   str("the complete new content"),
			"overwrite": boolean("replace the file if it exists"),
		})},
		New: func(p writeFileParams) (*tool.Call, error) {
			abs, err := e.resolve(p.Path)
			if err != nil {
				return nil, err
			}
			shown := e.rel(abs)
			old, _ := os.ReadFile(abs)
			title := "Create " + shown
			if old != nil {
				title = "Overwrite " + shown
			}
			return &tool.Call{Desc: title, Locs: []string{abs},
				Confirm: &tool.Confirmation{Title: title, Diff: unifiedDiff(shown, string(old), p.Content)},
				Run: func(ctx context.Context, _ func(tool.Chunk)) (tool.Result, error) {
					return e.writeFile(abs, p), nil
				}}, nil
		},
	}
}

func (e *env) writeFile(abs string, p writeFileParams) tool.Result {
	shown := e.rel(abs)
	perm := fs.FileMode(0o644)
	fi, err := os.Stat(abs)
	switch {
	case err == nil && fi.IsDir():
		return tool.Fail(tool.ErrInvalidParams, "%s is a directory", shown)
	case err == nil && !p.Overwrite:
		return tool.Fail(tool.ErrExists, "%s already exists; pass overwrite: true to replace it, or use edit_file to change part of it", shown)
	case err == nil:
		perm = fi.Mode().Perm()
	case !errors.Is(err, fs.ErrNotExist):
		return tool.Fail(tool.ErrExec, "%s: %v", shown, err)
	}
	if err := store.WriteFile(abs, []byte(p.Content), perm); err != nil {
		return tool.Fail(tool.ErrExec, "write %s: %v", shown, err)
	}
	verb := "Created"
	if fi != nil {
		verb = "Overwrote"
	}
	msg := fmt.Sprintf("%s %s (%d bytes).", verb, shown, len(p.Content))
	return tool.Result{ForModel: msg, Display: msg, Files: []string{abs}}
}
