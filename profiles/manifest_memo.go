package profiles

import (
	"encoding/json"
	"slices"
	"sync"

	"github.com/ollm/ollm/schema"
)

// manifestMemo remembers for the process what each manifest validated
// to, keyed by its file name, format and bytes: `ollm profile apply`
// resolves the profile up to four times, `ollm acp` and /reload again
// after every change, and the manifests are mostly the same each time. A
// hit costs a JSON round trip instead of a CUE evaluation. The schema is
// part of the binary, so an entry never goes stale.
var manifestMemo = memo{max: 512}

// memoMaxBytes is the largest manifest manifestMemo keeps (its key holds
// the bytes); a larger one is validated each time.
const memoMaxBytes = 256 << 10

type memoEntry struct {
	json  []byte // the decoded manifest as JSON; nil when it is invalid
	diags []Diagnostic
}

type memo struct {
	mu      sync.Mutex
	max     int
	entries map[string]memoEntry
}

func memoKey(file string, data []byte, format string) string {
	return format + "\x00" + file + "\x00" + string(data)
}

func (m *memo) get(key string) (memoEntry, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.entries[key]
	return e, ok
}

// put stores an entry; a full memo starts again empty.
func (m *memo) put(key string, e memoEntry) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.entries == nil || len(m.entries) >= m.max {
		m.entries = map[string]memoEntry{}
	}
	m.entries[key] = e
}

func (m *memo) reset() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.entries = nil
}

// memoizedManifest is what the manifest validated to earlier in this
// process, if it was validated: decoded afresh, so that no caller shares
// its maps and slices with another.
func memoizedManifest(file string, data []byte, format string) (schema.Manifest, []Diagnostic, bool) {
	e, ok := manifestMemo.get(memoKey(file, data, format))
	if !ok {
		return schema.Manifest{}, nil, false
	}
	diags := slices.Clone(e.diags)
	var m schema.Manifest
	if e.json != nil {
		if err := json.Unmarshal(e.json, &m); err != nil { // encoded by us: cannot happen
			return schema.Manifest{}, nil, false
		}
	}
	return m, diags, true
}
