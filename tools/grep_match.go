package tools

import (
	"bytes"
	"regexp"
	"regexp/syntax"
	"unicode/utf8"
)

// matcher finds matching lines in a whole file at once. Running the regexp
// over the buffer (not line by line) and skipping files and lines that lack
// a literal every match must contain is what keeps grep near ripgrep.
type matcher struct {
	re      *regexp.Regexp
	literal []byte      // every match contains it (lower-cased when fold); may be empty
	fold    *foldFinder // set when literal is compared case-insensitively (ASCII)
}

func compileMatcher(pattern string, caseSensitive bool) (*matcher, error) {
	re, err := compile(pattern, caseSensitive)
	if err != nil {
		return nil, err
	}
	m := &matcher{re: re}
	if st, err := syntax.Parse(pattern, syntax.Perl); err == nil {
		m.literal = requiredLiteral(st.Simplify())
	}
	if !caseSensitive {
		if !isASCII(m.literal) {
			m.literal = nil
		}
		m.literal = bytes.ToLower(m.literal)
		if len(m.literal) > 0 {
			m.fold = newFoldFinder(m.literal)
		}
	}
	return m, nil
}

// requiredLiteral returns the longest literal that every match of re
// contains: the literal itself, or the longest literal of a concatenation.
func requiredLiteral(re *syntax.Regexp) []byte {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			return nil
		}
		return []byte(string(re.Rune))
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiteral(re.Sub[0])
	case syntax.OpConcat:
		var best []byte
		for _, sub := range re.Sub {
			if lit := requiredLiteral(sub); len(lit) > len(best) {
				best = lit
			}
		}
		return best
	}
	return nil
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// search calls emit for each matching line of data with its 1-based number.
func (m *matcher) search(data []byte, emit func(line int, text []byte)) {
	if len(m.literal) > 0 && m.indexLiteral(data) < 0 {
		return
	}
	lines := lineCounter{data: data}
	for pos := 0; pos < len(data); {
		start, end, ok := m.next(data, pos)
		if !ok {
			return
		}
		emit(lines.number(start), data[start:end])
		pos = end + 1
	}
}

// next finds the next matching line at or after pos and returns its
// bounds. With a literal, only lines holding it are tried, one at a time.
func (m *matcher) next(data []byte, pos int) (int, int, bool) {
	for pos < len(data) {
		if len(m.literal) == 0 {
			loc := m.re.FindIndex(data[pos:])
			if loc == nil {
				return 0, 0, false
			}
			at := pos + loc[0]
			return max(lineStart(data, at), pos), lineEnd(data, at), true
		}
		i := m.indexLiteral(data[pos:])
		if i < 0 {
			return 0, 0, false
		}
		start, end := max(lineStart(data, pos+i), pos), lineEnd(data, pos+i)
		if m.re.Match(data[start:end]) {
			return start, end, true
		}
		pos = end + 1
	}
	return 0, 0, false
}

// indexLiteral finds the required literal, case-insensitively when the
// pattern is.
func (m *matcher) indexLiteral(b []byte) int {
	if m.fold != nil {
		return m.fold.index(b)
	}
	return bytes.Index(b, m.literal)
}

func lineStart(data []byte, i int) int { return bytes.LastIndexByte(data[:i], '\n') + 1 }

func lineEnd(data []byte, i int) int {
	if j := bytes.IndexByte(data[i:], '\n'); j >= 0 {
		return i + j
	}
	return len(data)
}

// lineCounter turns offsets, asked for in increasing order, into line numbers.
type lineCounter struct {
	data    []byte
	counted int
	line    int
}

func (c *lineCounter) number(off int) int {
	c.line += bytes.Count(c.data[c.counted:off], []byte{'\n'})
	c.counted = off
	return c.line + 1
}

var lowerTable = func() (t [256]byte) {
	for i := range t {
		t[i] = byte(i)
		if i >= 'A' && i <= 'Z' {
			t[i] = byte(i) + 'a' - 'A'
		}
	}
	return t
}()
