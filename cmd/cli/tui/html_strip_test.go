package tui

import (
	"testing"

	"github.com/microcosm-cc/bluemonday"
	"github.com/ollm/ollm/internal/fork/glamour/ansi"
)

// glamour strips the HTML in a model's markdown with ansi.StripHTML
// (internal/fork/glamour) instead of bluemonday's StrictPolicy, whose package
// initialisation every ollm command paid for. These check that both give
// the same text. bluemonday is linked into this test only.

var htmlSamples = []string{
	"", "   ", "plain text", "a < b && c > d", "<b>bold</b> and <i>it</i>",
	"<div class=\"x\">block</div>\n<p>para</p>", "<br/>line<br>break",
	"<!-- comment -->after", "<!DOCTYPE html><html><body>x</body></html>",
	"<script>alert(1)</script>shown", "<style>p{color:red}</style>shown",
	"<SCRIPT>x</SCRIPT>y", "<iframe src=x>inside</iframe>outside",
	"</iframe>stray<iframe>in</iframe>after", "<title>t</title><noscript>n</noscript>body",
	"<object><object>a</object>b</object>c", "<style><b>x</b></style>y",
	"<a href=\"https://example.com?q=1&r=2\">link</a>", "&amp; &lt;tag&gt; &#39; &quot;",
	"<img src=x onerror=alert(1)>", "<details><summary>s</summary>d</details>",
	"unclosed <b>tag", "<<double>>", "<p>caf\u00e9 \u2603</p>", "<sCrIpT>x</ScRiPt>z",
	"<\u00e9l\u00e9ment>x</\u00e9l\u00e9ment>", "\r\n<p>\r</p>", "<textarea><b>t</b></textarea>",
	"<svg><style>s</style></svg>t", "<math><title>m</title></math>u", "<xmp><b>x</b></xmp>",
}

func TestStripHTMLIsBluemondayStrict(t *testing.T) {
	p := bluemonday.StrictPolicy()
	for _, s := range htmlSamples {
		if got, want := ansi.StripHTML(s), p.Sanitize(s); got != want {
			t.Errorf("StripHTML(%q) = %q, bluemonday gives %q", s, got, want)
		}
	}
}

func FuzzStripHTML(f *testing.F) {
	for _, s := range htmlSamples {
		f.Add(s)
	}
	p := bluemonday.StrictPolicy()
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := ansi.StripHTML(s), p.Sanitize(s); got != want {
			t.Errorf("StripHTML(%q) = %q, bluemonday gives %q", s, got, want)
		}
	})
}
