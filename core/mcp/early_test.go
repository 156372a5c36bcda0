package mcp

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// The tool cache key of a stdio server changes with what a session offers
// early tools for (early.go): the extension's pin, and the program and the
// script it runs as they are on disk.
func TestToolCacheKeyProgramAndPin(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "server.js")
	if err := os.WriteFile(script, []byte("v1"), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := Spec{Name: "s", Config: Config{Command: "sh", Args: []string{"server.js"}, Cwd: dir}}
	key := func(s Spec) string { return toolCacheKey(s, ExpandServer(s.Name, s.Config, nil, nil, nil), "") }
	k0 := key(spec)
	if key(spec) != k0 {
		t.Fatal("the key is not stable")
	}
	pinned := spec
	pinned.Pin = "1.2.0 h1:abc"
	if key(pinned) == k0 {
		t.Error("another extension pin: same key")
	}
	if err := os.WriteFile(script, []byte("version 2"), 0o644); err != nil {
		t.Fatal(err)
	}
	if key(spec) == k0 {
		t.Error("the script the server runs changed: same key")
	}
	k1 := key(spec)
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(script, later, later); err != nil {
		t.Fatal(err)
	}
	if key(spec) == k1 {
		t.Error("the script was replaced (new modification time): same key")
	}
	bin := filepath.Join(dir, "server")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	byPath := Spec{Name: "b", Config: Config{Command: bin, Cwd: dir}}
	kb := key(byPath)
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n# v2\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if key(byPath) == kb {
		t.Error("the server's program changed: same key")
	}
}
