package tool

import (
	"strings"
	"testing"
)

func TestTruncateLines(t *testing.T) {
	tests := []struct {
		in      string
		max     int
		want    string
		dropped int
	}{
		{"a\nb\nc\n", 3, "a\nb\nc\n", 0},    // exactly at the limit
		{"a\nb\nc", 3, "a\nb\nc", 0},        // at the limit, no trailing newline
		{"a\nb\nc\nd\n", 3, "a\nb\nc\n", 1}, // one over
		{"a\nb\nc\nd", 3, "a\nb\nc\n", 1},   // one over, no trailing newline
		{"a\nb\nc\nd\ne\n", 2, "a\nb\n", 3},
		{"a\n\n\n", 1, "a\n", 2}, // empty lines count
		{"abc", 1, "abc", 0},
		{"", 1, "", 0},
		{"a\nb\n", 0, "a\nb\n", 0}, // 0 = no limit
	}
	for _, tt := range tests {
		got, dropped := TruncateLines(tt.in, tt.max)
		if got != tt.want || dropped != tt.dropped {
			t.Errorf("TruncateLines(%q, %d) = %q, %d; want %q, %d", tt.in, tt.max, got, dropped, tt.want, tt.dropped)
		}
	}
}

func TestTruncateChars(t *testing.T) {
	tests := []struct {
		in      string
		max     int
		want    string
		dropped int
	}{
		{"abcde", 5, "abcde", 0},
		{"abcdef", 5, "abcde", 1},
		{"abcd", 5, "abcd", 0},
		{"héllo wörld", 5, "héllo", 6}, // runes, not bytes
		{"日本語", 3, "日本語", 0},           // 9 bytes, 3 runes: at the limit
		{"日本語x", 3, "日本語", 1},
		{"abc", 0, "abc", 0},
	}
	for _, tt := range tests {
		got, dropped := TruncateChars(tt.in, tt.max)
		if got != tt.want || dropped != tt.dropped {
			t.Errorf("TruncateChars(%q, %d) = %q, %d; want %q, %d", tt.in, tt.max, got, dropped, tt.want, tt.dropped)
		}
	}
}

func TestTruncateIndicator(t *testing.T) {
	tests := []struct {
		in   string
		l    Limits
		want string
	}{
		{"a\nb\n", Limits{MaxLines: 2, MaxChars: 4}, "a\nb\n"},
		{"a\nb\nc\n", Limits{MaxLines: 2}, "a\nb\n[... output truncated: 1 line omitted ...]"},
		{"a\nb\nc\nd", Limits{MaxLines: 1}, "a\n[... output truncated: 3 lines omitted ...]"},
		{"abcdef", Limits{MaxChars: 4}, "abcd\n[... output truncated: 2 characters omitted ...]"},
		{"abcdefgh\nxyz\n", Limits{MaxLines: 1, MaxChars: 3}, "abc\n[... output truncated: 1 line and 6 characters omitted ...]"},
	}
	for _, tt := range tests {
		got, _ := Truncate(tt.in, tt.l)
		if got != tt.want {
			t.Errorf("Truncate(%q, %+v) =\n%q\nwant\n%q", tt.in, tt.l, got, tt.want)
		}
	}
}

func TestTruncateLargeBoundary(t *testing.T) {
	s := strings.Repeat("x\n", 2000)
	if got, tr := Truncate(s, DefaultLimits); got != s || tr.Cut() {
		t.Fatalf("2000 lines at a 2000-line limit were cut: %+v", tr)
	}
	got, tr := Truncate(s+"y\n", DefaultLimits)
	if tr.Lines != 1 || !strings.HasSuffix(got, "1 line omitted ...]") {
		t.Fatalf("2001 lines: got truncation %+v, tail %q", tr, got[len(got)-40:])
	}
}

// TruncateMore counts the part of an output that was never kept: its
// characters when only the character limit cut, its lines when the line
// limit did.
func TestTruncateMore(t *testing.T) {
	tests := []struct {
		in   string
		l    Limits
		more Truncation
		want string
		cut  Truncation
	}{
		{"abcdef", Limits{MaxChars: 4}, Truncation{Chars: 10}, "abcd\n[... output truncated: 12 characters omitted ...]", Truncation{Chars: 12}},
		{"abc", Limits{MaxChars: 4}, Truncation{Chars: 10, Lines: 2}, "abc\n[... output truncated: 10 characters omitted ...]", Truncation{Chars: 10}},
		{"a\nb\nc\n", Limits{MaxLines: 2}, Truncation{Chars: 10, Lines: 3}, "a\nb\n[... output truncated: 4 lines omitted ...]", Truncation{Lines: 4}},
		{"abc", Limits{MaxChars: 4}, Truncation{}, "abc", Truncation{}},
	}
	for _, tt := range tests {
		got, cut := TruncateMore(tt.in, tt.l, tt.more)
		if got != tt.want || cut != tt.cut {
			t.Errorf("TruncateMore(%q, %+v, %+v) = %q, %+v; want %q, %+v", tt.in, tt.l, tt.more, got, cut, tt.want, tt.cut)
		}
	}
}
