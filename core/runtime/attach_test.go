package runtime

import (
	"reflect"
	"testing"
)

func TestMentions(t *testing.T) {
	known := func(s string) bool { return s == "ev" || s == "fs.a" || s == "ext:files" }
	for _, c := range []struct {
		prompt string
		want   []Mention
	}{
		{"@ev:demo://r/1", []Mention{{"ev", "demo://r/1"}}},
		{"see @ev:demo://r/1.", []Mention{{"ev", "demo://r/1"}}},
		{"(@ev:file:///a/b.md), @fs.a:x", []Mention{{"ev", "file:///a/b.md"}, {"fs.a", "x"}}},
		{"twice @ev:a and @ev:a", []Mention{{"ev", "a"}}},
		{"mail me@ev:25 or @other:x or @ev: alone", nil},
		{"no@ev:x glued", nil},
		{"line\n@ev:q?x=1", []Mention{{"ev", "q?x=1"}}},
		{"an extension's @ext:files:file:///a.md", []Mention{{"ext:files", "file:///a.md"}}},
		{"@ext:other:x is no server", nil},
	} {
		if got := Mentions(c.prompt, known); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Mentions(%q) = %v, want %v", c.prompt, got, c.want)
		}
	}
}
