package cli

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/ollm/ollm/core/runtime"
)

// elicitingServer is a streamable HTTP server whose tool "ask" requests
// the form schema gives it and returns what the client answered.
func elicitingServer(t *testing.T, schema map[string]any) string {
	t.Helper()
	s := server.NewMCPServer("asker", "1", server.WithToolCapabilities(false), server.WithElicitation())
	s.AddTool(mcp.NewTool("ask"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		// 2026-07-28: the question is the result (SEP-2322), the answer
		// comes with the client's retry.
		if req.Params.RequestState == "" {
			return server.NewInputRequestBuilder("asked").Elicit("details", mcp.ElicitationParams{
				Message: "Your details?", RequestedSchema: schema}).ToolResult(), nil
		}
		res := server.ElicitationResponse(req.Params.InputResponses, "details")
		if res == nil {
			return mcp.NewToolResultError("no answer"), nil
		}
		b, _ := json.Marshal(map[string]any{"action": res.Action, "content": res.Content})
		return mcp.NewToolResultText(string(b)), nil
	})
	srv := httptest.NewServer(server.NewStreamableHTTPServer(s))
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}

// Without a terminal, `mcp call --elicit defaults` accepts a form whose
// required fields all have defaults, with them (SEP-1034: every
// primitive type); a form with a required field lacking one, and every
// form under the default --elicit decline, is declined, and a notice on
// stderr says so and why.
func TestMCPCallElicitHeadless(t *testing.T) {
	defaults := map[string]any{"type": "object", "required": []any{"name"}, "properties": map[string]any{
		"name":    map[string]any{"type": "string", "default": "Ada"},
		"age":     map[string]any{"type": "integer", "default": 36},
		"score":   map[string]any{"type": "number", "default": 9.5},
		"admin":   map[string]any{"type": "boolean", "default": true},
		"colour":  map[string]any{"type": "string", "enum": []any{"red", "green"}, "default": "green"},
		"comment": map[string]any{"type": "string"},
	}}
	lacking := map[string]any{"type": "object", "required": []any{"name", "email"}, "properties": map[string]any{
		"name":  map[string]any{"type": "string", "default": "Ada"},
		"email": map[string]any{"type": "string"},
	}}
	for _, c := range []struct {
		name, elicit string
		schema       map[string]any
		want, notice string
	}{
		{"defaults", "defaults", defaults, `{"action":"accept","content":{"admin":true,"age":36,"colour":"green","name":"Ada","score":9.5}}`, "accepted with the form's defaults"},
		{"lacking", "defaults", lacking, `{"action":"decline","content":null}`, "required field email has no default"},
		{"decline", "decline", defaults, `{"action":"decline","content":null}`, "declined: nobody can answer here (--elicit defaults accepts"},
	} {
		t.Run(c.name, func(t *testing.T) {
			url := elicitingServer(t, c.schema)
			home := t.TempDir()
			io, _, out, errOut := TestIO()
			f := &Factory{IO: io, Context: context.Background(), Getenv: func(k string) string {
				if k == "OLLM_HOME" {
					return home
				}
				return ""
			}, Environ: os.Environ, Getwd: os.Getwd, Now: time.Now}
			o := newURLOptions(f, url)
			o.Elicit = c.elicit
			if err := mcpCallRun(o, adHocName, "ask", `{}`); err != nil {
				t.Fatalf("call: %v; stderr %s", err, errOut)
			}
			if got := strings.TrimSpace(out.String()); got != c.want {
				t.Errorf("the server got %s, want %s", got, c.want)
			}
			if !strings.Contains(errOut.String(), `notice: MCP server "adhoc" asked for input (Your details?); `) || !strings.Contains(errOut.String(), c.notice) {
				t.Errorf("stderr %q, want a notice with %q", errOut, c.notice)
			}
		})
	}
}

// A session nobody answers (`ollm run --elicit defaults`): the runtime
// accepts a form's defaults and says so in a notice; without the option
// it declines, and says that too.
func TestRunElicitHeadless(t *testing.T) {
	for _, c := range []struct{ mode, want, notice string }{
		{"defaults", `{"action":"accept","content":{"admin":true,"name":"Ada"}}`, "accepted with the form's defaults"},
		{"", `{"action":"decline","content":null}`, "declined: nobody can answer here"},
	} {
		t.Run("elicit="+c.mode, func(t *testing.T) {
			url := elicitingServer(t, map[string]any{"type": "object", "required": []any{"name"}, "properties": map[string]any{
				"name":  map[string]any{"type": "string", "default": "Ada"},
				"admin": map[string]any{"type": "boolean", "default": true}}})
			e := newSessionEnv(t)
			e.write(filepath.Join(e.home, "profile.cue"), `model: name: "test-model"
mcp: servers: asker: {url: "`+url+`", transport: "http"}
`)
			var notices []string
			rt := e.runtime(runtime.Options{ElicitHeadless: c.mode, OnNotice: func(s string) { notices = append(notices, s) }})
			if got := strings.TrimSpace(strings.Split(callMCP(t, rt, "ask", `{}`), "\n")[0]); got != c.want {
				t.Errorf("the server got %s, want %s", got, c.want)
			}
			if n := strings.Join(notices, "\n"); !strings.Contains(n, `MCP server "asker" asked for input (Your details?)`) || !strings.Contains(n, c.notice) {
				t.Errorf("notices %q, want one with %q", notices, c.notice)
			}
		})
	}
}
