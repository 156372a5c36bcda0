package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ollm/ollm/core/mcp/mcptest"
)

// `ollm mcp login --url U --id-token-file -` logs in by cross-app access
// with the ID token on stdin (never on the command line) and the secrets
// from the environment; the call then works without a terminal, and the
// token file does not hold the ID token.
func TestMCPLoginCrossApp(t *testing.T) {
	idp := mcptest.NewIdP(t, mcptest.IdPOptions{ClientID: "ollm-idp", ClientSecret: "idp-s3cret", ASClientID: "ollm-xaa"})
	as := mcptest.NewAuthServerWith(t, mcptest.AuthOptions{NoRegistration: true, Clients: map[string]string{"ollm-xaa": "xaa-s3cret"}, TrustIdP: idp})
	url := mcptest.StartProtectedServer(t, as)
	home := t.TempDir()
	io, in, out, _ := TestIO()
	f := &Factory{IO: io, Context: context.Background(), Getenv: func(k string) string {
		if k == "OLLM_HOME" {
			return home
		}
		return ""
	}, Environ: func() []string { return append(os.Environ(), "IDP_SECRET=idp-s3cret", "XAA_SECRET=xaa-s3cret") }, Getwd: os.Getwd, Now: time.Now}

	idToken := idp.IDToken("alice@example.com", time.Hour)
	in.WriteString(idToken + "\n")
	o := newMCPLoginOptions(f)
	o.URL, o.IDTokenFile, o.IdPIssuer, o.IdPClientID, o.IdPClientSecretEnv = url, "-", idp.Issuer(), "ollm-idp", "IDP_SECRET"
	o.ClientID, o.ClientSecretEnv = "ollm-xaa", "XAA_SECRET"
	o.OpenURL = func(string) error { t.Fatal("cross-app access opened a browser"); return nil }
	if err := mcpLoginRun(o); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := mcpCallRun(newURLOptions(f, url), adHocName, "echo", `{"text":"cross-app"}`); err != nil || strings.TrimSpace(out.String()) != "cross-app" {
		t.Fatalf("call: %v %q", err, out)
	}
	files, _ := filepath.Glob(filepath.Join(home, "tokens", "*.json"))
	for _, p := range files {
		if data, _ := os.ReadFile(p); strings.Contains(string(data), idToken) {
			t.Errorf("%s holds the ID token", p)
		}
	}
	if len(files) != 1 || len(idp.Exchanges()) != 1 {
		t.Errorf("token files %q, exchanges %d", files, len(idp.Exchanges()))
	}

	o = newMCPLoginOptions(f)
	o.URL, o.IDTokenFile, o.IdPClientID = url, "-", "ollm-idp"
	if err := mcpLoginRun(o); err == nil || !strings.Contains(err.Error(), "--id-token-file needs --client-id") {
		t.Errorf("without --client-id: %v", err)
	}
}
