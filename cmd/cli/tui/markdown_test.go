package tui

import (
	"strings"
	"testing"
)

func TestMarkdownCommitsAtParagraphs(t *testing.T) {
	md := NewMarkdown(80, "notty")
	md.Append("First para")
	if md.done != 0 {
		t.Fatalf("committed %d bytes before a boundary", md.done)
	}
	md.Append("graph.\n\nSecond")
	if got := md.Text()[:md.done]; got != "First paragraph.\n\n" {
		t.Fatalf("committed %q", got)
	}
	v := md.View()
	if !strings.Contains(v, "First paragraph.") || !strings.Contains(v, "Second") {
		t.Fatalf("view %q", v)
	}
}

func TestMarkdownDoesNotSplitFences(t *testing.T) {
	md := NewMarkdown(80, "notty")
	md.Append("Intro.\n\n```go\nfunc a() {}\n\nfunc b() {}\n")
	if got := md.Text()[:md.done]; got != "Intro.\n\n" {
		t.Fatalf("committed inside a fence: %q", got)
	}
	md.Append("```\n\nAfter.")
	if !strings.HasSuffix(md.Text()[:md.done], "```\n\n") {
		t.Fatalf("fence not committed: %q", md.Text()[:md.done])
	}
	md.Finish()
	v := md.View()
	for _, w := range []string{"Intro.", "func a() {}", "func b() {}", "After."} {
		if !strings.Contains(v, w) {
			t.Fatalf("final view lacks %q:\n%s", w, v)
		}
	}
}

func TestMarkdownRendersWithGlamour(t *testing.T) {
	md := NewMarkdown(80, "notty")
	md.Append("# Title\n\n| a | b |\n|---|---|\n| 1 | 2 |\n")
	md.Finish()
	v := md.View()
	if strings.Contains(v, "|---|") || !strings.Contains(v, "Title") {
		t.Fatalf("not rendered as markdown:\n%s", v)
	}
}

// Code blocks are highlighted and HTML is stripped; both go through the
// patched copies in internal/fork/ (lexers and styles load on first use,
// HTML is stripped without bluemonday).
func TestMarkdownHighlightsCodeAndStripsHTML(t *testing.T) {
	md := NewMarkdown(80, "dark")
	md.Append("<div>kept <b>text</b><script>dropped()</script></div>\n\n```go\nfunc main() { return }\n```\n\n```lisp\n(defun f (x) (car x))\n```\n")
	md.Finish()
	v := md.View()
	for _, w := range []string{"kept", "text", "func", "main", "defun"} {
		if !strings.Contains(v, w) {
			t.Errorf("view lacks %q:\n%q", w, v)
		}
	}
	for _, w := range []string{"<b>", "dropped", "<div>"} {
		if strings.Contains(v, w) {
			t.Errorf("view has %q:\n%q", w, v)
		}
	}
	// The keyword and the function name get different colours.
	kw := strings.Index(v, "func")
	name := strings.Index(v, "main")
	if kw < 0 || name < kw || !strings.Contains(v[kw:name], "\x1b[") {
		t.Errorf("code block not highlighted:\n%q", v)
	}
}
