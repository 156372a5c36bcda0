package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/ollm/ollm/store"
)

// The protocol cache remembers, per server, the protocol revision it
// answered with, so a server known to speak the initialize handshake
// (every revision up to 2025-11-25) is not probed with server/discover
// again: that probe is a whole round trip to learn nothing new. A server
// that spoke 2026-07-28 is probed as before, since server/discover is its
// handshake. The key is a hash of what identifies the server (transport,
// command, arguments and directory, or URL), so a new package version in
// the arguments, as the lock pins it, is a new server.
type protocolCache struct {
	path string

	once    sync.Once
	mu      sync.Mutex
	entries map[string]protocolEntry
}

type protocolEntry struct {
	Server   string    `json:"server"`
	Protocol string    `json:"protocol"`
	Seen     time.Time `json:"seen"`
	// IgnoresEOF: the server did not exit when its stdin closed (nil:
	// not known yet), so the next stop sends SIGTERM at once.
	IgnoresEOF *bool `json:"ignoresEOF,omitempty"`
}

type protocolFile struct {
	Servers map[string]protocolEntry `json:"servers"`
}

func newProtocolCache(path string) *protocolCache {
	if path == "" {
		return nil
	}
	return &protocolCache{path: path}
}

func (p *protocolCache) load() {
	p.once.Do(func() {
		var f protocolFile
		_, _ = store.ReadJSON(p.path, &f) // a broken cache only means probing again
		p.entries = f.Servers
		if p.entries == nil {
			p.entries = map[string]protocolEntry{}
		}
	})
}

// legacy returns the remembered protocol of a server that speaks the
// initialize handshake, "" when it is not known to.
func (p *protocolCache) legacy(key string) string {
	if p == nil {
		return ""
	}
	p.load()
	p.mu.Lock()
	defer p.mu.Unlock()
	v := p.entries[key].Protocol
	if v == "" || mcp.IsModernProtocol(v) || !mcp.IsValidProtocolVersion(v) {
		return ""
	}
	return v
}

// remember records the protocol a server answered with; nothing is
// written when it is what the cache already holds. version "" forgets.
func (p *protocolCache) remember(key, server, version string) {
	if p == nil {
		return
	}
	p.load()
	p.mu.Lock()
	old, had := p.entries[key]
	if (version == "" && !had) || (had && old.Protocol == version) {
		p.mu.Unlock()
		return
	}
	if version == "" {
		delete(p.entries, key)
	} else {
		p.entries[key] = protocolEntry{Server: server, Protocol: version, Seen: time.Now().UTC()}
	}
	p.mu.Unlock()
	_ = store.UpdateJSON(p.path, 0o644, func(f *protocolFile) error {
		if f.Servers == nil {
			f.Servers = map[string]protocolEntry{}
		}
		if version == "" {
			delete(f.Servers, key)
		} else {
			f.Servers[key] = protocolEntry{Server: server, Protocol: version, Seen: time.Now().UTC()}
		}
		return nil
	})
}

// ignoresEOF says whether the server is known, and known to ignore the
// end of its stdin.
func (p *protocolCache) ignoresEOF(key string) (known, ignores bool) {
	if p == nil {
		return false, false
	}
	p.load()
	p.mu.Lock()
	defer p.mu.Unlock()
	e, ok := p.entries[key]
	if !ok || e.IgnoresEOF == nil {
		return false, false
	}
	return true, *e.IgnoresEOF
}

// rememberEOF records how the server took the end of its stdin; nothing
// is written when that is already known, or the server has no entry (it
// never finished a handshake).
func (p *protocolCache) rememberEOF(key, server string, ignores bool) {
	if p == nil {
		return
	}
	p.load()
	p.mu.Lock()
	e, ok := p.entries[key]
	if !ok || (e.IgnoresEOF != nil && *e.IgnoresEOF == ignores) {
		p.mu.Unlock()
		return
	}
	e.IgnoresEOF = &ignores
	p.entries[key] = e
	p.mu.Unlock()
	_ = store.UpdateJSON(p.path, 0o644, func(f *protocolFile) error {
		if fe, ok := f.Servers[key]; ok {
			fe.IgnoresEOF = &ignores
			f.Servers[key] = fe
		}
		return nil
	})
}

// protocolKey identifies a server for the protocol cache.
func protocolKey(spec Spec, cfg Expanded) string {
	parts := []string{spec.Transport()}
	if spec.Transport() == TransportStdio {
		dir := spec.Config.Cwd
		if dir == "" {
			dir = spec.Dir
		}
		parts = append(append(parts, cfg.Command, dir), cfg.Args...)
	} else {
		parts = append(parts, cfg.URL)
	}
	sum := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(sum[:12])
}
