package mcp

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"golang.org/x/sys/unix"

	"github.com/ollm/ollm/store"
)

// The tool cache remembers, per server, the tools/list it answered, so
// `ollm mcp call` can call a tool right after the handshake instead of
// asking for the whole list first (server-everything builds 8.5 KB of
// JSON Schema for it: 5-60 ms of its CPU while the caller waits).
//
// An entry is keyed by what identifies the server - transport, command,
// arguments, directory and the environment it is given (not the parent's,
// which changes with every terminal), or URL and headers - and by the
// capabilities ollm offers, which decide some servers' lists. It is used
// only while the server calls itself by the same name and version in
// initialize and speaks the same protocol revision; a
// notifications/tools/list_changed after the server's start-up drops it.
//
// An entry is a hint and never an authority: it holds nothing a server
// could not send itself, it is only read by a Manager with
// Options.UseToolCache (`ollm mcp call`), and the server validates every
// call as always. Whatever the entry gets wrong is found the moment it
// matters: a tool missing from it, arguments it refuses, or a call that
// fails make the caller list the server's tools again (Manager.Relist),
// which corrects the entry. A file that is not a regular file (a symbolic
// link), too large or not JSON is ignored with a line in the server's log
// and replaced by the next list.
type toolCache struct {
	dir   string
	limit int64 // the largest file read, Options.MaxMessageBytes
}

// toolEntry is one server's file. It does not name the server as the
// profile does: servers of the same identity under other names share it,
// and an entry that differed by name would be written again by each.
type toolEntry struct {
	// ServerName, ServerVersion and Protocol are what the server said in
	// initialize; the entry is used only while they stay the same.
	ServerName    string `json:"serverName"`
	ServerVersion string `json:"serverVersion"`
	Protocol      string `json:"protocol"`
	// StartupChanges is how many tools/list_changed the server sent
	// before it answered the list: announcements of its start-up, not
	// changes (see conn.startedUp).
	StartupChanges int64      `json:"startupListChanges"`
	Tools          []mcp.Tool `json:"tools"`
}

func newToolCache(dir string, limit int) *toolCache {
	if dir == "" {
		return nil
	}
	return &toolCache{dir: dir, limit: int64(limit)}
}

func (tc *toolCache) path(key string) string { return filepath.Join(tc.dir, key+".json") }

// load returns the entry stored for key: nil and no error when there is
// none, an error naming the file when one is there and cannot be used.
func (tc *toolCache) load(key string) (*toolEntry, error) {
	if tc == nil || key == "" {
		return nil, nil
	}
	data, err := tc.read(key)
	if err != nil || data == nil {
		return nil, err
	}
	e, err := decodeToolEntry(data)
	if err != nil {
		return nil, fmt.Errorf("tool cache %s: %v; ignored", tc.path(key), err)
	}
	for i, t := range e.Tools {
		if t.Name == "" {
			return nil, fmt.Errorf("tool cache %s: tools[%d] has no name; ignored", tc.path(key), i)
		}
	}
	if e.ServerVersion == "" || e.Protocol == "" {
		return nil, fmt.Errorf("tool cache %s: no server version or protocol; ignored", tc.path(key))
	}
	return e, nil
}

// read returns the file's bytes, nil when it does not exist. Neither the
// directory nor the file may be a symbolic link: the cache stays inside
// ollm's own cache directory, whatever was put there.
func (tc *toolCache) read(key string) ([]byte, error) {
	p := tc.path(key)
	if fi, err := os.Lstat(tc.dir); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, err
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("tool cache %s is not a directory (a symbolic link?); the tool cache is not used", tc.dir)
	}
	f, err := os.OpenFile(p, os.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case errors.Is(err, unix.ELOOP):
		return nil, fmt.Errorf("tool cache %s is a symbolic link; ignored", p)
	case err != nil:
		return nil, fmt.Errorf("tool cache %s: %w; ignored", p, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("tool cache %s is not a regular file; ignored", p)
	}
	if tc.limit > 0 && fi.Size() > tc.limit {
		return nil, fmt.Errorf("tool cache %s holds %d bytes, more than the message limit %d; ignored", p, fi.Size(), tc.limit)
	}
	return io.ReadAll(f)
}

