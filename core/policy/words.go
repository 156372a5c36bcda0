package policy

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// wordValues converts shell words to their values.
func wordValues(src string, ws []*syntax.Word) []any {
	out := make([]any, len(ws))
	for i, w := range ws {
		out[i] = wordValue(src, w)
	}
	return out
}

// wordValue is the value a word has after quote removal, or unknown when
// the shell would expand it: parameters, command and arithmetic
// substitutions, globs, braces, a leading tilde.
func wordValue(src string, w *syntax.Word) any {
	var b strings.Builder
	for i, p := range w.Parts {
		if !appendPart(&b, p, i == 0) {
			return unknown{text: slice(src, w)}
		}
	}
	return b.String()
}

func appendPart(b *strings.Builder, p syntax.WordPart, first bool) bool {
	switch p := p.(type) {
	case *syntax.Lit:
		if litExpands(p.Value, first) {
			return false
		}
		b.WriteString(unescape(p.Value, false))
		return true
	case *syntax.SglQuoted:
		if p.Dollar && strings.ContainsRune(p.Value, '\\') {
			return false // $'\x72m': ANSI-C escapes are not decoded here
		}
		b.WriteString(p.Value)
		return true
	case *syntax.DblQuoted:
		for _, q := range p.Parts {
			lit, ok := q.(*syntax.Lit)
			if !ok {
				return false
			}
			b.WriteString(unescape(lit.Value, true))
		}
		return true
	}
	return false
}

// litExpands reports whether an unquoted literal would be expanded by the
// shell: a glob character, a brace expansion or a leading tilde that is
// not escaped.
func litExpands(s string, first bool) bool {
	if first && strings.HasPrefix(s, "~") {
		return true
	}
	brace := false
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '*', '?':
			return true
		case '[':
			if strings.IndexByte(s[i+1:], ']') >= 0 {
				return true
			}
		case '{':
			brace = true
		case ',':
			if brace {
				return true
			}
		case '.':
			if brace && i+1 < len(s) && s[i+1] == '.' {
				return true
			}
		}
	}
	return false
}

// unescape removes backslashes as the shell does: outside quotes a
// backslash quotes the next character; inside double quotes only before
// $ ` " \ and newline. An escaped newline is a line continuation.
func unescape(s string, dq bool) string {
	if !strings.ContainsRune(s, '\\') {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		next := s[i+1]
		if dq && !strings.ContainsRune("$`\"\\\n", rune(next)) {
			b.WriteByte(c)
			continue
		}
		i++
		if next != '\n' {
			b.WriteByte(next)
		}
	}
	return b.String()
}

// assignValue is an argument of export, declare, local and readonly.
func assignValue(src string, a *syntax.Assign) any {
	switch {
	case a.Naked && a.Name != nil:
		return a.Name.Value
	case a.Naked && a.Value != nil:
		return wordValue(src, a.Value)
	case a.Array != nil || a.Index != nil || a.Name == nil:
		return unknown{text: slice(src, a)}
	case a.Value == nil:
		return a.Name.Value + "="
	}
	v := wordValue(src, a.Value)
	if s, ok := v.(string); ok {
		return a.Name.Value + "=" + s
	}
	return unknown{text: slice(src, a)}
}
