package mcp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/ollm/ollm/core/tool"
)

// toolSummary is what a Manager's tools are, for comparing two of them.
func toolSummary(t *testing.T, m *Manager) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, tl := range m.Tools() {
		b, err := json.Marshal(map[string]any{"schema": tl.Schema(), "description": tl.Description(),
			"kind": tl.Kind(), "annotations": tl.(tool.Annotated).Annotations(), "task": tl.(*mcpTool).def.task})
		if err != nil {
			t.Fatal(err)
		}
		out[tl.Name()] = string(b)
	}
	return out
}

// server-everything over stdio and streamable HTTP: the second Manager
// takes the tools from the cache (no tools/list), they are the same tools
// as the server's own list, and calls work. Its start-up announcements
// (three tools/list_changed right after initialized) leave the entry.
func TestToolCacheEverything(t *testing.T) {
	specs := everythingSpecs(t)
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "mcp-tools")
			opts := Options{ToolCache: dir, ProtocolCache: filepath.Join(t.TempDir(), "p.json"), Snapshot: true}
			m := startManager(t, []Spec{specs[transport]}, opts)
			fresh := toolSummary(t, m)
			if len(fresh) < 10 || m.servers["everything"].conn.fromCache.Load() {
				t.Fatalf("first connection: %d tools, from cache %v", len(fresh), m.servers["everything"].conn.fromCache.Load())
			}
			m.Close()
			files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
			if len(files) != 1 {
				t.Fatalf("cache files %v", files)
			}

			opts.UseToolCache = true
			m = startManager(t, []Spec{specs[transport]}, opts)
			if !m.servers["everything"].conn.fromCache.Load() {
				t.Fatalf("second connection listed again; log:\n%s", readFile(filepath.Join(m.opts.LogDir, "mcp-everything.log")))
			}
			if cached := toolSummary(t, m); !reflect.DeepEqual(cached, fresh) {
				t.Errorf("cached tools differ from the server's:\n%v\n%v", cached, fresh)
			}
			res := run(t, mustLookup(t, m, "echo"), `{"message":"from the cache"}`, nil)
			if res.Error != nil || res.ForModel != "Echo: from the cache" {
				t.Errorf("%+v", res)
			}
			m.Close()
			if _, err := os.Stat(files[0]); err != nil {
				t.Errorf("the start-up's tools/list_changed dropped the entry: %v", err)
			}
		})
	}
}

// A tools/list_changed after start-up drops the entry; a session-style
// Manager (no Snapshot) lists again and records the new list.
func TestToolCacheListChanged(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mcp-tools")
	record := filepath.Join(t.TempDir(), "record")
	spec := faultSpec(t, "f", "normal", "OLLM_MCP_FAULT_RECORD="+record)
	opts := Options{ToolCache: dir, UseToolCache: true}
	m := startManager(t, []Spec{spec}, opts)
	m.Close()
	ev := newEvents()
	opts.OnEvent = ev.add
	m = startManager(t, []Spec{spec}, opts)
	c := m.servers["f"].conn
	if !c.fromCache.Load() {
		t.Fatal("not from the cache")
	}
	if n := strings.Count(readFile(record), "method tools/list"); n != 2 { // two pages, once
		t.Fatalf("tools/list sent %d times:\n%s", n, readFile(record))
	}
	if res := run(t, mustLookup(t, m, "add-tool"), `{}`, nil); res.ForModel != "added" {
		t.Fatalf("%+v", res)
	}
	ev.wait(t, "the new tool", func(e Event) bool { return contains(toolNames(e.Tools), "extra") })
	m.Close()
	e, err := (&toolCache{dir: dir}).load(c.toolKey)
	if err != nil || e == nil {
		t.Fatalf("entry after the refresh: %v %v", e, err)
	}
	var names []string
	for _, tl := range e.Tools {
		names = append(names, tl.Name)
	}
	if !contains(names, "extra") {
		t.Errorf("the refreshed list was not recorded: %v", names)
	}
}

// Relist asks the server once, only for tools that came from the cache.
func TestRelistOnlyFromCache(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mcp-tools")
	record := filepath.Join(t.TempDir(), "record")
	spec := faultSpec(t, "f", "normal", "OLLM_MCP_FAULT_RECORD="+record)
	opts := Options{ToolCache: dir, UseToolCache: true, Snapshot: true}
	m := startManager(t, []Spec{spec}, opts)
	if m.Relist(context.Background(), "f") {
		t.Error("Relist of a fresh list")
	}
	m.Close()
	m = startManager(t, []Spec{spec}, opts)
	if !m.Relist(context.Background(), "f") || m.Relist(context.Background(), "f") || m.Relist(context.Background(), "nosuch") {
		t.Error("Relist: want true once, then false")
	}
	if n := strings.Count(readFile(record), "method tools/list"); n != 4 {
		t.Errorf("tools/list sent %d times, want 4 (two pages, twice):\n%s", n, readFile(record))
	}
}

