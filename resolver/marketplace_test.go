package resolver

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ollm/ollm/profiles"
	"github.com/ollm/ollm/schema"
	"github.com/ollm/ollm/store"
)

const marketJSON = `{
  "name": "team",
  "owner": {"name": "team"},
  "plugins": [
    {"name": "tidy", "source": "./plugins/tidy", "strict": false, "commands": ["./cmds/tidy.md"],
     "hooks": {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "bash ${CLAUDE_PLUGIN_ROOT}/g.sh"}]}]}}}
  ]
}
`

func marketRepo(t testing.TB) (*testRepo, string) {
	dir := filepath.Join(t.TempDir(), "market")
	r := newRepo(t, dir)
	c := r.commit(map[string]string{
		".claude-plugin/marketplace.json": marketJSON,
		"plugins/tidy/cmds/tidy.md":       "Tidy $ARGUMENTS\n",
		"plugins/tidy/g.sh*":              "#!/bin/bash\nexit 0\n",
	}, "one")
	return r, c
}

// A plugin source locks the marketplace's commit and a hash over the
// plugin's files and the plugin.json made from its entry: two homes get
// the same bytes, and a new commit that changes only the entry changes the
// hash on update (the lock keeps the old one until then).
func TestPluginSourceFromEntry(t *testing.T) {
	r, c1 := marketRepo(t)
	profile := gitProfile(`tidy: {git: "` + r.Dir + `", plugin: "tidy"}`)
	a, b := newEnv(t, profile), newEnv(t, profile)
	res := a.mustApply(ApplyOptions{})
	b.mustApply(ApplyOptions{})
	la, lb := a.lock(), b.lock()
	got := la.Extensions[0]
	if got.Plugin != "tidy" || got.Commit != c1 || got.Hash != lb.Extensions[0].Hash || got.Subdir != "" {
		t.Fatalf("locks: %+v vs %+v", la.Extensions, lb.Extensions)
	}
	var x = res.Resolved.Extensions[0]
	if x.Name != "tidy" || x.Format != "claude" || len(x.Manifest.Hooks["PreToolUse"]) != 1 || x.Import == nil || len(x.Import.Commands) != 1 {
		t.Fatalf("resolved: %+v", x)
	}
	dir, _ := store.NewCAS(a.home.Store()).Path(got.Hash, "tidy")
	data, err := os.ReadFile(filepath.Join(dir, ".claude-plugin", "plugin.json"))
	if err != nil || !strings.Contains(string(data), `"x-ollm-marketplace"`) {
		t.Fatalf("store plugin.json: %s %v", data, err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".claude-plugin", "marketplace.json")); !os.IsNotExist(err) {
		t.Errorf("the marketplace file is in the plugin's tree: %v", err)
	}

	// A commit that adds another entry before it moves the commit, not
	// the hash: nothing asks for approval again.
	sibling := strings.Replace(marketJSON, `"plugins": [`, `"plugins": [
    {"name": "other", "source": "./plugins/other", "strict": false},`, 1)
	c2 := r.commit(map[string]string{".claude-plugin/marketplace.json": sibling}, "sibling")
	a.mustApply(ApplyOptions{Update: []string{"tidy"}})
	if now := a.lock().Extensions[0]; now.Hash != got.Hash || now.Commit != c2 {
		t.Fatalf("a sibling entry changed the hash: %+v", now)
	}
	r.commit(map[string]string{".claude-plugin/marketplace.json": strings.Replace(sibling, `"matcher": "Bash"`, `"matcher": ""`, 1)}, "entry only")
	a.mustApply(ApplyOptions{})
	if a.lock().Extensions[0].Hash != got.Hash {
		t.Fatal("the lock moved without an update")
	}
	a.mustApply(ApplyOptions{Update: []string{"tidy"}})
	if now := a.lock().Extensions[0]; now.Hash == got.Hash || now.Commit == c2 {
		t.Fatalf("a changed entry kept the hash: %+v", now)
	}
}

// An entry whose paths leave the plugin's folder is refused before
// anything enters the store, naming marketplace.json's line and the field.
func TestPluginSourceHostileEntry(t *testing.T) {
	r, _ := marketRepo(t)
	r.commit(map[string]string{".claude-plugin/marketplace.json": strings.Replace(marketJSON, `"./cmds/tidy.md"`, `"../../.claude-plugin/marketplace.json"`, 1)}, "hostile")
	e := newEnv(t, gitProfile(`tidy: {git: "`+r.Dir+`", plugin: "tidy"}`))
	_, err := e.apply(ApplyOptions{})
	var me *profiles.ManifestError
	if !errors.As(err, &me) || !strings.Contains(err.Error(), `.claude-plugin/marketplace.json:5:80: commands "../../.claude-plugin/marketplace.json" leaves the plugin's folder`) ||
		!strings.Contains(err.Error(), "fix: fix .claude-plugin/marketplace.json") {
		t.Fatalf("err = %v", err)
	}
	if entries, _ := store.NewCAS(e.home.Store()).Entries(); len(entries) != 0 {
		t.Errorf("store: %v", entries)
	}
	if _, err := os.Stat(e.ws.Lock()); !os.IsNotExist(err) {
		t.Errorf("lock written: %v", err)
	}
}

func TestPluginSourceNotForProfiles(t *testing.T) {
	r, _ := marketRepo(t)
	e := newEnv(t, "extends: [{git: \""+r.Dir+"\", plugin: \"tidy\"}]\n")
	_, err := e.apply(ApplyOptions{})
	if !errors.Is(err, ErrPluginSource) {
		t.Fatalf("err = %v", err)
	}
}

// BenchmarkExportPlugin compares exporting a plugin by its marketplace
// entry (marketplace.json read, folder exported, plugin.json written)
// with exporting the same folder by subdir, from a warm git cache.
func BenchmarkExportPlugin(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "market")
	r := newRepo(b, dir)
	commit := r.commit(map[string]string{
		".claude-plugin/marketplace.json": marketJSON,
		"plugins/tidy/cmds/tidy.md":       "Tidy $ARGUMENTS\n",
		"plugins/tidy/g.sh*":              "#!/bin/bash\nexit 0\n",
	}, "one")
	home := store.Home{Dir: filepath.Join(b.TempDir(), "home")}
	res := &Resolver{Git: NewGoGit(filepath.Join(home.Cache(), "git")), Store: store.NewCAS(home.Store())}
	for _, bc := range []struct {
		name string
		e    schema.LockedSource
	}{{"subdir", schema.LockedSource{Subdir: "plugins/tidy"}}, {"entry", schema.LockedSource{Plugin: "tidy"}}} {
		b.Run(bc.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				dst := filepath.Join(b.TempDir(), "t")
				if err := res.export(context.Background(), KindExtension, dir, commit, bc.e, dst); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// A plugin added by its folder cannot claim to come from a marketplace
// entry: `ollm ext info` would show the claim.
func TestPluginClaimingAnEntryIsRefused(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "fake")
	r := newRepo(t, dir)
	r.commit(map[string]string{".claude-plugin/plugin.json": `{"name": "fake", "x-ollm-marketplace": {"entry": "fake", "marketplace": "official", "file": "m", "pos": "m:1", "strict": false, "folder": ".", "pluginJson": false}}`}, "one")
	e := newEnv(t, gitProfile(`fake: {git: "`+dir+`"}`))
	_, err := e.apply(ApplyOptions{})
	if err == nil || !strings.Contains(err.Error(), "x-ollm-marketplace is written by ollm") {
		t.Fatalf("err = %v", err)
	}
}
