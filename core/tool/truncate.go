package tool

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Limits bound the output a tool hands to the model. Zero means no limit.
type Limits struct {
	MaxChars int
	MaxLines int
}

// DefaultLimits keep one tool result well inside a small model's context.
var DefaultLimits = Limits{MaxChars: 30000, MaxLines: 2000}

// Truncation says what Truncate cut.
type Truncation struct {
	Lines int // whole lines removed by the line limit
	Chars int // characters removed by the character limit (after the line cut)
}

// Cut reports whether anything was removed.
func (t Truncation) Cut() bool { return t.Lines > 0 || t.Chars > 0 }

// Truncate applies the line limit, then the character limit, and appends an
// indicator saying how much was cut. Text within the limits comes back
// unchanged. Characters are runes, never split.
func Truncate(s string, l Limits) (string, Truncation) {
	var t Truncation
	s, t.Lines = TruncateLines(s, l.MaxLines)
	s, t.Chars = TruncateChars(s, l.MaxChars)
	if !t.Cut() {
		return s, t
	}
	ind := Indicator(t)
	if strings.HasSuffix(s, "\n") {
		ind = ind[1:]
	}
	return s + ind, t
}

// TruncateMore is Truncate for text that is only the start of an output
// whose rest was never kept (a capture buffer's limit): more counts that
// rest, its lines and characters, and the note counts it too. When the
// line limit cut the kept text, the rest's lines are lines omitted; else
// its characters are characters omitted.
func TruncateMore(s string, l Limits, more Truncation) (string, Truncation) {
	if !more.Cut() {
		return Truncate(s, l)
	}
	var t Truncation
	s, t.Lines = TruncateLines(s, l.MaxLines)
	s, t.Chars = TruncateChars(s, l.MaxChars)
	if t.Lines > 0 {
		t.Lines += more.Lines
	} else {
		t.Chars += more.Chars
	}
	ind := Indicator(t)
	if strings.HasSuffix(s, "\n") {
		ind = ind[1:]
	}
	return s + ind, t
}

// Indicator is the note appended to truncated output.
func Indicator(t Truncation) string {
	var parts []string
	if t.Lines > 0 {
		parts = append(parts, plural(t.Lines, "line"))
	}
	if t.Chars > 0 {
		parts = append(parts, plural(t.Chars, "character"))
	}
	return fmt.Sprintf("\n[... output truncated: %s omitted ...]", strings.Join(parts, " and "))
}

func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}

// TruncateLines keeps the first max lines of s and returns how many lines
// were dropped. A trailing newline does not start a new line.
func TruncateLines(s string, max int) (string, int) {
	if max <= 0 {
		return s, 0
	}
	idx, n := 0, 0
	for n < max {
		i := strings.IndexByte(s[idx:], '\n')
		if i < 0 {
			return s, 0
		}
		idx += i + 1
		n++
	}
	if idx == len(s) {
		return s, 0
	}
	rest := s[idx:]
	dropped := strings.Count(rest, "\n")
	if !strings.HasSuffix(rest, "\n") {
		dropped++
	}
	return s[:idx], dropped
}

// TruncateChars keeps the first max runes of s and returns how many runes
// were dropped.
func TruncateChars(s string, max int) (string, int) {
	if max <= 0 || len(s) <= max {
		return s, 0
	}
	n := 0
	for i := range s {
		if n == max {
			return s[:i], utf8.RuneCountInString(s[i:])
		}
		n++
	}
	return s, 0
}