// The key follows what identifies the server, not the parent environment.
func TestToolCacheKey(t *testing.T) {
	base := Spec{Name: "a", Config: Config{Command: "node", Args: []string{"s.js"}, Cwd: "/srv", Env: map[string]string{"TOKEN": "x"}}}
	key := func(s Spec, parent []string, caps string) string {
		return toolCacheKey(s, ExpandServer(s.Name, s.Config, parent, s.SettingsEnv, nil), caps)
	}
	k0 := key(base, []string{"TERM=xterm"}, "roots")
	same := []struct {
		name string
		k    string
	}{
		{"another parent environment", key(base, []string{"TERM=dumb", "OLDPWD=/x"}, "roots")},
		{"another name", key(Spec{Name: "b", Config: base.Config}, nil, "roots")},
	}
	for _, c := range same {
		if c.k != k0 {
			t.Errorf("%s: key changed", c.name)
		}
	}
	with := func(f func(*Spec)) Spec {
		s := base
		s.Config.Args = append([]string(nil), base.Config.Args...)
		s.Config.Env = map[string]string{"TOKEN": "x"}
		f(&s)
		return s
	}
	differ := map[string]string{
		"args":         key(with(func(s *Spec) { s.Config.Args = append(s.Config.Args, "--v2") }), nil, "roots"),
		"command":      key(with(func(s *Spec) { s.Config.Command = "bun" }), nil, "roots"),
		"cwd":          key(with(func(s *Spec) { s.Config.Cwd = "/other" }), nil, "roots"),
		"env":          key(with(func(s *Spec) { s.Config.Env["TOKEN"] = "y" }), nil, "roots"),
		"settings env": key(with(func(s *Spec) { s.SettingsEnv = map[string]string{"API": "1"} }), nil, "roots"),
		"capabilities": key(base, nil, "roots,elicitation"),
		"transport":    key(with(func(s *Spec) { s.Config = Config{URL: "http://127.0.0.1:1/mcp"} }), nil, "roots"),
	}
	for what, k := range differ {
		if k == k0 {
			t.Errorf("%s: same key", what)
		}
	}
	h1 := key(Spec{Name: "h", Config: Config{URL: "http://127.0.0.1:1/mcp", Headers: map[string]string{"X-Team": "a"}}}, nil, "")
	h2 := key(Spec{Name: "h", Config: Config{URL: "http://127.0.0.1:1/mcp", Headers: map[string]string{"X-Team": "b"}}}, nil, "")
	if h1 == h2 {
		t.Error("headers: same key")
	}
}

// What can be found in place of an entry is ignored with a reason naming
// the file, and writing replaces a symbolic link without touching its
// target.
func TestToolCacheFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mcp-tools")
	tc := newToolCache(dir, 1<<20)
	good := &toolEntry{ServerName: "s", ServerVersion: "1", Protocol: "2025-06-18", Tools: []mcp.Tool{{Name: "echo"}}}
	if err := tc.store("k", good); err != nil {
		t.Fatal(err)
	}
	if e, err := tc.load("k"); err != nil || e == nil || e.Tools[0].Name != "echo" {
		t.Fatalf("load: %+v %v", e, err)
	}
	if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o700 {
		t.Errorf("directory mode %v", fi.Mode().Perm())
	}
	if e, err := tc.load("missing"); e != nil || err != nil {
		t.Errorf("missing: %v %v", e, err)
	}
	write := func(name, data string) {
		if err := os.WriteFile(filepath.Join(dir, name+".json"), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	outside := filepath.Join(t.TempDir(), "outside.json")
	b, _ := json.Marshal(good)
	os.WriteFile(outside, b, 0o600)
	os.Symlink(outside, filepath.Join(dir, "link.json"))
	syscall.Mkfifo(filepath.Join(dir, "fifo.json"), 0o600)
	write("garbage", "{not json")
	write("noname", `{"serverVersion":"1","protocol":"2025-06-18","tools":[{"inputSchema":{}}]}`)
	write("noversion", `{"protocol":"2025-06-18","tools":[]}`)
	write("huge", `{"tools":[`+strings.Repeat(" ", 2<<20)+`]}`)
	for key, want := range map[string]string{
		"link": "is a symbolic link; ignored", "fifo": "is not a regular file; ignored",
		"garbage": "invalid character", "noname": "tools[0] has no name", "noversion": "no server version",
		"huge": "more than the message limit",
	} {
		e, err := tc.load(key)
		if e != nil || err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), filepath.Join(dir, key+".json")) {
			t.Errorf("%s: %v %v, want an error naming the file and %q", key, e, err, want)
		}
	}
	if err := tc.store("link", good); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(filepath.Join(dir, "link.json")); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("the link was not replaced: %v %v", fi, err)
	}
	if got := readFile(outside); got != string(b) {
		t.Errorf("the link's target was written: %s", got)
	}

	// A cache directory that is a symbolic link is neither read nor written.
	linked := filepath.Join(t.TempDir(), "linked")
	os.Symlink(dir, linked)
	lc := newToolCache(linked, 0)
	if _, err := lc.load("k"); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("linked directory read: %v", err)
	}
	if err := lc.store("new", good); err == nil {
		t.Error("linked directory written")
	}
	if _, err := os.Stat(filepath.Join(dir, "new.json")); err == nil {
		t.Error("written through the linked directory")
	}
}

// An unchanged list is not written again: no write, no fsync per command.
func TestToolCacheWritesOnlyChanges(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "mcp-tools")
	tc := newToolCache(dir, 0)
	e := &toolEntry{ServerName: "s", ServerVersion: "1", Protocol: "2025-06-18", Tools: []mcp.Tool{{Name: "echo"}}}
	if err := tc.store("k", e); err != nil {
		t.Fatal(err)
	}
	p := tc.path("k")
	before, _ := os.Stat(p)
	if err := tc.store("k", e); err != nil {
		t.Fatal(err)
	}
	after, _ := os.Stat(p)
	if !os.SameFile(before, after) {
		t.Error("an unchanged entry was written again")
	}
	e.ServerVersion = "2"
	if err := tc.store("k", e); err != nil {
		t.Fatal(err)
	}
	if again, _ := os.Stat(p); os.SameFile(before, again) {
		t.Error("a changed entry was not written")
	}
}
