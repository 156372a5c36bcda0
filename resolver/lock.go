package resolver

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"

	"github.com/ollm/ollm/schema"
	"github.com/ollm/ollm/store"
)

// LockError is an ollm.lock that cannot be read.
type LockError struct {
	File string
	Err  error
}

func (e *LockError) Error() string {
	return fmt.Sprintf("%s: %v\n  fix: restore it from version control, or delete it and run `ollm profile lock`", e.File, e.Err)
}
func (e *LockError) Unwrap() error { return e.Err }

// NewLock returns an empty lock with its header.
func NewLock() *schema.Lock {
	return &schema.Lock{Comment: schema.LockHeader, Version: schema.LockVersion}
}

// ReadLock reads ollm.lock. A missing file returns (nil, nil).
func ReadLock(path string) (*schema.Lock, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, &LockError{File: path, Err: err}
	}
	var l schema.Lock
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&l); err != nil {
		return nil, &LockError{File: path, Err: fmt.Errorf("malformed: %v", err)}
	}
	if l.Version != schema.LockVersion {
		return nil, &LockError{File: path, Err: fmt.Errorf("lock version %d, this ollm reads version %d", l.Version, schema.LockVersion)}
	}
	if err := checkHashes(&l); err != nil {
		return nil, &LockError{File: path, Err: err}
	}
	return &l, nil
}

// checkHashes refuses a source entry whose hash uses an algorithm this
// ollm does not compute (only h1:). A malformed h1: value is left to the
// store, which treats it as an entry it does not hold.
func checkHashes(l *schema.Lock) error {
	for _, sec := range []struct {
		name    string
		entries []schema.LockedSource
	}{{"profiles", l.Profiles}, {"extensions", l.Extensions}} {
		for _, e := range sec.entries {
			if !strings.HasPrefix(e.Hash, "h1:") {
				return fmt.Errorf("%s: %s: unknown hash algorithm in %q (this ollm computes h1: hashes)", sec.name, e.Name, e.Hash)
			}
		}
	}
	return nil
}

// MarshalLock returns the canonical bytes of l: entries sorted, the
// header comment set, two-space indentation, a trailing newline. The same
// lock gives the same bytes on every machine.
func MarshalLock(l *schema.Lock) ([]byte, error) {
	c := CopyLock(l)
	c.Comment, c.Version = schema.LockHeader, schema.LockVersion
	SortLock(c)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(c); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// WriteLock writes l to path atomically (mode 0644) and returns its digest.
// An unchanged file is not rewritten.
func WriteLock(path string, l *schema.Lock) (string, error) {
	data, err := MarshalLock(l)
	if err != nil {
		return "", err
	}
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
		return digestBytes(data), nil
	}
	return digestBytes(data), store.WriteFile(path, data, store.PermShared)
}

// LockDigest is the sha256 of l's canonical bytes.
func LockDigest(l *schema.Lock) string {
	data, err := MarshalLock(l)
	if err != nil {
		return ""
	}
	return digestBytes(data)
}

func digestBytes(b []byte) string {
	s := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(s[:])
}

// CopyLock returns a deep copy of l (an empty lock for nil).
func CopyLock(l *schema.Lock) *schema.Lock {
	if l == nil {
		return NewLock()
	}
	c := *l
	c.Profiles = copySources(l.Profiles)
	c.Extensions = copySources(l.Extensions)
	c.Packages = append([]schema.LockedPackage(nil), l.Packages...)
	return &c
}

func copySources(list []schema.LockedSource) []schema.LockedSource {
	out := append([]schema.LockedSource(nil), list...)
	for i := range out {
		out[i].Permissions = out[i].Permissions.Clone()
	}
	return out
}

// SortLock orders every list of l: sources by name, packages by server
// then package.
func SortLock(l *schema.Lock) {
	for _, s := range [][]schema.LockedSource{l.Profiles, l.Extensions} {
		sort.Slice(s, func(i, j int) bool { return s[i].Name < s[j].Name })
	}
	sort.Slice(l.Packages, func(i, j int) bool {
		a, b := l.Packages[i], l.Packages[j]
		if a.Server != b.Server {
			return a.Server < b.Server
		}
		return a.Package < b.Package
	})
}

func findSource(list []schema.LockedSource, name string) *schema.LockedSource {
	for i := range list {
		if list[i].Name == name {
			return &list[i]
		}
	}
	return nil
}

func findPackage(list []schema.LockedPackage, server, runner, pkg string) *schema.LockedPackage {
	for i := range list {
		p := &list[i]
		if p.Server == server && p.Runner == runner && p.Package == pkg {
			return p
		}
	}
	return nil
}
