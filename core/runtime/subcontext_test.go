package runtime

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ollm/ollm/core/tool"
)

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// call is a successful call of the tool name on path (relative to ws).
func call(sc *subContext, ws, name, path string) string {
	return sc.Add(name, &tool.Call{Locs: []string{filepath.Join(ws, path)}}, tool.Result{ForModel: "ok"})
}

// The context files of a subdirectory come with the first call that works
// there, outermost first, labelled; once per conversation; the system
// prompt's texts are not given again; .git, node_modules and what
// .gitignore ignores are not looked in; a failed call or a search brings
// nothing; Forget starts over.
func TestSubContext(t *testing.T) {
	ws := t.TempDir()
	os.Mkdir(filepath.Join(ws, ".git"), 0o755)
	write(t, filepath.Join(ws, "AGENTS.md"), "root rules")
	write(t, filepath.Join(ws, ".gitignore"), "build/\n")
	write(t, filepath.Join(ws, "svc", "AGENTS.md"), "svc rules")
	write(t, filepath.Join(ws, "svc", "CLAUDE.md"), "root rules") // the root's text again
	write(t, filepath.Join(ws, "svc", "api", "GEMINI.md"), "api rules")
	write(t, filepath.Join(ws, "svc", "api", "h.go"), "package api")
	write(t, filepath.Join(ws, "node_modules", "pkg", "AGENTS.md"), "a dependency's rules")
	write(t, filepath.Join(ws, "build", "gen", "AGENTS.md"), "generated rules")
	write(t, filepath.Join(ws, "web", "AGENTS.md"), "web rules")
	base := contentSet{}
	prompt, _ := systemPrompt(promptParts{Root: ws, Seen: base})
	if !strings.Contains(prompt, "root rules") || strings.Contains(prompt, "svc rules") {
		t.Fatalf("system prompt:\n%s", prompt)
	}
	var notes []string
	sc := newSubContext(ws, nil, base, func(s string) { notes = append(notes, s) })

	if got := sc.Add("read_file", &tool.Call{Locs: []string{filepath.Join(ws, "svc", "api", "h.go")}}, tool.Result{Error: &tool.Error{Kind: tool.ErrNotFound}}); got != "" {
		t.Errorf("a failed call brought %q", got)
	}
	if got := call(sc, ws, "grep", "svc/api/h.go"); got != "" {
		t.Errorf("a search brought %q", got)
	}
	got := call(sc, ws, "read_file", "svc/api/h.go")
	i, j := strings.Index(got, "--- Context from svc/AGENTS.md (instructions for the files under svc/) ---\nsvc rules\n--- End of context from svc/AGENTS.md ---"),
		strings.Index(got, "--- Context from svc/api/GEMINI.md (instructions for the files under svc/api/) ---\napi rules")
	if i < 0 || j < i {
		t.Errorf("want svc's, then svc/api's:\n%s", got)
	}
	if strings.Contains(got, "root rules") {
		t.Errorf("the system prompt's text is given again:\n%s", got)
	}
	if again := call(sc, ws, "edit_file", "svc/api/h.go") + call(sc, ws, "ls", "svc"); again != "" {
		t.Errorf("given twice: %q", again)
	}
	for _, p := range []string{"node_modules/pkg/index.js", "build/gen/x.go", ".git/config"} {
		if got := call(sc, ws, "read_file", p); got != "" {
			t.Errorf("%s brought %q", p, got)
		}
	}
	if got := call(sc, ws, "read_file", "../outside/x"); got != "" {
		t.Errorf("a path outside the workspace brought %q", got)
	}
	many := sc.Add("read_many_files", &tool.Call{Locs: []string{"web/*.ts"}}, tool.Result{Data: []string{"web/a.ts", "web/b.ts"}})
	if strings.Count(many, "web rules") != 1 {
		t.Errorf("read_many_files: %q", many)
	}
	if !slices.Contains(notes, "context file svc/AGENTS.md read (instructions for svc/)") {
		t.Errorf("notes %q", notes)
	}
	sc.Forget()
	if got := call(sc, ws, "ls", "svc"); !strings.Contains(got, "svc rules") || strings.Contains(got, "api rules") {
		t.Errorf("after Forget, ls svc: %q", got)
	}
}

