package tools

import (
	"strings"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"

	"github.com/ollm/ollm/internal/lazyre"
)

// htmlToText renders the readable text of an HTML document: scripts,
// styles and navigation chrome dropped, block elements on their own lines,
// headings marked with #, list items with -, links followed by their URL.
// With a selector only the matching elements are rendered; found is false
// when nothing matched.
func htmlToText(doc *goquery.Document, selector string) (text string, found bool) {
	doc.Find("script, style, noscript, template, svg, iframe, head, nav, footer, form, button").Remove()
	sel := doc.Find("body")
	if selector != "" {
		sel = doc.Find(selector)
	} else if sel.Length() == 0 {
		sel = doc.Selection
	}
	if sel.Length() == 0 {
		return "", false
	}
	var r textRenderer
	sel.Each(func(i int, s *goquery.Selection) {
		for _, n := range s.Nodes {
			r.node(n)
		}
		r.block()
	})
	return r.String(), true
}

type textRenderer struct {
	b   strings.Builder
	pre int
}

var blockTags = map[string]bool{
	"p": true, "div": true, "section": true, "article": true, "main": true, "header": true,
	"ul": true, "ol": true, "li": true, "table": true, "tr": true, "blockquote": true,
	"h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true, "pre": true,
	"dl": true, "dt": true, "dd": true, "hr": true, "br": true, "figure": true, "aside": true,
}

var spaces = lazyre.New(`[ \t\r\n\f]+`)

func (r *textRenderer) node(n *html.Node) {
	switch n.Type {
	case html.TextNode:
		r.text(n.Data)
		return
	case html.ElementNode, html.DocumentNode:
	default:
		return
	}
	tag := n.Data
	if blockTags[tag] {
		r.block()
	}
	r.open(tag)
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		r.node(c)
	}
	r.close(n)
	if blockTags[tag] {
		r.block()
	}
}

func (r *textRenderer) open(tag string) {
	switch tag {
	case "h1", "h2", "h3", "h4", "h5", "h6":
		r.b.WriteString(strings.Repeat("#", int(tag[1]-'0')) + " ")
	case "li":
		r.b.WriteString("- ")
	case "pre":
		r.pre++
	case "td", "th":
		r.b.WriteString(" | ")
	}
}

func (r *textRenderer) close(n *html.Node) {
	switch n.Data {
	case "pre":
		r.pre--
	case "a":
		for _, a := range n.Attr {
			if a.Key == "href" && strings.HasPrefix(a.Val, "http") {
				r.b.WriteString(" (" + a.Val + ")")
			}
		}
	}
}

func (r *textRenderer) text(s string) {
	if r.pre > 0 {
		r.b.WriteString(s)
		return
	}
	s = spaces.ReplaceAllString(s, " ")
	if s == " " && (r.b.Len() == 0 || strings.HasSuffix(r.b.String(), "\n") || strings.HasSuffix(r.b.String(), " ")) {
		return
	}
	r.b.WriteString(s)
}

// block ends the current line and leaves one blank line at most.
func (r *textRenderer) block() {
	s := r.b.String()
	trimmed := strings.TrimRight(s, " ")
	if len(trimmed) != len(s) {
		r.b.Reset()
		r.b.WriteString(trimmed)
		s = trimmed
	}
	if s == "" || strings.HasSuffix(s, "\n\n") {
		return
	}
	if strings.HasSuffix(s, "\n") {
		r.b.WriteString("\n")
		return
	}
	r.b.WriteString("\n\n")
}

func (r *textRenderer) String() string {
	lines := strings.Split(r.b.String(), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	out := strings.Join(lines, "\n")
	for strings.Contains(out, "\n\n\n") {
		out = strings.ReplaceAll(out, "\n\n\n", "\n\n")
	}
	return strings.TrimSpace(out)
}
