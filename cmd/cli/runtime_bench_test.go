package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ollm/ollm/core/runtime"
	"github.com/ollm/ollm/resolver"
)

// benchWorkspace is a workspace whose ollm.cue names n local extensions
// (3 hooks, 3 settings and a skill each, and servers MCP servers that
// never answer), applied once: the current generation is cached.
func benchWorkspace(b testing.TB, n, servers int) *Factory {
	return serverWorkspace(b, n, servers, `{"command": "sleep", "args": ["60"]}`, 20000)
}

// serverWorkspace is benchWorkspace with each MCP server's configuration
// (JSON) and the connection timeout (ms) given.
func serverWorkspace(b testing.TB, n, servers int, server string, timeoutMS int) *Factory {
	b.Helper()
	root := b.TempDir()
	home, ws := filepath.Join(root, "home"), filepath.Join(root, "ws")
	write := func(p, s string) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	write(filepath.Join(home, "profile.cue"), fmt.Sprintf("model: name: \"test-model\"\nhooks: trustWorkspace: true\nmcp: connectionTimeout: %d\n", timeoutMS))
	var cue strings.Builder
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("ext%02d", i)
		var srv []string
		for j := 0; j < servers; j++ {
			srv = append(srv, fmt.Sprintf(`"s%d": %s`, j, server))
		}
		write(filepath.Join(ws, "ext", name, "manifest.json"), `{"name": "`+name+`", "version": "1.0.0", "description": "bench",
 "hooks": {"before_tool": [{"name": "a", "command": "true"}, {"name": "b", "command": "true"}], "after_tool": [{"name": "c", "command": "true"}]},
 "settings": [{"name": "x", "description": "x"}, {"name": "y", "description": "y"}, {"name": "z", "description": "z"}],
 "skills": [{"name": "`+name+`-skill", "description": "a skill", "prompt": "Do {thing}."}],
 "mcpServers": {`+strings.Join(srv, ", ")+`}}`)
		fmt.Fprintf(&cue, "extensions: sources: %s: {path: \"./ext/%s\"}\nsettings: %s: {x: \"1\", y: \"2\", z: \"3\"}\n", name, name, name)
	}
	write(filepath.Join(ws, "ollm.cue"), cue.String())
	env := map[string]string{"OLLM_HOME": home, "PATH": os.Getenv("PATH"), "HOME": root}
	io, _, _, _ := TestIO()
	f := &Factory{IO: io, Getenv: func(k string) string { return env[k] }, Environ: func() []string {
		return []string{"OLLM_HOME=" + home, "PATH=" + env["PATH"], "HOME=" + root}
	}, Getwd: func() (string, error) { return ws, nil }, Now: time.Now, Context: context.Background()}
	d := newResolveDeps(f)
	a, err := d.applier()
	if err != nil {
		b.Fatal(err)
	}
	if _, err := d.apply(a, resolver.ApplyOptions{}); err != nil {
		b.Fatal(err)
	}
	return f
}

// BenchmarkRuntimeFromGeneration50 is a session's start from a cached
// generation of 50 extensions: the runtime is ready for the first prompt
// (tools, hooks, skills, policy, provider) while the extensions' MCP
// servers start in the background (they never answer here).
func BenchmarkRuntimeFromGeneration50(b *testing.B) {
	for _, c := range []struct {
		name    string
		servers int
	}{{"no-servers", 0}, {"two-servers-each", 2}} {
		b.Run(c.name, func(b *testing.B) {
			f := benchWorkspace(b, 50, c.servers)
			var closing time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				rt, err := f.NewRuntime(context.Background(), runtime.Options{SessionID: "bench"})
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				// checked outside the clock: with servers, List waits on
				// the managers the 100 starting servers update
				if len(rt.Ext.List()) != 50 {
					b.Fatalf("%d extensions", len(rt.Ext.List()))
				}
				t0 := time.Now()
				_ = rt.Close()
				closing += time.Since(t0)
				if c.servers > 0 {
					// let the 100 stopped server processes go before the
					// next start is measured
					time.Sleep(300 * time.Millisecond)
				}
				b.StartTimer()
			}
			// quitting the session right away: servers still starting
			b.ReportMetric(float64(closing.Microseconds())/1e3/float64(b.N), "close-ms")
		})
	}
}
