package cli

import (
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// httpDo sends one request to `ollm mcp serve --http` and returns the
// status, the body and the Mcp-Session-Id header.
func httpDo(t *testing.T, method, url, body string, headers map[string]string) (int, string, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	// A stream the server keeps open (GET) must not hang the test.
	resp, err := (&http.Client{Timeout: 20 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, "reading the body: " + err.Error(), resp.Header.Get("Mcp-Session-Id")
	}
	return resp.StatusCode, string(b), resp.Header.Get("Mcp-Session-Id")
}

const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// Over HTTP: a request from a foreign browser origin is refused with 403
// even with the token, loopback origins and the allowed ones (flag and
// profile) pass; a request without a session id other than initialize
// gets 400; DELETE ends a session, after which its id gets 404; a token
// file others could read is made 0600.
func TestMCPServeHTTPOriginsAndSessions(t *testing.T) {
	e := newSessionEnv(t)
	e.write(filepath.Join(e.home, "profile.cue"), serveProfile+`mcp: serve: allowedOrigins: ["https://team.example.org"]`+"\n")
	file := filepath.Join(e.home, "mcp-token")
	const tok = "a-token-from-a-file-0123456789"
	e.write(file, tok+"\n")
	if err := os.Chmod(file, 0o644); err != nil {
		t.Fatal(err)
	}
	url, _ := startServeHTTP(t, e, "--token-file", file, "--allow-origin", "https://app.example.com")
	if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the token file: %v %v, want mode 0600", fi.Mode(), err)
	}
	auth := map[string]string{"Authorization": "Bearer " + tok}
	with := func(k, v string) map[string]string {
		h := map[string]string{k: v}
		for a, b := range auth {
			h[a] = b
		}
		return h
	}
	for origin, want := range map[string]int{
		"https://evil.example":          http.StatusForbidden,
		"http://127.0.0.1.evil.example": http.StatusForbidden,
		"null":                          http.StatusForbidden,
		"https://app.example.com.evil":  http.StatusForbidden,
		"http://localhost:3000":         http.StatusOK,
		"http://127.0.0.1:8080":         http.StatusOK,
		"http://[::1]:5173":             http.StatusOK,
		"https://app.example.com":       http.StatusOK,
		"https://TEAM.example.org":      http.StatusOK,
	} {
		code, body, _ := httpDo(t, http.MethodPost, url, initializeBody, with("Origin", origin))
		if code != want || (want == http.StatusForbidden && !strings.Contains(body, "--allow-origin "+origin)) {
			t.Errorf("Origin %s: %d %s, want %d", origin, code, body, want)
		}
	}
	// The origin is checked before the token: a foreign page learns
	// nothing from the answer to a wrong token either.
	if code, _, _ := httpDo(t, http.MethodPost, url, initializeBody, map[string]string{"Origin": "https://evil.example"}); code != http.StatusForbidden {
		t.Errorf("a foreign origin without the token: %d", code)
	}

	code, body, sid := httpDo(t, http.MethodPost, url, initializeBody, auth)
	if code != http.StatusOK || sid == "" {
		t.Fatalf("initialize: %d %s (session %q)", code, body, sid)
	}
	const list = `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	if code, body, _ := httpDo(t, http.MethodPost, url, list, auth); code != http.StatusBadRequest || !strings.Contains(body, "Mcp-Session-Id") {
		t.Errorf("tools/list without a session id: %d %s, want 400", code, body)
	}
	if code, _, _ := httpDo(t, http.MethodGet, url, "", auth); code != http.StatusBadRequest {
		t.Errorf("GET without a session id: %d, want 400", code)
	}
	if code, body, _ := httpDo(t, http.MethodPost, url, list, with("Mcp-Session-Id", sid)); code != http.StatusOK || !strings.Contains(body, `"read_file"`) {
		t.Fatalf("tools/list in the session: %d %.200s", code, body)
	}
	if code, body, _ := httpDo(t, http.MethodDelete, url, "", with("Mcp-Session-Id", sid)); code != http.StatusOK {
		t.Fatalf("DELETE: %d %s", code, body)
	}
	if code, body, _ := httpDo(t, http.MethodPost, url, list, with("Mcp-Session-Id", sid)); code != http.StatusNotFound {
		t.Errorf("tools/list after DELETE: %d %.200s, want 404", code, body)
	}
	if code, _, _ := httpDo(t, http.MethodPost, url, list, with("Mcp-Session-Id", "mcp-session-made-up")); code != http.StatusNotFound {
		t.Errorf("tools/list with an unknown session id: %d, want 404", code)
	}
}

// A --token-file that does not exist gets a new token, written 0600 and
// not printed; it is the token the server wants. A bad --allow-origin is
// refused.
func TestMCPServeHTTPTokenFileWritten(t *testing.T) {
	e := newSessionEnv(t)
	for _, bad := range []string{"app.example.com", "https://app.example.com/path", "ftp://x"} {
		if code, errOut := runServe(e, "mcp", "serve", "--http", ":0", "--allow-origin", bad); code != ExitConfig || !strings.Contains(errOut, "want scheme://host[:port]") {
			t.Errorf("--allow-origin %s: exit %d, %s", bad, code, errOut)
		}
	}
	file := filepath.Join(e.home, "new-token")
	url, printed := startServeHTTP(t, e, "--token-file", file)
	fi, err := os.Stat(file)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the token file: %v %v, want mode 0600", fi, err)
	}
	b, _ := os.ReadFile(file)
	tok := strings.TrimSpace(string(b))
	if len(tok) < 32 || printed != "" {
		t.Fatalf("token %q, printed %q", tok, printed)
	}
	if code, body, _ := httpDo(t, http.MethodPost, url, initializeBody, map[string]string{"Authorization": "Bearer " + tok}); code != http.StatusOK {
		t.Errorf("initialize with the written token: %d %s", code, body)
	}
}

// Over HTTP too, a request the client cancels gets no response: its POST
// ends without one (an empty 202) and its command is killed.
func TestMCPServeHTTPCancelledCallGetsNoResponse(t *testing.T) {
	e := newSessionEnv(t)
	e.write(filepath.Join(e.home, "profile.cue"), shellProfile)
	file := filepath.Join(e.home, "mcp-token")
	const tok = "a-token-from-a-file-0123456789"
	e.write(file, tok+"\n")
	url, _ := startServeHTTP(t, e, "--token-file", file)
	auth := map[string]string{"Authorization": "Bearer " + tok}
	code, body, sid := httpDo(t, http.MethodPost, url, initializeBody, auth)
	if code != http.StatusOK || sid == "" {
		t.Fatalf("initialize: %d %s", code, body)
	}
	in := map[string]string{"Authorization": "Bearer " + tok, "Mcp-Session-Id": sid}
	httpDo(t, http.MethodPost, url, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, in)
	type reply struct {
		code int
		body string
	}
	done := make(chan reply, 1)
	go func() {
		code, body, _ := httpDo(t, http.MethodPost, url, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"shell","arguments":{"command":"echo $$ > pid; exec sleep 60"}}}`, in)
		done <- reply{code, body}
	}()
	deadline := time.Now().Add(30 * time.Second) // a guard against a hang, not a measure
	var pid int
	for pid == 0 && time.Now().Before(deadline) {
		b, _ := os.ReadFile(filepath.Join(e.ws, "pid"))
		pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		time.Sleep(10 * time.Millisecond)
	}
	if pid == 0 {
		t.Fatal("the command never started")
	}
	if code, body, _ := httpDo(t, http.MethodPost, url, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`, in); code != http.StatusAccepted {
		t.Fatalf("notifications/cancelled: %d %s", code, body)
	}
	r := <-done
	if strings.Contains(r.body, `"id":7`) || r.code != http.StatusAccepted {
		t.Errorf("the cancelled call's POST: %d %q, want an empty 202", r.code, r.body)
	}
	for syscall.Kill(pid, 0) == nil && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("the command (pid %d) still runs after the cancel: %v", pid, err)
	}
	// The session goes on: the same id again is answered.
	if code, body, _ := httpDo(t, http.MethodPost, url, `{"jsonrpc":"2.0","id":7,"method":"ping"}`, in); code != http.StatusOK || !strings.Contains(body, `"id":7`) {
		t.Errorf("a later request with id 7: %d %s", code, body)
	}
}