// As an attacker would lay out a repository: a context file or a
// directory linked out of the workspace, an import climbing out; none is
// read, each is named.
func TestSubContextConfined(t *testing.T) {
	outside, ws := t.TempDir(), t.TempDir()
	write(t, filepath.Join(outside, "AGENTS.md"), "OUTSIDE-SECRET")
	write(t, filepath.Join(outside, "secret.txt"), "IMPORTED-SECRET")
	write(t, filepath.Join(ws, "a", "x.go"), "package a")
	os.Symlink(filepath.Join(outside, "AGENTS.md"), filepath.Join(ws, "a", "AGENTS.md"))
	os.Symlink(outside, filepath.Join(ws, "linked"))
	write(t, filepath.Join(ws, "b", "GEMINI.md"), "b rules\n@../../"+filepath.Base(outside)+"/secret.txt\n@"+filepath.Join(outside, "secret.txt"))
	var notes []string
	sc := newSubContext(ws, nil, contentSet{}, func(s string) { notes = append(notes, s) })
	got := call(sc, ws, "read_file", "a/x.go") + call(sc, ws, "ls", "linked") + call(sc, ws, "read_file", "b/x.go")
	if strings.Contains(got, "SECRET") {
		t.Fatalf("read outside the workspace:\n%s", got)
	}
	if !strings.Contains(got, "b rules") || !strings.Contains(got, "refused: outside the project]") {
		t.Errorf("b's file with its imports refused:\n%s", got)
	}
	all := strings.Join(notes, "\n")
	for _, want := range []string{
		"context file a/AGENTS.md refused: it is a symbolic link to " + filepath.Join(outside, "AGENTS.md") + ", outside the workspace",
		"context files: directory linked refused: it is a symbolic link to " + outside + ", outside the workspace",
		"b/GEMINI.md:2: import @../../",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("notes lack %q:\n%s", want, all)
		}
	}
}

// The directories looked in and the bytes given are bounded, and a cut
// says so, to the model and the user.
func TestSubContextLimits(t *testing.T) {
	ws := t.TempDir()
	for _, d := range []string{"a", "b", "c"} {
		write(t, filepath.Join(ws, d, "AGENTS.md"), d+" rules "+strings.Repeat("x", 100))
	}
	write(t, filepath.Join(ws, "big", "AGENTS.md"), strings.Repeat("y", maxContextFile+10))
	var notes []string
	sc := newSubContext(ws, nil, contentSet{}, func(s string) { notes = append(notes, s) })
	sc.maxDirs = 2
	got := call(sc, ws, "ls", "a") + call(sc, ws, "ls", "b") + call(sc, ws, "ls", "c") + call(sc, ws, "ls", "big")
	if !strings.Contains(got, "a rules") || !strings.Contains(got, "b rules") || strings.Contains(got, "c rules") {
		t.Errorf("want a and b, not c:\n%s", got)
	}
	if n := strings.Count(strings.Join(notes, "\n"), "stopped looking in subdirectories after 2 directories"); n != 1 {
		t.Errorf("the directory limit is reported %d times: %q", n, notes)
	}

	sc = newSubContext(ws, nil, contentSet{}, nil)
	sc.maxTotal = maxContextFile + 150
	got = call(sc, ws, "ls", "big") + call(sc, ws, "ls", "a") + call(sc, ws, "ls", "b")
	if !strings.Contains(got, "[AGENTS.md cut at 64 KiB]") {
		t.Error("a large file is not cut")
	}
	if !strings.Contains(got, "a rules") || strings.Contains(got, "b rules") ||
		!strings.Contains(got, "[context file b/AGENTS.md not read: the context files of subdirectories passed") {
		t.Errorf("the total limit:\n%s", got[len(got)-600:])
	}
}

// A project context file linked out of the project is refused in the
// system prompt too; one linked inside is read.
func TestSystemPromptLinkedOut(t *testing.T) {
	outside, ws := t.TempDir(), t.TempDir()
	write(t, filepath.Join(outside, "id_rsa"), "PRIVATE KEY")
	os.Symlink(filepath.Join(outside, "id_rsa"), filepath.Join(ws, "AGENTS.md"))
	write(t, filepath.Join(ws, "docs", "rules.md"), "inside rules")
	os.Symlink(filepath.Join("docs", "rules.md"), filepath.Join(ws, "GEMINI.md"))
	got, notes := systemPrompt(promptParts{Root: ws})
	if strings.Contains(got, "PRIVATE KEY") || !strings.Contains(got, "inside rules") {
		t.Errorf("system prompt:\n%s", got)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], filepath.Join(ws, "AGENTS.md")+" refused: it is a symbolic link to "+filepath.Join(outside, "id_rsa")+", outside the project") {
		t.Errorf("notes %q", notes)
	}
}

