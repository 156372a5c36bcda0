package tools

import (
	"context"
	_ "embed"
	"fmt"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/ollm/ollm/core/tool"
)

//go:embed read_many_files.md
var readManyFilesMD string

type readManyParams struct {
	Paths         []string `json:"paths"`
	IncludeHidden bool     `json:"includeHidden"`
	MaxFiles      int      `json:"maxFiles"`
}

func newReadManyFiles(e *env) tool.Tool {
	minOne := 1
	return &tool.Func[readManyParams]{
		Spec: tool.Spec{ToolName: "read_many_files", Desc: readManyFilesMD, ToolKind: tool.KindRead, Params: obj([]string{"paths"}, map[string]*tool.Schema{
			"paths":         {Type: "array", Description: "files or glob patterns", Items: str("file or glob"), MinItems: &minOne},
			"includeHidden": boolean("let globs match names starting with a dot"),
			"maxFiles":      integer("maximum number of files (default 50)", 1),
		})},
		New: func(p readManyParams) (*tool.Call, error) {
			for i, pat := range p.Paths {
				if !doublestar.ValidatePattern(pat) {
					return nil, &tool.Error{Kind: tool.ErrInvalidParams, Message: fmt.Sprintf("read_many_files: parameter \"paths.%d\": %q is not a valid path or glob", i, pat)}
				}
				if _, err := e.resolve(staticPart(pat)); err != nil {
					return nil, err
				}
			}
			desc := "Read " + strings.Join(p.Paths, ", ")
			return &tool.Call{Desc: desc, Locs: p.Paths, Confirm: &tool.Confirmation{Title: desc},
				Run: func(ctx context.Context, _ func(tool.Chunk)) (tool.Result, error) {
					return e.runReadMany(ctx, p), nil
				}}, nil
		},
	}
}

// staticPart is the part of a glob before its first wildcard.
func staticPart(pattern string) string {
	static, _ := doublestar.SplitPattern(pattern)
	return static
}

func (e *env) runReadMany(ctx context.Context, p readManyParams) tool.Result {
	limit := p.MaxFiles
	if limit == 0 {
		limit = 50
	}
	files, notes := e.expandPaths(ctx, p)
	var b strings.Builder
	for _, n := range notes {
		fmt.Fprintf(&b, "[%s]\n", n)
	}
	var read []string
	for i, loc := range files {
		if i == limit {
			fmt.Fprintf(&b, "[%d more files not read: maxFiles=%d]\n", len(files)-limit, limit)
			break
		}
		fmt.Fprintf(&b, "--- %s ---\n%s\n", e.rel(loc.Abs), e.fileBody(loc))
		read = append(read, e.rel(loc.Abs))
	}
	if len(read) == 0 {
		return tool.Fail(tool.ErrNotFound, "no files matched %s\n%s", strings.Join(p.Paths, ", "), b.String())
	}
	return tool.Result{ForModel: e.truncate(b.String()), Display: fmt.Sprintf("Read %s", plural(len(read), "file")), Data: read}
}

// expandPaths turns paths and globs into files, in order, without
// duplicates; notes say what could not be used.
func (e *env) expandPaths(ctx context.Context, p readManyParams) (files []Loc, notes []string) {
	seen := map[string]bool{}
	add := func(loc Loc) {
		if !seen[loc.Abs] {
			seen[loc.Abs] = true
			files = append(files, loc)
		}
	}
	for _, pat := range p.Paths {
		if !hasMeta(pat) {
			loc, err := e.resolve(pat)
			if err != nil {
				notes = append(notes, err.Error())
				continue
			}
			add(loc)
			continue
		}
		root, _ := e.resolve("")
		matched, _, err := e.globFiles(ctx, root, pat, p.IncludeHidden, 0)
		if err != nil || len(matched) == 0 {
			notes = append(notes, "no files match "+pat)
		}
		for _, rel := range matched {
			if loc, err := e.resolve(rel); err == nil {
				add(loc)
			}
		}
	}
	return files, notes
}

func hasMeta(p string) bool { return strings.ContainsAny(p, "*?[{") }

// fileBody is a file's text, or a one-line note on why it is not shown.
func (e *env) fileBody(loc Loc) string {
	t, binMsg, err := readText(loc, e.rel(loc.Abs), e.cfg.MaxFile)
	switch {
	case err != nil:
		return "[" + err.Error() + "]"
	case binMsg != "":
		return "[" + binMsg + "]"
	}
	if note := t.Describe(); note != "" {
		return "[" + note + "]\n" + t.Body
	}
	return t.Body
}
