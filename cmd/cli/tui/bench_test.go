package tui

import (
	"fmt"
	"strings"
	"testing"
)

// streamedAnswer is a markdown answer of about n tokens (a token is ~4
// bytes, as models stream them) split into deltas of one token each.
func streamedAnswer(n int) []string {
	var b strings.Builder
	for i := 0; b.Len() < n*4; i++ {
		switch i % 6 {
		case 0:
			fmt.Fprintf(&b, "## Section %d\n\n", i)
		case 3:
			b.WriteString("```go\nfunc f() error {\n\treturn nil\n}\n```\n\n")
		case 4:
			b.WriteString("- first point with `code`\n- second point, **bold**\n\n")
		default:
			b.WriteString("This paragraph explains a detail of the change in plain words, with a [link](x) and more text to wrap.\n\n")
		}
	}
	s := b.String()
	var out []string
	for i := 0; i < len(s); i += 4 {
		out = append(out, s[i:min(i+4, len(s))])
	}
	return out
}

// BenchmarkStream10kTokens renders a streamed 10,000-token answer the way
// the program does: each delta is one Update followed by one View.
var benchTokens = 10000

func BenchmarkStream10kTokens(b *testing.B) {
	deltas := streamedAnswer(benchTokens)
	f := newFake()
	b.ReportAllocs()
	var views int
	for b.Loop() {
		m := New(f, Options{Width: 120, Height: 40, Style: "dark"})
		for _, d := range deltas {
			m.Update(ContentDelta{d})
			views += len(m.View())
		}
		m.Update(AssistantDone{})
		views += len(m.View())
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(deltas)), "ns/delta")
	b.ReportMetric(float64(len(deltas)), "deltas")
	_ = views
}

func TestStreamedAnswerMatchesFinalRender(t *testing.T) {
	m, _ := newModel(t)
	for _, d := range streamedAnswer(2000) {
		m.Update(ContentDelta{d})
	}
	m.Update(AssistantDone{})
	v := plain(m)
	// The viewport shows the bottom; the end of the answer is there, fences rendered.
	if strings.Contains(v, "```") {
		t.Fatalf("a fence was left unrendered:\n%s", v)
	}
	mustContain(t, v, "This paragraph explains")
}