// Gemini CLI's context.fileName adds names: the user's settings always,
// the workspace's once it is approved and Markdown names only.
func TestGeminiContextNames(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	write(t, filepath.Join(home, ".gemini", "settings.json"), `{
  // my names
  "context": {"fileName": ["CONTEXT.md", "AGENTS.md", "notes.txt"]}
}`)
	write(t, filepath.Join(ws, ".gemini", "settings.json"), `{"context": {"fileName": ["TEAM.md", ".env", "../x.md"]}}`)
	extra, probs := geminiContextNames(nil, home, ws, false)
	if !slices.Equal(extra, []string{"CONTEXT.md", "notes.txt"}) || len(probs) != 0 {
		t.Errorf("not approved: %q %q", extra, probs)
	}
	extra, probs = geminiContextNames(nil, home, ws, true)
	if !slices.Equal(extra, []string{"CONTEXT.md", "notes.txt", "TEAM.md"}) || len(probs) != 2 ||
		!strings.Contains(probs[0], `context.fileName ".env" left out: a workspace's settings may name Markdown (.md) files only`) ||
		!strings.Contains(probs[1], `"../x.md" left out`) {
		t.Errorf("approved: %q %q", extra, probs)
	}
	write(t, filepath.Join(home, ".gemini", "settings.json"), `{"contextFileName": "OLD.md"}`)
	if extra, _ := geminiContextNames([]string{"OLD.md"}, home, ws, false); len(extra) != 0 {
		t.Errorf("a name already configured is added again: %q", extra)
	}
	if got := userContextFiles([]string{"AGENTS.md"}, []string{"CONTEXT.md"}, home, func(string) string { return "" }); !slices.Equal(got, []string{filepath.Join(home, ".gemini", "CONTEXT.md")}) {
		t.Errorf("user files %q", got)
	}
}

// BenchmarkSubContext: a call eight directories deep in a tree whose
// levels each hold a .gitignore and a context file, looked at for the
// first time (every directory, every name, the ignore files) and again.
func BenchmarkSubContext(b *testing.B) {
	ws := b.TempDir()
	os.Mkdir(filepath.Join(ws, ".git"), 0o755)
	d := ws
	for i := range 8 {
		d = filepath.Join(d, "d"+string(rune('a'+i)))
		os.MkdirAll(d, 0o755)
		os.WriteFile(filepath.Join(d, ".gitignore"), []byte("*.log\nbuild/\n"), 0o644)
		os.WriteFile(filepath.Join(d, "AGENTS.md"), []byte("rules of "+d), 0o644)
	}
	inv := &tool.Call{Locs: []string{filepath.Join(d, "x.go")}}
	b.Run("first", func(b *testing.B) {
		for b.Loop() {
			sc := newSubContext(ws, nil, contentSet{}, nil)
			if sc.Add("read_file", inv, tool.Result{}) == "" {
				b.Fatal("nothing found")
			}
		}
	})
	b.Run("again", func(b *testing.B) {
		sc := newSubContext(ws, nil, contentSet{}, nil)
		sc.Add("read_file", inv, tool.Result{})
		for b.Loop() {
			if sc.Add("read_file", inv, tool.Result{}) != "" {
				b.Fatal("given twice")
			}
		}
	})
}

// A workspace opened through a symbolic link (macOS's /tmp) finds a
// subdirectory's files whether a path comes through the link or through
// the real location.
func TestSubContextLinkedRoot(t *testing.T) {
	real, dir := t.TempDir(), t.TempDir()
	link := filepath.Join(dir, "ws")
	os.Symlink(real, link)
	write(t, filepath.Join(real, "a", "AGENTS.md"), "a rules")
	write(t, filepath.Join(real, "b", "AGENTS.md"), "b rules")
	sc := newSubContext(link, nil, contentSet{}, nil)
	got := call(sc, link, "read_file", "a/x.go") + call(sc, real, "read_file", "b/x.go")
	if !strings.Contains(got, "Context from a/AGENTS.md") || !strings.Contains(got, "Context from b/AGENTS.md") {
		t.Errorf("through the link and the real path:\n%s", got)
	}
}
