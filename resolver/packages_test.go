package resolver

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ollm/ollm/schema"
	"github.com/ollm/ollm/store"
)

func TestPackageWants(t *testing.T) {
	r := &schema.Resolved{
		Profile: schema.Profile{MCP: schema.MCP{Servers: map[string]schema.MCPServer{
			"a": {Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-everything"}},
			"b": {Command: "npx", Args: []string{"-y", "@scope/pkg@1.2.3"}},
			"c": {Command: "pnpm", Args: []string{"dlx", "tool@latest", "--flag"}},
			"d": {Command: "uvx", Args: []string{"--python", "3.12", "mcp-server-time"}},
			"e": {Command: "uvx", Args: []string{"mcp-server-git==1.0.0"}},
			"f": {Command: "/usr/local/bin/npx", Args: []string{"--package=pkg@^2", "run-it"}},
			"g": {Command: "node", Args: []string{"server.js"}},
			"h": {Command: "npx", Args: []string{"./local-dir"}},
			"i": {Command: "pnpm", Args: []string{"install"}},
			"j": {Command: "uvx", Args: []string{"--from", "ruff@latest", "ruff"}},
		}}},
		Extensions: []schema.Extension{{Name: "x", Manifest: schema.Manifest{MCPServers: map[string]schema.MCPServer{
			"s": {Command: "npx", Args: []string{"pkg"}},
		}}}},
	}
	want := []PackageWant{
		{"a", RunnerNPX, "@modelcontextprotocol/server-everything"},
		{"c", RunnerPNPM, "tool@latest"},
		{"d", RunnerUVX, "mcp-server-time"},
		{"f", RunnerNPX, "pkg@^2"},
		{"j", RunnerUVX, "ruff@latest"},
		{"x:s", RunnerNPX, "pkg"},
	}
	if got := PackageWants(r); !reflect.DeepEqual(got, want) {
		t.Fatalf("PackageWants =\n%+v\nwant\n%+v", got, want)
	}
}

func TestPinCommand(t *testing.T) {
	lock := &schema.Lock{Packages: []schema.LockedPackage{
		{Server: "a", Runner: RunnerNPX, Package: "@scope/srv", Version: "1.4.2"},
		{Server: "c", Runner: RunnerPNPM, Package: "tool@latest", Version: "3.0.0"},
		{Server: "d", Runner: RunnerUVX, Package: "mcp-server-time", Version: "0.6.2"},
		{Server: "f", Runner: RunnerNPX, Package: "pkg@^2", Version: "2.5.0"},
		{Server: "j", Runner: RunnerUVX, Package: "ruff@latest", Version: "0.6.0"},
	}}
	for _, tc := range []struct {
		server, command string
		args, want      []string
	}{
		{"a", "npx", []string{"-y", "@scope/srv", "--root", "."}, []string{"-y", "@scope/srv@1.4.2", "--root", "."}},
		{"c", "pnpm", []string{"dlx", "tool@latest"}, []string{"dlx", "tool@3.0.0"}},
		{"d", "uvx", []string{"mcp-server-time", "--tz", "UTC"}, []string{"mcp-server-time@0.6.2", "--tz", "UTC"}},
		{"f", "npx", []string{"--package=pkg@^2", "run-it"}, []string{"--package=pkg@2.5.0", "run-it"}},
		{"j", "uvx", []string{"--from", "ruff@latest", "ruff"}, []string{"--from", "ruff==0.6.0", "ruff"}},
		{"a", "npx", []string{"-y", "other"}, []string{"-y", "other"}}, // not what the lock pins
		{"zzz", "npx", []string{"@scope/srv"}, []string{"@scope/srv"}}, // another server
		{"a", "node", []string{"@scope/srv"}, []string{"@scope/srv"}},  // not a runner
	} {
		args := append([]string(nil), tc.args...)
		got := PinCommand(lock, tc.server, tc.command, args)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("PinCommand(%s, %s %v) = %v, want %v", tc.server, tc.command, tc.args, got, tc.want)
		}
		if !reflect.DeepEqual(args, tc.args) {
			t.Errorf("PinCommand changed its args: %v", args)
		}
	}
}

