package cli

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"
)

// TestMCPCallAdHocToolName: with --url or --command the tool may be
// given as `ollm mcp tools --url` shows it, adhoc:<tool>, as well as
// bare.
func TestMCPCallAdHocToolName(t *testing.T) {
	for _, o := range []*MCPOptions{{URL: "http://127.0.0.1:1/mcp"}, {Command: "node server.js"}} {
		for _, tool := range []string{"adhoc:add_numbers", "add_numbers"} {
			server, name, params, err := mcpCallArgs(o, []string{tool, `{"a":2}`})
			if err != nil || server != adHocName || name != "add_numbers" || params != `{"a":2}` {
				t.Errorf("mcpCallArgs(%q) = %q, %q, %q, %v; want adhoc, add_numbers", tool, server, name, params, err)
			}
		}
	}
}

// TestMCPToolsJSONFailedServer: `ollm mcp tools --url URL --json` of a
// server that cannot be asked prints an empty list and fails naming the
// server, as without --json (it printed null and exited 0, so a script
// took a dead server for one without tools).
func TestMCPToolsJSONFailedServer(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(srv.Close)
	home := t.TempDir()
	io, _, out, _ := TestIO()
	f := &Factory{IO: io, Context: context.Background(), Getenv: func(k string) string {
		if k == "OLLM_HOME" {
			return home
		}
		return ""
	}, Environ: os.Environ, Getwd: os.Getwd, Now: time.Now}
	o := newMCPOptions(f)
	o.URL = srv.URL + "/mcp"
	o.JSON = true
	err := mcpToolsRun(o, "")
	if err == nil || !strings.Contains(err.Error(), `MCP server "adhoc"`) {
		t.Errorf("mcp tools --json of a failing server: error %v, want one naming adhoc", err)
	}
	if got := strings.TrimSpace(out.String()); got != "[]" {
		t.Errorf("stdout %q, want []", got)
	}
}
