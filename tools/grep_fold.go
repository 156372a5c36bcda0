package tools

import "bytes"

// foldFinder finds an ASCII literal case-insensitively without lower-casing
// the haystack: it jumps with bytes.IndexByte to the literal's rarest byte
// (both cases of it), then compares the literal around it. Copying and
// lower-casing every file cost more than the search itself.
type foldFinder struct {
	lit    []byte // lower-cased
	anchor int    // index in lit of the byte to jump to
	lo, up byte   // that byte in both cases
}

func newFoldFinder(lit []byte) *foldFinder {
	f := &foldFinder{lit: lit}
	best := 1 << 30
	for i, c := range lit {
		if r := byteRank(c); r < best {
			best, f.anchor = r, i
		}
	}
	f.lo, f.up = lowerTable[lit[f.anchor]], upperASCII(lit[f.anchor])
	return f
}

// byteRank orders bytes by how often they occur in source code, rarest
// first: punctuation and digits, then upper-case-able letters by English
// frequency, then space and tab.
func byteRank(c byte) int {
	const common = "etaoinsrhldcumfpgwybvkxjqz" // most to least frequent
	switch {
	case c == ' ' || c == '\t':
		return 100
	case c >= 'a' && c <= 'z':
		return 70 - bytes.IndexByte([]byte(common), c)
	}
	return 10
}

func upperASCII(c byte) byte {
	if c >= 'a' && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c
}

// index returns the offset of the first case-insensitive match of the
// literal in hay, or -1.
func (f *foldFinder) index(hay []byte) int {
	for pos := 0; ; {
		a := f.nextAnchor(hay, pos+f.anchor)
		if a < 0 {
			return -1
		}
		start := a - f.anchor
		if start+len(f.lit) <= len(hay) && equalFoldASCII(hay[start:start+len(f.lit)], f.lit) {
			return start
		}
		pos = start + 1
	}
}

// nextAnchor finds the next byte equal to lo or up at or after from.
func (f *foldFinder) nextAnchor(hay []byte, from int) int {
	if from >= len(hay) {
		return -1
	}
	h := hay[from:]
	i := bytes.IndexByte(h, f.lo)
	if f.up != f.lo {
		limit := h
		if i >= 0 {
			limit = h[:i]
		}
		if j := bytes.IndexByte(limit, f.up); j >= 0 {
			i = j
		}
	}
	if i < 0 {
		return -1
	}
	return from + i
}

// equalFoldASCII compares b with the lower-case literal lit.
func equalFoldASCII(b, lit []byte) bool {
	for i, c := range lit {
		if lowerTable[b[i]] != c {
			return false
		}
	}
	return true
}