func TestRegistryParsesToolOutput(t *testing.T) {
	var calls []string
	reg := Registry{Run: func(ctx context.Context, dir, stdin, name string, args ...string) ([]byte, error) {
		calls = append(calls, name+" "+strings.Join(args, " ")+" <"+strings.TrimSpace(stdin))
		switch {
		case name == "npm" && args[1] == "pkg@^2":
			return []byte(`["2.0.0", "2.5.0"]`), nil
		case name == "npm":
			return []byte(`"1.4.2"` + "\n"), nil
		case name == "uv":
			return []byte("mcp-server-time==0.6.2\npytz==2024.1\n"), nil
		}
		return nil, os.ErrNotExist
	}}
	ctx := context.Background()
	for _, tc := range []struct{ runner, spec, want string }{
		{RunnerNPX, "@scope/srv", "1.4.2"},
		{RunnerPNPM, "pkg@^2", "2.5.0"},
		{RunnerUVX, "mcp_server_time@latest", "0.6.2"},
	} {
		got, err := reg.Version(ctx, tc.runner, tc.spec)
		if err != nil || got != tc.want {
			t.Errorf("Version(%s %s) = %q, %v; want %q", tc.runner, tc.spec, got, err, tc.want)
		}
	}
	want := []string{
		"npm view @scope/srv version --json <",
		"npm view pkg@^2 version --json <",
		"uv pip compile --quiet --no-header --no-annotate - <mcp_server_time",
	}
	if !reflect.DeepEqual(calls, want) {
		t.Fatalf("calls =\n%q\nwant\n%q", calls, want)
	}
}

// TestRegistryRealNPM runs the real npm over the npm folder `make deps`
// installs (OLLM_NPM_DIR, or .deps/npm at the repository root), offline.
func TestRegistryRealNPM(t *testing.T) {
	dir := os.Getenv("OLLM_NPM_DIR")
	if dir == "" {
		dir, _ = filepath.Abs(filepath.Join("..", ".deps", "npm"))
	}
	pkgJSON := filepath.Join(dir, "node_modules", "@modelcontextprotocol", "server-everything", "package.json")
	data, err := os.ReadFile(pkgJSON)
	if err != nil {
		t.Fatalf("%v: run `make deps` first", err)
	}
	reg := Registry{NPMDir: dir}
	got, err := reg.Version(context.Background(), RunnerNPX, "@modelcontextprotocol/server-everything@latest")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"version": "`+got+`"`) {
		t.Fatalf("npm ls says %q; %s says otherwise", got, pkgJSON)
	}
	if _, err := reg.Version(context.Background(), RunnerNPX, "not-installed-pkg"); err == nil || !strings.Contains(err.Error(), "not installed") {
		t.Fatalf("missing package: err = %v", err)
	}
}

func TestPinServers(t *testing.T) {
	lock := &schema.Lock{Packages: []schema.LockedPackage{
		{Server: "files", Runner: RunnerNPX, Package: "@scope/files", Version: "1.2.3"},
		{Server: "notes:db", Runner: RunnerNPX, Package: "db-server@latest", Version: "0.9.1"},
	}}
	r := &schema.Resolved{
		Profile: schema.Profile{MCP: schema.MCP{Servers: map[string]schema.MCPServer{
			"files": {Command: "npx", Args: []string{"-y", "@scope/files", "."}},
			"local": {Command: "node", Args: []string{"srv.js"}},
		}}},
		Extensions: []schema.Extension{{Name: "notes", Manifest: schema.Manifest{MCPServers: map[string]schema.MCPServer{
			"db": {Command: "npx", Args: []string{"db-server@latest"}},
		}}}},
	}
	p := PinServers(lock, r)
	if got := p.Profile.MCP.Servers["files"].Args; !reflect.DeepEqual(got, []string{"-y", "@scope/files@1.2.3", "."}) {
		t.Errorf("profile server args %v", got)
	}
	if got := p.Profile.MCP.Servers["local"].Args; !reflect.DeepEqual(got, []string{"srv.js"}) {
		t.Errorf("unpinned server args %v", got)
	}
	if got := p.Extensions[0].Manifest.MCPServers["db"].Args; !reflect.DeepEqual(got, []string{"db-server@0.9.1"}) {
		t.Errorf("extension server args %v", got)
	}
	if got := r.Profile.MCP.Servers["files"].Args[1]; got != "@scope/files" || r.Extensions[0].Manifest.MCPServers["db"].Args[0] != "db-server@latest" {
		t.Error("PinServers changed its input")
	}
}

func TestChangedPaths(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "ext", "tools")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(`{"name":"tools"}`), 0o644)
	h, err := store.HashDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	lock := &schema.Lock{Extensions: []schema.LockedSource{
		{Name: "tools", Type: "path", Source: "./ext/tools", Hash: h},
		{Name: "gone", Type: "path", Source: "./ext/gone", Hash: h},
		{Name: "remote", Type: "git", Source: "https://example.invalid/r.git", Hash: "h1:x"},
	}}
	got := ChangedPaths(base, lock)
	if len(got) != 1 || got[0].Name != "gone" || got[0].Reason == "" {
		t.Fatalf("unchanged tree: %+v", got)
	}
	os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(`{"name":"tools","x":1}`), 0o644)
	got = ChangedPaths(base, lock)
	if len(got) != 2 || got[0].Name != "tools" || got[0].Old != h || got[0].New == h {
		t.Fatalf("changed tree: %+v", got)
	}
}
