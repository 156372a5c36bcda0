// Package shellword reads words of a parsed shell command line
// (mvdan.cc/sh/v3/syntax).
package shellword

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Literal is a word's value after quote removal when it is made of plain
// text and quotes only; false for one with expansions ("$f", $(cmd)).
func Literal(w *syntax.Word) (string, bool) {
	var b strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				lit, ok := q.(*syntax.Lit)
				if !ok {
					return "", false
				}
				b.WriteString(lit.Value)
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}
