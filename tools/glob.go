package tools

import (
	"context"
	_ "embed"
	"fmt"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/ollm/ollm/core/tool"
)

//go:embed glob.md
var globMD string

type globParams struct {
	Pattern       string `json:"pattern"`
	Path          string `json:"path"`
	MaxResults    int    `json:"maxResults"`
	IncludeHidden bool   `json:"includeHidden"`
}

const defaultMaxResults = 1000

func newGlob(e *env) tool.Tool {
	return &tool.Func[globParams]{
		Spec: tool.Spec{ToolName: "glob", Desc: globMD, ToolKind: tool.KindSearch, Params: obj([]string{"pattern"}, map[string]*tool.Schema{
			"pattern":       str("doublestar glob, e.g. **/*.go"),
			"path":          str("directory to search in (default: workspace root)"),
			"maxResults":    integer("maximum number of paths (default 1000)", 1),
			"includeHidden": boolean("include names starting with a dot"),
		})},
		New: func(p globParams) (*tool.Call, error) {
			if !doublestar.ValidatePattern(p.Pattern) {
				return nil, &tool.Error{Kind: tool.ErrInvalidParams, Message: fmt.Sprintf("glob: parameter \"pattern\": %q is not a valid glob", p.Pattern)}
			}
			base, err := e.resolve(p.Path)
			if err != nil {
				return nil, err
			}
			desc := fmt.Sprintf("Find %s in %s", p.Pattern, e.rel(base.Abs))
			return &tool.Call{Desc: desc, Locs: []string{base.Abs}, Confirm: &tool.Confirmation{Title: desc},
				Run: func(ctx context.Context, _ func(tool.Chunk)) (tool.Result, error) {
					return e.runGlob(ctx, base, p), nil
				}}, nil
		},
	}
}

func (e *env) runGlob(ctx context.Context, base Loc, p globParams) tool.Result {
	limit := p.MaxResults
	if limit == 0 {
		limit = defaultMaxResults
	}
	paths, more, err := e.globFiles(ctx, base, p.Pattern, p.IncludeHidden, limit)
	if err != nil {
		return tool.CancelledResult(err)
	}
	if len(paths) == 0 {
		return tool.OK(fmt.Sprintf("No files match %s in %s", p.Pattern, e.rel(base.Abs)))
	}
	out := strings.Join(paths, "\n")
	if more {
		out += fmt.Sprintf("\n[stopped at maxResults=%d; narrow the pattern to see the rest]", limit)
	}
	return tool.Result{ForModel: e.truncate(out), Display: fmt.Sprintf("%s match %s", plural(len(paths), "file"), p.Pattern), Data: paths}
}

// globFiles returns up to limit files under base matching pattern, sorted,
// relative to the workspace root; more is true when the limit cut the list.
func (e *env) globFiles(ctx context.Context, base Loc, pattern string, hidden bool, limit int) (paths []string, more bool, err error) {
	pattern = strings.TrimPrefix(pattern, "./")
	static, _ := doublestar.SplitPattern(pattern)
	start := base
	if static != "." && !strings.Contains(static, "..") {
		if l, rerr := e.resolve(joinUnder(base.Abs, static)); rerr == nil {
			start = l
		}
	}
	walk, fi, err := openWalkBase(start)
	if err != nil || !fi.IsDir() {
		return nil, false, nil // nothing to walk, as an unreadable directory
	}
	defer walk.Close()
	hidden = hidden || isHiddenPath(pattern)
	var mu sync.Mutex
	err = walkTreeParallel(ctx, walk, e.walkOpts(hidden, 0), func(ent walkEntry) (bool, error) {
		if ent.dir {
			return true, nil
		}
		rel := relTo(base.Abs, ent.abs)
		if ok, _ := doublestar.Match(pattern, rel); ok {
			shown := e.rel(ent.abs)
			mu.Lock()
			paths = append(paths, shown)
			mu.Unlock()
		}
		return true, nil
	})
	paths = sortedUnique(paths)
	if limit > 0 && len(paths) > limit {
		paths, more = paths[:limit], true
	}
	return paths, more, err
}
