package tools

import (
	"context"
	_ "embed"
	"fmt"
	"sort"
	"strings"

	"github.com/ollm/ollm/core/tool"
)

//go:embed ls.md
var lsMD string

type lsParams struct {
	Path          string `json:"path"`
	Recursive     bool   `json:"recursive"`
	MaxDepth      int    `json:"maxDepth"`
	IncludeHidden bool   `json:"includeHidden"`
}

func newLs(e *env) tool.Tool {
	return &tool.Func[lsParams]{
		Spec: tool.Spec{ToolName: "ls", Desc: lsMD, ToolKind: tool.KindRead, Params: obj(nil, map[string]*tool.Schema{
			"path":          str("directory to list (default: workspace root)"),
			"recursive":     boolean("list subdirectories too"),
			"maxDepth":      integer("levels to descend when recursive; 1 = only this directory", 1),
			"includeHidden": boolean("show names starting with a dot"),
		})},
		New: func(p lsParams) (*tool.Call, error) {
			dir, err := e.resolve(p.Path)
			if err != nil {
				return nil, err
			}
			desc := "List " + e.rel(dir.Abs)
			return &tool.Call{Desc: desc, Locs: []string{dir.Abs}, Confirm: &tool.Confirmation{Title: desc},
				Run: func(ctx context.Context, _ func(tool.Chunk)) (tool.Result, error) {
					return e.runLs(ctx, dir, p), nil
				}}, nil
		},
	}
}

// lsNode is a directory entry with its children (when listed).
type lsNode struct {
	name     string
	dir      bool
	size     int64
	children []*lsNode
}

func (e *env) runLs(ctx context.Context, dir Loc, p lsParams) tool.Result {
	shown := e.rel(dir.Abs)
	base, fi, err := openWalkBase(dir)
	if err != nil {
		return tool.Fail(tool.ErrNotFound, "directory not found: %s", shown)
	}
	defer base.Close()
	if !fi.IsDir() {
		return tool.Fail(tool.ErrInvalidParams, "%s is a file, not a directory; use read_file", shown)
	}
	depth := 1
	if p.Recursive {
		depth = p.MaxDepth
	}
	root := &lsNode{dir: true}
	byPath := map[string]*lsNode{"": root}
	count := 0
	err = walkTree(ctx, base, e.walkOpts(p.IncludeHidden, depth), func(ent walkEntry) (bool, error) {
		parent := byPath[parentRel(ent.rel)]
		n := &lsNode{name: ent.info.Name(), dir: ent.dir}
		if !ent.dir {
			n.size = ent.size()
		}
		parent.children = append(parent.children, n)
		if ent.dir {
			byPath[ent.rel] = n
		}
		count++
		return true, nil
	})
	if err != nil {
		return tool.CancelledResult(err)
	}
	if count == 0 {
		return tool.OK(fmt.Sprintf("%s is empty (or everything in it is hidden or ignored).", shown))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s/\n", shown)
	writeTree(&b, root, 1)
	entries := fmt.Sprintf("%d entries", count)
	if count == 1 {
		entries = "1 entry"
	}
	return tool.Result{ForModel: e.truncate(b.String()), Display: "Listed " + entries + " in " + shown}
}

func parentRel(rel string) string {
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		return rel[:i]
	}
	return ""
}

// writeTree prints n's children, directories first, each group by name.
func writeTree(b *strings.Builder, n *lsNode, indent int) {
	sort.Slice(n.children, func(i, j int) bool {
		a, c := n.children[i], n.children[j]
		if a.dir != c.dir {
			return a.dir
		}
		return a.name < c.name
	})
	pad := strings.Repeat("  ", indent)
	for _, c := range n.children {
		if c.dir {
			fmt.Fprintf(b, "%s%s/\n", pad, c.name)
			writeTree(b, c, indent+1)
		} else {
			fmt.Fprintf(b, "%s%s  %d B\n", pad, c.name, c.size)
		}
	}
}
