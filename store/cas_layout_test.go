package store

import (
	"os"
	"path/filepath"
	"testing"
)

// An entry's folder keeps the extension's name as its last path element,
// so a plugin that imports its own package by that name finds it.
func TestEntryKeepsItsFolderName(t *testing.T) {
	cas := NewCAS(filepath.Join(t.TempDir(), "store"))
	casCleanup(t, cas.Dir)
	pin, dir := installEntry(t, cas, "hookify", map[string]string{"core/__init__.py": "", "hooks/hooks.json": "{}"})
	if filepath.Base(dir) != "hookify" {
		t.Fatalf("entry %s: last element is not the plugin's name", dir)
	}
	key, _ := EntryName(pin.Hash, pin.Name)
	if filepath.Dir(dir) != filepath.Join(cas.Dir, key[:64]) || cas.EntryDir(key) != dir {
		t.Fatalf("entry %s not at <store>/<hex>/hookify (key %s)", dir, key)
	}
	if _, ok, _, err := cas.Has(pin.Hash, pin.Name); !ok || err != nil {
		t.Fatalf("Has = %v, %v", ok, err)
	}
	entries, _ := cas.Entries()
	if len(entries) != 1 || entries[0].Name != key || entries[0].Dir != dir {
		t.Fatalf("Entries = %+v", entries)
	}
	removed, err := cas.GC(map[string]bool{}, false)
	if err != nil || len(removed) != 1 || removed[0] != key {
		t.Fatalf("GC = %v, %v", removed, err)
	}
	if _, err := os.Lstat(filepath.Dir(dir)); !os.IsNotExist(err) {
		t.Fatalf("gc left the hash folder: %v", err)
	}
}

// A store written by an older ollm (<hex>-<name>) keeps working: the
// entry is moved to its place when first asked for, and verifies there.
func TestOldLayoutEntryIsMoved(t *testing.T) {
	root := t.TempDir()
	cas := NewCAS(filepath.Join(root, "store"))
	casCleanup(t, cas.Dir)
	pin, dir := installEntry(t, cas, "guard", guardFiles)
	key, _ := EntryName(pin.Hash, pin.Name)
	old := filepath.Join(cas.Dir, key)
	_ = os.Chmod(dir, 0o755)
	if err := os.Rename(dir, old); err != nil {
		t.Fatal(err)
	}
	_ = os.Chmod(old, 0o555)
	_ = os.Remove(filepath.Dir(dir))
	if entries, _ := cas.Entries(); len(entries) != 1 || entries[0].Name != key || entries[0].Dir != old {
		t.Fatalf("old entry not listed: %+v", entries)
	}
	dirs, err := laterVerifier(cas, root).Verify([]Pin{pin})
	if err != nil || dirs[0] != dir {
		t.Fatalf("Verify = %v, %v; want %s", dirs, err, dir)
	}
	if _, err := os.Lstat(old); !os.IsNotExist(err) {
		t.Fatalf("old entry still there: %v", err)
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o555 {
		t.Fatalf("moved entry: %v %v", fi, err)
	}
}
