package cli

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ollm/ollm/core/mcp"
	"github.com/ollm/ollm/core/mcp/mcptest"
)

// TestMCPLoginLogout drives login, list and logout against an MCP server
// that requires OAuth (a loopback authorization server and an mcp-go
// server from mcptest), with a test browser standing in for the user's.
func TestMCPLoginLogout(t *testing.T) {
	as := mcptest.NewAuthServerWith(t, mcptest.AuthOptions{Revocation: true})
	url := mcptest.StartProtectedServer(t, as)
	home, ws := t.TempDir(), t.TempDir()
	profile := "mcp: servers: {\n\tsecure: {transport: \"http\", url: \"" + url + "\"}\n\tlocal: {command: \"true\"}\n}\n"
	if err := os.WriteFile(filepath.Join(home, "profile.cue"), []byte(profile), 0o644); err != nil {
		t.Fatal(err)
	}
	io, _, out, errOut := TestIO()
	f := &Factory{IO: io, Context: context.Background(), Getenv: func(k string) string {
		if k == "OLLM_HOME" {
			return home
		}
		return ""
	}, Environ: os.Environ, Getwd: func() (string, error) { return ws, nil }, Now: time.Now}

	// Without a terminal, list says how to log in (and exits 1: the
	// servers failed).
	lo := newMCPOptions(f)
	if err := mcpListRun(lo); err == nil || !strings.Contains(err.Error(), "2 of 2 MCP servers failed") {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "ollm mcp login secure") {
		t.Fatalf("list before login:\n%s", out)
	}

	// login prints the page and starts the browser when a terminal is there.
	b := &mcptest.Browser{}
	io.StdinTTY = true
	o := newMCPLoginOptions(f)
	o.OpenURL, o.Name, o.Timeout = browserOpener(io, b.Open), "secure", time.Minute
	out.Reset()
	if err := mcpLoginRun(o); err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	tokenFile := filepath.Join(home, "tokens", "secure.json")
	if !strings.Contains(out.String(), "logged in to MCP server secure; tokens stored in "+tokenFile) ||
		!strings.Contains(errOut.String(), "To authorize ollm, open this page:\n\n  "+as.URL()+"/authorize?") || len(b.Opened()) != 1 {
		t.Fatalf("stdout %q\nstderr %q", out, errOut)
	}
	if fi, err := os.Stat(tokenFile); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v %v", fi, err)
	}

	io.StdinTTY = false
	out.Reset()
	if err := mcpListRun(newMCPOptions(f)); err == nil || !strings.Contains(err.Error(), "1 of 2 MCP servers failed (local)") {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "secure  ready") {
		t.Errorf("list after login:\n%s", out)
	}

	o.Name = "local"
	var fe *FlagError
	if err := mcpLoginRun(o); !errors.As(err, &fe) || !strings.Contains(err.Error(), "stdio") {
		t.Errorf("login to a stdio server: %v", err)
	}
	o.Name = "nosuch"
	if err := mcpLoginRun(o); !errors.As(err, &fe) || !strings.Contains(err.Error(), `no MCP server "nosuch"`) {
		t.Errorf("login to an unknown server: %v", err)
	}

	o.Name = "secure"
	out.Reset()
	if err := mcpLogoutRun(o); err != nil || !strings.Contains(out.String(), "logged out of MCP server secure") ||
		!strings.Contains(out.String(), "revoked the refresh token and the access token at "+as.URL()+"/revoke\n") {
		t.Fatalf("logout: %v %q", err, out)
	}
	if h := as.Revocations(); len(h) != 2 {
		t.Errorf("revocation requests: %v", h)
	}
	if _, err := os.Stat(tokenFile); !os.IsNotExist(err) {
		t.Errorf("token file after logout: %v", err)
	}
	out.Reset()
	if err := mcpLogoutRun(o); err != nil || !strings.Contains(out.String(), "no tokens stored for MCP server secure") {
		t.Errorf("second logout: %v %q", err, out)
	}
	if p := mcp.TokenPath(filepath.Join(home, "tokens"), "secure"); p != tokenFile {
		t.Errorf("TokenPath %s", p)
	}
}

