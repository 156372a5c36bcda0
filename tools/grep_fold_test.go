package tools

import (
	"bytes"
	"math/rand"
	"testing"
)

func TestFoldFinder(t *testing.T) {
	tests := []struct {
		hay, lit string
		want     int
	}{
		{"// Deprecated: use X", "deprecated:", 3},
		{"DEPRECATED: x", "deprecated:", 0},
		{"deprecated without colon, then Deprecated:", "deprecated:", 31},
		{"no match here", "deprecated:", -1},
		{"abc", "abcd", -1},
		{"xxAbCd", "abcd", 2},
		{"aaab", "aab", 1},
		{"a b a B", "a b", 0},
		{"tail: end", "end", 6},
		{"", "x", -1},
	}
	for _, tt := range tests {
		if got := newFoldFinder([]byte(tt.lit)).index([]byte(tt.hay)); got != tt.want {
			t.Errorf("index(%q, %q) = %d, want %d", tt.hay, tt.lit, got, tt.want)
		}
	}
}

// The finder agrees with bytes.Index over lower-cased copies on random
// text from a small alphabet (so matches and near misses are frequent).
func TestFoldFinderAgreesWithLowerCasedIndex(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	const alphabet = "aAbB:: \n"
	gen := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[rng.Intn(len(alphabet))]
		}
		return b
	}
	for i := 0; i < 20000; i++ {
		hay, lit := gen(rng.Intn(40)), bytes.ToLower(gen(1+rng.Intn(4)))
		want := bytes.Index(bytes.ToLower(hay), lit)
		if got := newFoldFinder(lit).index(hay); got != want {
			t.Fatalf("index(%q, %q) = %d, want %d", hay, lit, got, want)
		}
	}
}
