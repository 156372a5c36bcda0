package tools

import (
	"context"
	_ "embed"
	"fmt"
	"os"
	"strings"

	"github.com/ollm/ollm/core/tool"
)

//go:embed edit_file.md
var editFileMD string

type edit struct {
	OldText string `json:"oldText"`
	NewText string `json:"newText"`
}

type editFileParams struct {
	Path  string `json:"path"`
	Edits []edit `json:"edits"`
}

func newEditFile(e *env) tool.Tool {
	minOne := 1
	editSchema := obj([]string{"oldText", "newText"}, map[string]*tool.Schema{
		"oldText": str("exact text to replace; must occur exactly once"),
		"newText": str("replacement text"),
	})
	return &tool.Func[editFileParams]{
		Spec: tool.Spec{ToolName: "edit_file", Desc: editFileMD, ToolKind: tool.KindEdit, Params: obj([]string{"path", "edits"}, map[string]*tool.Schema{
			"path":  str("file to edit"),
			"edits": {Type: "array", Description: "replacements, applied in order", Items: editSchema, MinItems: &minOne},
		})},
		New: func(p editFileParams) (*tool.Call, error) {
			loc, err := e.resolve(p.Path)
			if err != nil {
				return nil, err
			}
			shown := e.rel(loc.Abs)
			t, after, err := e.planEdit(loc, p.Edits)
			if err != nil {
				return nil, err
			}
			title := fmt.Sprintf("Edit %s (%s)", shown, plural(len(p.Edits), "edit"))
			why := e.trust(loc)
			return &tool.Call{Desc: title, Locs: []string{loc.Abs},
				Confirm: &tool.Confirmation{Title: trustTitle(title, why), Diff: unifiedDiff(shown, t.Body, after), Trust: why},
				Run: func(ctx context.Context, _ func(tool.Chunk)) (tool.Result, error) {
					if res, changed := e.becameTrust(loc, why); changed {
						return res, nil
					}
					return e.editFile(loc, p.Edits), nil
				}}, nil
		},
	}
}

// planEdit reads the file and applies the edits in memory.
func (e *env) planEdit(loc Loc, edits []edit) (Text, string, error) {
	shown := e.rel(loc.Abs)
	t, binMsg, err := readText(loc, shown, e.cfg.MaxFile)
	if err != nil {
		return Text{}, "", err
	}
	if binMsg != "" {
		return Text{}, "", &tool.Error{Kind: tool.ErrInvalidParams, Message: binMsg + "; edit_file only edits text"}
	}
	after, err := applyEdits(t.Body, edits)
	if err != nil {
		return Text{}, "", &tool.Error{Kind: tool.ErrInvalidParams, Message: fmt.Sprintf("%s: %v; nothing was written", shown, err)}
	}
	return t, after, nil
}

// editFile re-reads the file (it may have changed since the call was
// built), applies the edits and writes it back atomically in its encoding.
func (e *env) editFile(loc Loc, edits []edit) tool.Result {
	shown := e.rel(loc.Abs)
	t, after, err := e.planEdit(loc, edits)
	if err != nil {
		return tool.FromError(err, tool.ErrExec)
	}
	perm := os.FileMode(0o644)
	if fi, err := loc.Stat(); err == nil {
		perm = fi.Mode().Perm()
	}
	if err := loc.WriteFile(t.Encode(after), perm); err != nil {
		return writeError(err, shown)
	}
	diff := unifiedDiff(shown, t.Body, after)
	msg := fmt.Sprintf("Applied %s to %s.", plural(len(edits), "edit"), shown)
	return tool.Result{ForModel: msg, Display: msg + "\n" + diff, Files: []string{loc.Abs}}
}

// applyEdits applies each edit in order; every oldText must occur exactly
// once in the text as the edits before it left it.
func applyEdits(body string, edits []edit) (string, error) {
	for i, ed := range edits {
		old := strings.ReplaceAll(ed.OldText, "\r\n", "\n")
		if old == "" {
			return "", fmt.Errorf("edits[%d]: oldText is empty; to create a file use write_file", i)
		}
		switch n := strings.Count(body, old); n {
		case 0:
			return "", fmt.Errorf("edits[%d]: oldText was not found; read the file again and copy the text exactly, including whitespace", i)
		case 1:
			body = strings.Replace(body, old, strings.ReplaceAll(ed.NewText, "\r\n", "\n"), 1)
		default:
			return "", fmt.Errorf("edits[%d]: oldText matches %d times; include more surrounding lines so it matches exactly once", i, n)
		}
	}
	return body, nil
}
