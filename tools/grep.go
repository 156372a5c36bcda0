package tools

import (
	"context"
	_ "embed"
	"fmt"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/ollm/ollm/core/tool"
	"golang.org/x/sys/unix"
)

//go:embed grep.md
var grepMD string

type grepParams struct {
	Pattern       string `json:"pattern"`
	Path          string `json:"path"`
	CaseSensitive *bool  `json:"caseSensitive"`
	FilePattern   string `json:"filePattern"`
	IncludeHidden bool   `json:"includeHidden"`
	MaxResults    int    `json:"maxResults"`
}

func newGrep(e *env) tool.Tool {
	return &tool.Func[grepParams]{
		Spec: tool.Spec{ToolName: "grep", Desc: grepMD, ToolKind: tool.KindSearch, Params: obj([]string{"pattern"}, map[string]*tool.Schema{
			"pattern":       str("RE2 regular expression"),
			"path":          str("directory or file to search (default: workspace root)"),
			"caseSensitive": boolean("match case (default true)"),
			"filePattern":   str("glob the file name or path must match, e.g. *.go"),
			"includeHidden": boolean("search names starting with a dot"),
			"maxResults":    integer("maximum number of lines (default 500)", 1),
		})},
		New: func(p grepParams) (*tool.Call, error) {
			m, err := compileMatcher(p.Pattern, p.CaseSensitive == nil || *p.CaseSensitive)
			if err != nil {
				return nil, &tool.Error{Kind: tool.ErrInvalidParams, Message: fmt.Sprintf("grep: parameter \"pattern\": %v", err)}
			}
			if p.FilePattern != "" && !doublestar.ValidatePattern(p.FilePattern) {
				return nil, &tool.Error{Kind: tool.ErrInvalidParams, Message: fmt.Sprintf("grep: parameter \"filePattern\": %q is not a valid glob", p.FilePattern)}
			}
			base, err := e.resolve(p.Path)
			if err != nil {
				return nil, err
			}
			desc := fmt.Sprintf("Search for %q in %s", p.Pattern, e.rel(base.Abs))
			return &tool.Call{Desc: desc, Locs: []string{base.Abs}, Confirm: &tool.Confirmation{Title: desc},
				Run: func(ctx context.Context, _ func(tool.Chunk)) (tool.Result, error) {
					return e.runGrep(ctx, base, m, p), nil
				}}, nil
		},
	}
}

// grepHit is one matching line.
type grepHit struct {
	path string
	line int
	text string
}

func (e *env) runGrep(ctx context.Context, base Loc, m *matcher, p grepParams) tool.Result {
	limit := p.MaxResults
	if limit == 0 {
		limit = 500
	}
	hits, total, err := e.grepTree(ctx, base, m, p)
	if err != nil {
		return tool.CancelledResult(err)
	}
	if total == 0 {
		return tool.OK(fmt.Sprintf("No matches for %q in %s", p.Pattern, e.rel(base.Abs)))
	}
	var b strings.Builder
	for i, h := range hits {
		if i == limit {
			break
		}
		fmt.Fprintf(&b, "%s:%d:%s\n", h.path, h.line, h.text)
	}
	if total > limit {
		fmt.Fprintf(&b, "[%d more matching lines not shown; narrow the pattern, path or filePattern]\n", total-limit)
	}
	return tool.Result{ForModel: e.truncate(b.String()), Display: plural(total, "matching line"), Data: map[string]any{"matches": total}}
}

// maxStoredHits bounds memory on patterns that match nearly every line;
// beyond it lines are only counted.
const maxStoredHits = 20000

// grepTree walks base and searches files on one worker per CPU; a file
// as base is searched alone. Hits come back sorted by path and line; total
// counts all of them.
func (e *env) grepTree(ctx context.Context, base Loc, m *matcher, p grepParams) ([]grepHit, int, error) {
	walk, fi, err := openWalkBase(base)
	if err != nil {
		return nil, 0, nil // nothing to search, as an unreadable directory
	}
	defer walk.Close()
	var (
		mu     sync.Mutex
		hits   []grepHit
		total  atomic.Int64
		stored atomic.Int64
		wg     sync.WaitGroup
	)
	if !fi.IsDir() {
		hits, _ = e.grepFile(e.rel(base.Abs), walk.fd, m, nil, nil, &total, &stored)
		return hits, int(total.Load()), nil
	}
	files := make(chan walkEntry, 256)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			var local []grepHit
			var buf []byte
			for f := range files {
				fd, err := walk.open(f.rel, unix.O_RDONLY|unix.O_NONBLOCK)
				if err != nil {
					continue
				}
				local, buf = e.grepFile(e.rel(f.abs), fd, m, buf, local, &total, &stored)
				unix.Close(fd)
			}
			mu.Lock()
			hits = append(hits, local...)
			mu.Unlock()
		})
	}
	err = e.feedFiles(ctx, walk, p, files)
	close(files)
	wg.Wait()
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].path != hits[j].path {
			return hits[i].path < hits[j].path
		}
		return hits[i].line < hits[j].line
	})
	return hits, int(total.Load()), err
}

// feedFiles sends every file to search.
func (e *env) feedFiles(ctx context.Context, base *walkBase, p grepParams, files chan<- walkEntry) error {
	matchPath := strings.Contains(p.FilePattern, "/")
	return walkTreeParallel(ctx, base, e.walkOpts(p.IncludeHidden, 0), func(ent walkEntry) (bool, error) {
		if ent.dir {
			return true, nil
		}
		if p.FilePattern != "" {
			subject := ent.info.Name()
			if matchPath {
				subject = ent.rel
			}
			if ok, _ := doublestar.Match(p.FilePattern, subject); !ok {
				return true, nil
			}
		}
		files <- ent
		return true, nil
	})
}

// grepFile searches the open file fd, shown as shown, reading it into buf,
// which it returns for the next file.
func (e *env) grepFile(shown string, fd int, m *matcher, buf []byte, hits []grepHit, total, stored *atomic.Int64) ([]grepHit, []byte) {
	data, err := readInto(buf, fd)
	if err != nil || IsBinary(data) {
		return hits, data
	}
	m.search(data, func(line int, text []byte) {
		total.Add(1)
		if stored.Add(1) > maxStoredHits {
			return
		}
		hits = append(hits, grepHit{path: shown, line: line, text: clipLine(text)})
	})
	return hits, data
}

// clipLine trims a CR and cuts very long lines (minified files).
func clipLine(b []byte) string {
	s := strings.TrimSuffix(string(b), "\r")
	if len(s) > 400 {
		s, _ = tool.TruncateChars(s, 400)
		s += " [...]"
	}
	return s
}

// compile is a helper used by matcher construction.
func compile(pattern string, caseSensitive bool) (*regexp.Regexp, error) {
	flags := "(?m)"
	if !caseSensitive {
		flags = "(?mi)"
	}
	return regexp.Compile(flags + pattern)
}
