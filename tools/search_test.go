package tools

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ollm/ollm/core/tool"
)

// ignoreFixture is a repository with ignore rules at every level:
// the global excludes file, .git/info/exclude, the root .gitignore, a
// nested one that re-includes a file, and a deeper one.
func ignoreFixture(t *testing.T) *fixture {
	f := newFixture(t)
	f.write(map[string]string{
		".git/info/exclude":    "excluded-by-info.txt\n",
		".gitignore":           "# root rules\n*.log\nbuild/\n/rootonly.txt\n",
		"keep.go":              "package main // needle\n",
		"app.log":              "needle\n",
		"rootonly.txt":         "needle\n",
		"excluded-by-info.txt": "needle\n",
		"global-ignored.tmp":   "needle\n",
		"build/out.go":         "needle\n",
		"src/a.go":             "package src // needle\n",
		"src/rootonly.txt":     "needle in a nested dir: root-anchored rule does not apply\n",
		"src/.gitignore":       "gen/\n!important.log\n",
		"src/important.log":    "needle\n",
		"src/other.log":        "needle\n",
		"src/gen/z.go":         "needle\n",
		"src/deep/.gitignore":  "*.md\n",
		"src/deep/readme.md":   "needle\n",
		"src/deep/code.go":     "needle\n",
		"docs/readme.md":       "needle\n",
		".hidden/h.go":         "needle\n",
		".config.go":           "needle\n",
	})
	os.WriteFile(filepath.Join(f.home, ".gitconfig"), []byte("[core]\n\texcludesFile = ~/global-ignore\n"), 0o644)
	os.WriteFile(filepath.Join(f.home, "global-ignore"), []byte("*.tmp\n"), 0o644)
	return f
}

var visible = []string{"docs/readme.md", "keep.go", "src/a.go", "src/deep/code.go", "src/important.log", "src/rootonly.txt"}

func TestGlobHonoursIgnoreRules(t *testing.T) {
	f := ignoreFixture(t)
	got := f.ok("glob", `{"pattern":"**/*"}`)
	want := strings.Join(visible, "\n")
	if got != want {
		t.Fatalf("glob **/* =\n%s\nwant\n%s", got, want)
	}
	got = f.ok("glob", `{"pattern":"**/*.go","includeHidden":true}`)
	if got != ".config.go\n.hidden/h.go\nkeep.go\nsrc/a.go\nsrc/deep/code.go" {
		t.Fatalf("glob with hidden files =\n%s", got)
	}
	got = f.ok("glob", `{"pattern":"**/*.go","maxResults":2}`)
	if !strings.HasPrefix(got, "keep.go\nsrc/a.go\n[stopped at maxResults=2") {
		t.Fatalf("glob maxResults=2 =\n%s", got)
	}
	if got := f.ok("glob", `{"pattern":"*.go","path":"src"}`); got != "src/a.go" {
		t.Fatalf("glob in src = %q", got)
	}
	if got := f.ok("glob", `{"pattern":"src/deep/*"}`); got != "src/deep/code.go" {
		t.Fatalf("glob with a static prefix = %q", got)
	}
	if got := f.ok("glob", `{"pattern":"*.nothing"}`); !strings.HasPrefix(got, "No files match") {
		t.Fatalf("glob without matches = %q", got)
	}
	f.fails("glob", `{"pattern":"[unclosed"}`, tool.ErrInvalidParams, `parameter "pattern"`)
}

func TestGlobXDGDefaultExcludes(t *testing.T) {
	f := newFixture(t)
	f.write(map[string]string{"a.go": "", "b.swp": ""})
	xdg := filepath.Join(f.home, "xdg")
	mustMkdir(t, filepath.Join(xdg, "git"))
	os.WriteFile(filepath.Join(xdg, "git", "ignore"), []byte("*.swp\n"), 0o644)
	f.env["XDG_CONFIG_HOME"] = xdg
	if got := f.ok("glob", `{"pattern":"*"}`); got != "a.go" {
		t.Fatalf("glob with $XDG_CONFIG_HOME/git/ignore = %q", got)
	}
}

