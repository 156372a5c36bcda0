package store

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// verifyRecord is what the cache keeps for one entry.
type verifyRecord struct {
	Hash  string
	MAC   string   // hex HMAC-SHA256(key, entry, hash, fingerprint)
	Paths []string // the tree's nodes in walk order: stat'ed without reading directories
}

const verifyCacheVersion = 1

// verifyCacheHeader opens the cache file. The format is plain text, read
// at every start without a JSON decoder (it is most of the cache's cost):
//
//	ollm store verification cache 1
//	<entry> <hash> <mac> <number of paths>
//	<path>
//	...
//
// Entry names, h1 hashes and hex MACs have no spaces; paths have no
// newline (such a name never verifies, so never reaches the cache).
var verifyCacheHeader = fmt.Sprintf("ollm store verification cache %d", verifyCacheVersion)

// parseCache reads the cache; a malformed record ends it (what was read so
// far is kept, the rest re-hashes).
func parseCache(data []byte) map[string]verifyRecord {
	lines := strings.Split(string(data), "\n")
	out := map[string]verifyRecord{}
	if len(lines) == 0 || lines[0] != verifyCacheHeader {
		return out
	}
	for i := 1; i < len(lines); {
		f := strings.Fields(lines[i])
		if len(f) != 4 {
			break
		}
		n, err := strconv.Atoi(f[3])
		if err != nil || n < 0 || i+1+n > len(lines) {
			break
		}
		out[f[0]] = verifyRecord{Hash: f[1], MAC: f[2], Paths: lines[i+1 : i+1+n : i+1+n]}
		i += 1 + n
	}
	return out
}

// formatCache writes records sorted by entry.
func formatCache(recs map[string]verifyRecord) []byte {
	entries := make([]string, 0, len(recs))
	for k := range recs {
		entries = append(entries, k)
	}
	sort.Strings(entries)
	var b bytes.Buffer
	b.WriteString(verifyCacheHeader + "\n")
	for _, k := range entries {
		r := recs[k]
		fmt.Fprintf(&b, "%s %s %s %d\n", k, r.Hash, r.MAC, len(r.Paths))
		for _, p := range r.Paths {
			b.WriteString(p + "\n")
		}
	}
	return b.Bytes()
}
