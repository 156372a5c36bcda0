package mcp

import (
	"os"
	"strings"
	"testing"

	"github.com/ollm/ollm/core/mcp/mcptest"
)

// TestOAuthIssuerInResponse: RFC 9207. An authorization response whose iss
// is missing where the metadata promised it, or is not the issuer exactly
// (another server, a trailing slash), is refused before the code is
// exchanged, naming the issuer expected and the one received; a correct
// iss, or none where none was promised, logs in.
func TestOAuthIssuerInResponse(t *testing.T) {
	wrong := func(string) string { return "https://evil.example" }
	slash := func(iss string) string { return iss + "/" }
	same := func(iss string) string { return iss }
	for _, c := range []struct {
		name       string
		advertised bool
		iss        func(string) string
		want       string // "" accepted, else part of the error
	}{
		{"advertised and missing", true, nil, `expected issuer "%s", received none`},
		{"advertised and wrong", true, wrong, `names issuer "https://evil.example", not "%s"`},
		{"unadvertised and wrong", false, wrong, `names issuer "https://evil.example", not "%s"`},
		{"advertised with a trailing slash", true, slash, `names issuer "%s/", not "%s"`},
		{"unadvertised with a trailing slash", false, slash, `names issuer "%s/", not "%s"`},
		{"advertised and correct", true, same, ""},
		{"unadvertised and correct", false, same, ""},
		{"unadvertised and missing", false, nil, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			as := mcptest.NewAuthServerWith(t, mcptest.AuthOptions{IssSupported: c.advertised, Iss: c.iss})
			u := mcptest.StartProtectedServer(t, as)
			tokens := t.TempDir()
			b, err := login(t, secureSpec(u), tokens)
			_, exchanges, _, _ := as.Counts()
			if c.want == "" {
				if err != nil || exchanges != 1 {
					t.Fatalf("refused: %v (exchanges %d)", err, exchanges)
				}
				return
			}
			want := strings.ReplaceAll(c.want, "%s", as.Issuer())
			if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "RFC 9207") {
				t.Fatalf("err %v, want %q", err, want)
			}
			if exchanges != 0 {
				t.Errorf("the code was exchanged %d times", exchanges)
			}
			if _, err := os.Stat(tokenPath(tokens, "secure")); !os.IsNotExist(err) {
				t.Errorf("token file written: %v", err)
			}
			if p := b.Pages(); len(p) != 1 || !strings.Contains(p[0], "could not log in") {
				t.Errorf("browser page %q", p)
			}
		})
	}
}
