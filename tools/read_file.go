package tools

import (
	"context"
	_ "embed"
	"fmt"
	"strings"

	"github.com/ollm/ollm/core/tool"
)

//go:embed read_file.md
var readFileMD string

type readFileParams struct {
	Path      string `json:"path"`
	StartLine int    `json:"startLine"`
	EndLine   int    `json:"endLine"`
}

func newReadFile(e *env) tool.Tool {
	return &tool.Func[readFileParams]{
		Spec: tool.Spec{ToolName: "read_file", Desc: readFileMD, ToolKind: tool.KindRead, Params: obj([]string{"path"}, map[string]*tool.Schema{
			"path":      str("file to read"),
			"startLine": integer("first line to return, 1-based", 1),
			"endLine":   integer("last line to return, inclusive", 1),
		})},
		New: func(p readFileParams) (*tool.Call, error) {
			if p.EndLine > 0 && p.StartLine > p.EndLine {
				return nil, &tool.Error{Kind: tool.ErrInvalidParams, Message: fmt.Sprintf("read_file: startLine %d is after endLine %d", p.StartLine, p.EndLine)}
			}
			loc, err := e.resolve(p.Path)
			if err != nil {
				return nil, err
			}
			return &tool.Call{
				Desc:    "Read " + e.rel(loc.Abs),
				Locs:    []string{loc.Abs},
				Confirm: &tool.Confirmation{Title: "Read " + e.rel(loc.Abs)},
				Run: func(ctx context.Context, _ func(tool.Chunk)) (tool.Result, error) {
					return e.readFile(loc, p), nil
				},
			}, nil
		},
	}
}

func (e *env) readFile(loc Loc, p readFileParams) tool.Result {
	shown := e.rel(loc.Abs)
	t, binMsg, err := readText(loc, shown, e.cfg.MaxFile)
	if err != nil {
		return tool.FromError(err, tool.ErrExec)
	}
	if binMsg != "" {
		return tool.Result{ForModel: binMsg, Display: binMsg, Data: map[string]any{"binary": true}}
	}
	body, header, err := lineRange(t.Body, p.StartLine, p.EndLine)
	if err != nil {
		return tool.Fail(tool.ErrInvalidParams, "%s: %v", shown, err)
	}
	if note := t.Describe(); note != "" {
		header = strings.TrimSpace(header + " [" + note + "]")
	}
	out := e.truncate(body)
	if header != "" {
		out = header + "\n" + out
	}
	return tool.Result{ForModel: out, Display: fmt.Sprintf("Read %s", shown), Data: map[string]any{"encoding": t.Encoding, "crlf": t.CRLF}}
}

// lineRange cuts body to lines start..end (1-based, inclusive; 0 means the
// first or last line) and returns a header when only part is shown.
func lineRange(body string, start, end int) (string, string, error) {
	if start <= 1 && end == 0 {
		return body, "", nil
	}
	lines := strings.SplitAfter(body, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	total := len(lines)
	start = max(start, 1)
	if start > total {
		return "", "", fmt.Errorf("startLine %d is past the end of the file (%d lines)", start, total)
	}
	if end == 0 || end > total {
		end = total
	}
	return strings.Join(lines[start-1:end], ""), fmt.Sprintf("[lines %d-%d of %d]", start, end, total), nil
}