// An ad-hoc --url server: a call without a login says to run
// `ollm mcp login --url URL`; after that login the call works without a
// terminal. A client_credentials login needs no browser at all.
func TestMCPLoginURL(t *testing.T) {
	as := mcptest.NewAuthServerWith(t, mcptest.AuthOptions{Clients: map[string]string{"svc": "s3cret"}})
	url := mcptest.StartProtectedServer(t, as)
	home := t.TempDir()
	io, _, out, errOut := TestIO()
	f := &Factory{IO: io, Context: context.Background(), Getenv: func(k string) string {
		if k == "OLLM_HOME" {
			return home
		}
		return ""
	}, Environ: func() []string { return append(os.Environ(), "SVC_SECRET=s3cret") }, Getwd: os.Getwd, Now: time.Now}

	call := newMCPOptions(f)
	call.URL = url
	err := mcpCallRun(call, adHocName, "echo", `{"text":"hi"}`)
	if err == nil || !strings.Contains(err.Error(), "run in a terminal: ollm mcp login --url "+url) {
		t.Fatalf("call before login: %v", err)
	}

	b := &mcptest.Browser{}
	o := newMCPLoginOptions(f)
	o.URL, o.OpenURL, o.Timeout, o.Grant = url, b.Open, time.Minute, mcp.GrantAuthorizationCode
	if err := mcpLoginRun(o); err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	if !strings.Contains(out.String(), "logged in to MCP server "+url+"; tokens stored in "+filepath.Join(home, "tokens")) || len(b.Opened()) != 1 {
		t.Fatalf("login: %q, browser %d", out, len(b.Opened()))
	}
	out.Reset()
	if err := mcpCallRun(newURLOptions(f, url), adHocName, "echo", `{"text":"after login"}`); err != nil || strings.TrimSpace(out.String()) != "after login" {
		t.Fatalf("call after login: %v %q", err, out)
	}

	// client_credentials, into another OLLM_HOME: no browser.
	home = t.TempDir()
	o = newMCPLoginOptions(f)
	o.URL, o.Grant, o.ClientID, o.ClientSecretEnv = url, mcp.GrantClientCredentials, "svc", "SVC_SECRET"
	o.OpenURL = func(string) error { t.Fatal("client_credentials opened a browser"); return nil }
	if err := mcpLoginRun(o); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := mcpCallRun(newURLOptions(f, url), adHocName, "echo", `{"text":"machine"}`); err != nil || strings.TrimSpace(out.String()) != "machine" {
		t.Fatalf("call with client credentials: %v %q", err, out)
	}
	if as.CredentialGrants() != 1 {
		t.Errorf("%d client_credentials grants", as.CredentialGrants())
	}

	lo := newMCPLoginOptions(f)
	lo.URL = url
	out.Reset()
	if err := mcpLogoutRun(lo); err != nil || !strings.Contains(out.String(), "logged out of MCP server "+url) {
		t.Fatalf("logout --url: %v %q", err, out)
	}
	err = mcpCallRun(newURLOptions(f, url), adHocName, "echo", `{"text":"x"}`)
	if err == nil || !strings.Contains(err.Error(), "ollm mcp login --url "+url) {
		t.Fatalf("call after logout: %v", err)
	}
}

func newURLOptions(f *Factory, url string) *MCPOptions {
	o := newMCPOptions(f)
	o.URL = url
	return o
}

// Profile fields: oauth with the client_credentials grant needs no login
// at all (the first 401 fetches a token with the client's secret from the
// environment), and roots replace the workspace as the server's roots.
func TestMCPProfileOAuthAndRoots(t *testing.T) {
	as := mcptest.NewAuthServerWith(t, mcptest.AuthOptions{Clients: map[string]string{"svc": "s3cret"}})
	url := mcptest.StartProtectedServer(t, as)
	home, ws := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(ws, "docs"), 0o755)
	profile := `mcp: servers: {
	secure: {transport: "http", url: "` + url + `", oauth: {clientId: "svc", clientSecretEnv: "SVC_SECRET", grant: "client_credentials", scopes: ["mcp"]}}
	ev: {command: "node", args: ["` + everythingScript(t) + `", "stdio"], roots: ["docs"]}
}
`
	if err := os.WriteFile(filepath.Join(home, "profile.cue"), []byte(profile), 0o644); err != nil {
		t.Fatal(err)
	}
	io, _, out, errOut := TestIO()
	f := &Factory{IO: io, Context: context.Background(), Getenv: func(k string) string {
		if k == "OLLM_HOME" {
			return home
		}
		return ""
	}, Environ: func() []string { return append(os.Environ(), "SVC_SECRET=s3cret") }, Getwd: func() (string, error) { return ws, nil }, Now: time.Now}
	if err := mcpCallRun(newMCPOptions(f), "secure", "echo", `{"text":"no login"}`); err != nil || strings.TrimSpace(out.String()) != "no login" {
		t.Fatalf("secure: %v %q %s", err, out, errOut)
	}
	out.Reset()
	if err := mcpCallRun(newMCPOptions(f), "ev", "get-roots-list", `{}`); err != nil || !strings.Contains(out.String(), "URI: file://"+filepath.Join(ws, "docs")+"\n") || !strings.Contains(out.String(), "(1 total)") {
		t.Fatalf("roots: %v %q %s", err, out, errOut)
	}
}