func TestGrep(t *testing.T) {
	f := ignoreFixture(t)
	got := f.ok("grep", `{"pattern":"needle"}`)
	var want []string
	for _, v := range visible {
		want = append(want, v+":1:"+strings.TrimSuffix(f.read(v), "\n"))
	}
	if got != strings.Join(want, "\n")+"\n" {
		t.Fatalf("grep needle =\n%s\nwant\n%s", got, strings.Join(want, "\n"))
	}
	f.write(map[string]string{"case/x.txt": "Alpha\nalpha\nbeta\nALPHA beta\n", "case/y.md": "alpha\n"})
	os.WriteFile(filepath.Join(f.root, "case", "bin.dat"), []byte("alpha\x00\x01"), 0o644)
	tests := []struct{ params, want string }{
		{`{"pattern":"alpha","path":"case"}`, "case/x.txt:2:alpha\ncase/y.md:1:alpha\n"},
		{`{"pattern":"alpha","path":"case","caseSensitive":true}`, "case/x.txt:2:alpha\ncase/y.md:1:alpha\n"},
		{`{"pattern":"alpha","path":"case","caseSensitive":false}`, "case/x.txt:1:Alpha\ncase/x.txt:2:alpha\ncase/x.txt:4:ALPHA beta\ncase/y.md:1:alpha\n"},
		{`{"pattern":"^a.*a$","path":"case","filePattern":"*.txt"}`, "case/x.txt:2:alpha\n"},
		{`{"pattern":"beta$","path":"case/x.txt","caseSensitive":false}`, "case/x.txt:3:beta\ncase/x.txt:4:ALPHA beta\n"},
		{`{"pattern":"[Aa]lpha|beta","path":"case","filePattern":"**/*.txt","maxResults":2}`, "case/x.txt:1:Alpha\ncase/x.txt:2:alpha\n[2 more matching lines not shown; narrow the pattern, path or filePattern]\n"},
		{`{"pattern":"zzz","path":"case"}`, "No matches for \"zzz\" in case"},
	}
	for _, tt := range tests {
		if got := f.ok("grep", tt.params); got != tt.want {
			t.Errorf("grep %s =\n%q\nwant\n%q", tt.params, got, tt.want)
		}
	}
	f.fails("grep", `{"pattern":"(unclosed"}`, tool.ErrInvalidParams, `grep: parameter "pattern": error parsing regexp`)
}

func TestMatcherLines(t *testing.T) {
	data := []byte("foo bar\nbaz\nfoo\r\nqux foo\nlast")
	tests := []struct {
		pattern string
		cs      bool
		want    string
	}{
		{"foo", true, "1,3,4"},
		{"FOO", false, "1,3,4"},
		{"^foo$", true, ""}, // line 3 ends in \r
		{"^foo\\r?$", true, "3"},
		{"ba[rz]", true, "1,2"},
		{"last", true, "5"},
		{"x*", true, "1,2,3,4,5"},
		{"qux (foo)+", true, "4"},
		{"QUX FOO", false, "4"},
		{"Ba[RZ]", false, "1,2"},
		{"^FOO", false, "1,3"},
	}
	for _, tt := range tests {
		m, err := compileMatcher(tt.pattern, tt.cs)
		if err != nil {
			t.Fatal(err)
		}
		var lines []string
		m.search(data, func(n int, _ []byte) { lines = append(lines, strconv.Itoa(n)) })
		if got := strings.Join(lines, ","); got != tt.want {
			t.Errorf("%q (caseSensitive %v): lines %s, want %s", tt.pattern, tt.cs, got, tt.want)
		}
	}
}

func TestLs(t *testing.T) {
	f := ignoreFixture(t)
	got := f.ok("ls", `{}`)
	want := "./\n  docs/\n  src/\n  keep.go  23 B\n"
	if got != want {
		t.Fatalf("ls =\n%s\nwant\n%s", got, want)
	}
	got = f.ok("ls", `{"path":"src","recursive":true}`)
	want = "src/\n  deep/\n    code.go  7 B\n  a.go  22 B\n  important.log  7 B\n  rootonly.txt  58 B\n"
	if got != want {
		t.Fatalf("ls -R src =\n%s\nwant\n%s", got, want)
	}
	got = f.ok("ls", `{"path":"src","recursive":true,"maxDepth":1}`)
	if strings.Contains(got, "code.go") || !strings.Contains(got, "deep/") {
		t.Fatalf("ls maxDepth=1 =\n%s", got)
	}
	got = f.ok("ls", `{"includeHidden":true}`)
	if !strings.Contains(got, ".hidden/") || !strings.Contains(got, ".gitignore") || strings.Contains(got, ".git/") {
		t.Fatalf("ls includeHidden =\n%s", got)
	}
	f.fails("ls", `{"path":"missing"}`, tool.ErrNotFound, "directory not found: missing")
	f.fails("ls", `{"path":"keep.go"}`, tool.ErrInvalidParams, "is a file")
}
