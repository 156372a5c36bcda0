package ansi

import (
	"html"
	"strings"
)

// RenderContext holds the current rendering options and state.
type RenderContext struct {
	options Options

	blockStack *BlockStack
	table      *TableElement
}

// NewRenderContext returns a new RenderContext.
func NewRenderContext(options Options) RenderContext {
	return RenderContext{
		options:    options,
		blockStack: &BlockStack{},
		table:      &TableElement{},
	}
}

// SanitizeHTML sanitizes HTML content.
//
// ollm patch: upstream strips with bluemonday.StrictPolicy(), whose package
// initialisation (bluemonday, its css package and gorilla/css compiling
// ~70 regular expressions) cost every process linking glamour ~1.5 ms;
// StripHTML does what that policy does.
func (ctx RenderContext) SanitizeHTML(s string, trimSpaces bool) string {
	s = StripHTML(s)
	if trimSpaces {
		s = strings.TrimSpace(s)
	}

	return html.UnescapeString(s)
}
