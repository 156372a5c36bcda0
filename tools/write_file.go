package tools

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"github.com/ollm/ollm/core/tool"
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
			loc, err := e.resolve(p.Path)
			if err != nil {
				return nil, err
			}
			shown := e.rel(loc.Abs)
			old, exists := oldContent(loc)
			title := "Create " + shown
			if exists {
				title = "Overwrite " + shown
			}
			why := e.trust(loc)
			return &tool.Call{Desc: title, Locs: []string{loc.Abs},
				Confirm: &tool.Confirmation{Title: trustTitle(title, why), Diff: unifiedDiff(shown, old, p.Content), Trust: why},
				Run: func(ctx context.Context, _ func(tool.Chunk)) (tool.Result, error) {
					if res, changed := e.becameTrust(loc, why); changed {
						return res, nil
					}
					return e.writeFile(loc, p), nil
				}}, nil
		},
	}
}

// oldContent is what the confirmation diff starts from: the file's text,
// "" when it is missing or cannot be read.
func oldContent(loc Loc) (string, bool) {
	f, err := loc.Open()
	if err != nil {
		return "", false
	}
	defer f.Close()
	var b strings.Builder
	if fi, err := f.Stat(); err == nil && !fi.IsDir() {
		b.Grow(int(fi.Size()))
		io.Copy(&b, f)
	}
	return b.String(), true
}

func (e *env) writeFile(loc Loc, p writeFileParams) tool.Result {
	shown := e.rel(loc.Abs)
	perm := fs.FileMode(0o644)
	fi, err := loc.Stat()
	switch {
	case err == nil && fi.IsDir():
		return tool.Fail(tool.ErrInvalidParams, "%s is a directory", shown)
	case err == nil && !p.Overwrite:
		return tool.Fail(tool.ErrExists, "%s already exists; pass overwrite: true to replace it, or use edit_file to change part of it", shown)
	case err == nil:
		perm = fi.Mode().Perm()
	case !errors.Is(err, fs.ErrNotExist):
		return tool.FromError(statError(err, shown), tool.ErrExec)
	}
	if err := loc.WriteFile([]byte(p.Content), perm); err != nil {
		return writeError(err, shown)
	}
	verb := "Created"
	if fi != nil {
		verb = "Overwrote"
	}
	msg := fmt.Sprintf("%s %s (%s).", verb, shown, plural(len(p.Content), "byte"))
	return tool.Result{ForModel: msg, Display: msg, Files: []string{loc.Abs}}
}
