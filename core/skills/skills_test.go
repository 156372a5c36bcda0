package skills

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ollm/ollm/schema"
)

func TestRender(t *testing.T) {
	cases := []struct {
		tmpl    string
		vals    map[string]string
		want    string
		missing []string
	}{
		{"Review {file} for {focus}.", map[string]string{"file": "a.go", "focus": "bugs"}, "Review a.go for bugs.", nil},
		{"{a}{a}", map[string]string{"a": "x"}, "xx", nil},
		{`JSON {"k": 1} stays`, nil, `JSON {"k": 1} stays`, nil},
		{"literal {{file}}", nil, "literal {file}", nil},
		{"{x} and {y} and {x}", map[string]string{}, "", []string{"x", "y"}},
		{"value {v} with braces", map[string]string{"v": "{w}"}, "value {w} with braces", nil},
	}
	for _, c := range cases {
		got, err := Render(c.tmpl, c.vals)
		if c.missing != nil {
			var me *MissingError
			if !errors.As(err, &me) || !reflect.DeepEqual(me.Names, c.missing) {
				t.Errorf("Render(%q) err = %v, want missing %v", c.tmpl, err, c.missing)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("Render(%q) = %q, %v; want %q", c.tmpl, got, err, c.want)
		}
	}
	_, err := Render("{a} {b}", map[string]string{"a": "1"})
	if err == nil || !strings.Contains(err.Error(), "{b}") || !strings.Contains(err.Error(), "b=...") {
		t.Fatalf("missing error = %v, want it to name {b} and how to pass it", err)
	}
}

// Property 26: two extensions with a skill of the same name are both
// reachable as extension:skill; a unique name stays bare.
func TestNamespaceCollision(t *testing.T) {
	r := New()
	r.AddExtension("alpha", []schema.Skill{{Name: "review", Description: "a", Prompt: "alpha {x}"}, {Name: "only", Description: "o", Prompt: "o"}})
	r.AddExtension("beta", []schema.Skill{{Name: "review", Description: "b", Prompt: "beta {x}"}})
	var names []string
	for _, e := range r.List() {
		names = append(names, e.Name)
	}
	if want := []string{"alpha:review", "beta:review", "only"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("names = %v, want %v", names, want)
	}
	for _, n := range []string{"alpha:review", "beta:review"} {
		out, err := r.Render(n, map[string]string{"x": "1"})
		if err != nil || !strings.HasPrefix(out, strings.Split(n, ":")[0]) {
			t.Errorf("Render(%s) = %q, %v", n, out, err)
		}
	}
	_, err := r.Get("review")
	var nf *NotFoundError
	if !errors.As(err, &nf) || len(nf.Candidates) != 2 {
		t.Fatalf("Get(review) err = %v, want ambiguous with 2 candidates", err)
	}
	// A profile skill of the same name keeps the bare name.
	r.AddProfile([]schema.Skill{{Name: "review", Description: "mine", Prompt: "mine"}})
	s, err := r.Get("review")
	if err != nil || s.Source != SourceProfile {
		t.Fatalf("Get(review) = %+v, %v; want the profile skill", s, err)
	}
	if n := r.RemoveExtension("alpha"); n != 2 {
		t.Fatalf("RemoveExtension = %d, want 2", n)
	}
	if _, err := r.Get("alpha:review"); err == nil {
		t.Fatal("alpha:review still there after RemoveExtension")
	}
	if err := r.Add(Skill{Name: "a:b"}); err == nil {
		t.Fatal("a name with ':' was accepted")
	}
}

func TestFolderSkills(t *testing.T) {
	user, ws := t.TempDir(), t.TempDir()
	write(t, filepath.Join(user, "commit", "SKILL.md"), "---\nname: commit\ndescription: \"Write a commit message\"\narguments: [change]\n---\nSummarise {change}.\n")
	write(t, filepath.Join(user, "shared", "SKILL.md"), "---\nname: shared\ndescription: user copy\n---\nuser\n")
	write(t, filepath.Join(ws, "shared", "SKILL.md"), "---\nname: shared\ndescription: ws copy\n---\nworkspace\n")
	write(t, filepath.Join(ws, "bad", "SKILL.md"), "no front matter\n")
	write(t, filepath.Join(ws, "nodesc", "SKILL.md"), "---\nname: nodesc\n---\nbody\n")
	r, errs := Base([]schema.Skill{{Name: "p", Description: "d", Prompt: "x"}}, user, ws, filepath.Join(ws, "missing"))
	if len(errs) != 2 {
		t.Fatalf("errors = %v, want 2 (bad and nodesc)", errs)
	}
	for _, e := range errs {
		if !strings.Contains(e.Error(), "SKILL.md") {
			t.Errorf("error %v does not name the file", e)
		}
	}
	s, err := r.Get("shared")
	if err != nil || s.Prompt != "workspace" {
		t.Fatalf("shared = %+v, %v; want the workspace copy", s, err)
	}
	out, err := r.Render("commit", map[string]string{"change": "the parser"})
	if err != nil || out != "Summarise the parser." {
		t.Fatalf("Render(commit) = %q, %v", out, err)
	}
	if got := len(r.List()); got != 3 {
		t.Fatalf("%d skills, want 3", got)
	}
	ext, errs := LoadDir(user, "myext")
	if len(errs) != 0 || len(ext) != 2 || ext[0].Extension != "myext" || ext[0].Source != SourceExtension {
		t.Fatalf("LoadDir for an extension = %+v, %v", ext, errs)
	}
}

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}
