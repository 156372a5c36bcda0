package cli

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// `echo-401 VAR` starts, in the test process, an HTTP server that refuses
// every request with 401 (403 for a path ending in /403) and a body that quotes back what it was sent:
// the Authorization and X-Api-Key headers, the URL's query and user
// password, as a careless server would. VAR is set to its base URL. It
// answers as an OpenAI-compatible server ({"error": {"message": ...}})
// and is as good an MCP endpoint: ollm must show the endpoint and the
// status, never what the server echoed. Every request's headers are
// appended to $WORK/echo-401.log for later checks. Each FILE named after
// VAR has ECHO_HOSTPORT replaced by the server's host:port, so a profile
// can put credentials into the URL.
var _ = registerEcho401()

func registerEcho401() bool {
	scriptCmds["echo-401"] = echo401Cmd
	return true
}

func echo401Cmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 {
		ts.Fatalf("usage: echo-401 VAR [FILE...]")
	}
	logPath := ts.MkAbs("echo-401.log")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		pw, _ := r.URL.User.Password()
		if u, p, ok := r.BasicAuth(); ok {
			pw = u + ":" + p
		}
		echo := strings.Join([]string{
			"authorization=" + r.Header.Get("Authorization"),
			"x-api-key=" + r.Header.Get("X-Api-Key"),
			"query=" + r.URL.RawQuery,
			"basic=" + pw,
		}, " ")
		if f, err := os.OpenFile(logPath, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600); err == nil {
			_, _ = f.WriteString(r.Method + " " + r.URL.Path + " " + echo + "\n")
			_ = f.Close()
		}
		w.Header().Set("Content-Type", "application/json")
		if strings.HasSuffix(r.URL.Path, "/403") {
			w.WriteHeader(http.StatusForbidden) // the body is quoted in the error
		} else {
			w.WriteHeader(http.StatusUnauthorized)
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{
			"message": "invalid credentials: " + echo, "type": "invalid_request_error"}})
	}))
	ts.Defer(srv.Close)
	ts.Setenv(args[0], srv.URL)
	for _, f := range args[1:] {
		b, err := os.ReadFile(ts.MkAbs(f))
		ts.Check(err)
		ts.Check(os.WriteFile(ts.MkAbs(f), []byte(strings.ReplaceAll(string(b), "ECHO_HOSTPORT", strings.TrimPrefix(srv.URL, "http://"))), 0o644))
	}
}