// store records e for key. Nothing is written when the file already holds
// the same, so a server whose tools do not change costs no write (and no
// fsync) per command.
func (tc *toolCache) store(key string, e *toolEntry) error {
	if tc == nil || key == "" || e.ServerVersion == "" || e.Protocol == "" {
		return nil
	}
	data, err := json.MarshalIndent(e, "", "  ")
	if err != nil {
		return err
	}
	data = append(data, '\n')
	if old, err := tc.read(key); err == nil && bytes.Equal(old, data) {
		return nil
	}
	if fi, err := os.Lstat(tc.dir); err == nil && !fi.IsDir() {
		return fmt.Errorf("tool cache %s is not a directory (a symbolic link?); not written", tc.dir)
	}
	if err := store.PrivateDir(tc.dir); err != nil {
		return err
	}
	// The new file is renamed over the old name: a symbolic link there is
	// replaced, its target left alone.
	return store.WriteFile(tc.path(key), data, store.PermPrivate)
}

// forget removes key's entry.
func (tc *toolCache) forget(key string) error {
	if tc == nil || key == "" {
		return nil
	}
	if err := os.Remove(tc.path(key)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// toolCacheKey identifies a server for the tool cache: transport, the
// capabilities ollm offers it (server-everything lists its roots,
// elicitation and sampling tools only to clients that offer them), and
// command, directory, arguments and its own environment (its env entries
// and its extension's settings, as expanded), its extension's pin and
// its program's and script's size and time (programIdentity), or URL and
// headers. Secrets
// in the environment or headers go into the hash, never into the file.
func toolCacheKey(spec Spec, cfg Expanded, caps string) string {
	h := sha256.New()
	field := func(s string) {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	field("ollm tool cache 1")
	field(spec.Transport())
	field(caps)
	if spec.Transport() == TransportStdio {
		dir := spec.Config.Cwd
		if dir == "" {
			dir = spec.Dir
		}
		if dir == "" {
			// it runs where ollm runs: `node server.js`, or a server given
			// ".", may be another server in another directory
			dir, _ = os.Getwd()
		}
		field(cfg.Command)
		field(dir)
		field(fmt.Sprint(len(cfg.Args)))
		for _, a := range cfg.Args {
			field(a)
		}
		for _, kv := range ownEnv(spec, cfg.Env) {
			field(kv)
		}
		// issue 29: the extension's pin, and the program and the files
		// its arguments name as they are on disk (early.go)
		field(spec.Pin)
		for _, id := range programIdentity(cfg.Command, dir, cfg.Args) {
			field(id)
		}
	} else {
		field(cfg.URL)
		for _, k := range sortedKeys(cfg.Headers) {
			field(k + ": " + cfg.Headers[k])
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// ownEnv is the part of a server's expanded environment that its
// configuration sets: its env entries and its extension's settings.
func ownEnv(spec Spec, env []string) []string {
	var out []string
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if _, ok := spec.Config.Env[k]; ok {
			out = append(out, kv)
		} else if _, ok := spec.SettingsEnv[k]; ok {
			out = append(out, kv)
		}
	}
	slices.Sort(out)
	return out
}

// CachedTools lists the names of the tools the tool cache holds for the
// server as a Manager with opts would find them (opts.ToolCache, Environ
// and Roots as that Manager gets them), without starting anything: shell
// completion offers them. nil when the cache has no usable entry.
func CachedTools(spec Spec, opts Options) []string {
	tc := newToolCache(opts.ToolCache, opts.maxMessage())
	if tc == nil {
		return nil
	}
	cfg := ExpandServer(spec.Name, spec.Config, opts.Environ, spec.SettingsEnv, spec.vars(&opts))
	c := &conn{spec: spec, cfg: cfg, opts: &opts}
	e, err := tc.load(toolCacheKey(spec, cfg, c.offered()))
	if err != nil || e == nil {
		return nil
	}
	names := make([]string, 0, len(e.Tools))
	for _, t := range e.Tools {
		names = append(names, t.Name)
	}
	slices.Sort(names)
	return names
}
