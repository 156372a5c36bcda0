package mcp

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ollm/ollm/core/mcp/mcptest"
)

// serveDocument serves a client ID metadata document naming clientID
// (the document's own URL when "") and one redirect URI; it returns the
// document's URL.
func serveDocument(t *testing.T, clientID, redirect string) string {
	var docURL string
	doc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := clientID
		if id == "" {
			id = docURL
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"client_id": %q, "client_name": "ollm", "redirect_uris": [%q], "token_endpoint_auth_method": "none"}`, id, redirect)
	}))
	t.Cleanup(doc.Close)
	docURL = doc.URL + "/ollm.json"
	return docURL
}

// The spec's order: a metadata document is used only when the
// authorization server advertises client_id_metadata_document_supported;
// otherwise ollm registers itself where it can, and says what to do
// where it cannot.
func TestOAuthMetadataDocumentNotAdvertised(t *testing.T) {
	docURL := serveDocument(t, "", "http://127.0.0.1/callback")

	as := mcptest.NewAuthServer(t) // registration, no metadata documents
	spec := secureSpec(mcptest.StartProtectedServer(t, as))
	spec.OAuth = &OAuthClient{MetadataURL: docURL}
	tokens := t.TempDir()
	if _, err := login(t, spec, tokens); err != nil {
		t.Fatal(err)
	}
	if rec, _ := readRecord(t, tokens); rec.ClientID == docURL || rec.PreRegistered {
		t.Errorf("record %+v: want a registered client", rec)
	}
	if reg, _, _, _ := as.Counts(); reg != 1 {
		t.Errorf("%d registrations, want 1", reg)
	}

	none := mcptest.NewAuthServerWith(t, mcptest.AuthOptions{NoRegistration: true})
	spec = secureSpec(mcptest.StartProtectedServer(t, none))
	spec.OAuth = &OAuthClient{MetadataURL: docURL}
	b, err := login(t, spec, t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "does not advertise client ID metadata documents (client_id_metadata_document_supported) and offers no dynamic registration; register ollm there and log in with --client-id") || len(b.Opened()) != 0 {
		t.Errorf("%v (browser %v)", err, b.Opened())
	}
}

// A document the authorization server would refuse is caught before the
// browser opens: its client_id is not its URL, or it lists no loopback
// redirect URI.
func TestOAuthMetadataDocumentVerified(t *testing.T) {
	as := mcptest.NewAuthServerWith(t, mcptest.AuthOptions{NoRegistration: true, MetadataDocuments: true})
	u := mcptest.StartProtectedServer(t, as)
	for _, c := range []struct{ doc, want string }{
		{serveDocument(t, "https://elsewhere.example/ollm.json", "http://127.0.0.1/callback"), `names client_id "https://elsewhere.example/ollm.json"; it must be its own URL`},
		{serveDocument(t, "", "https://ollm.example/callback"), `lists no loopback redirect URI for ollm (redirect_uris [https://ollm.example/callback]); add "http://127.0.0.1/callback"`},
	} {
		spec := secureSpec(u)
		spec.OAuth = &OAuthClient{MetadataURL: c.doc}
		b, err := login(t, spec, t.TempDir())
		if err == nil || !strings.Contains(err.Error(), "the client metadata document "+c.doc+" ") || !strings.Contains(err.Error(), c.want) || len(b.Opened()) != 0 {
			t.Errorf("%v (browser %v)", err, b.Opened())
		}
	}
}

func TestCheckDocumentURL(t *testing.T) {
	for _, c := range []struct{ url, err string }{
		{"https://ollm.example/client.json", ""},
		{"http://127.0.0.1:8080/client.json", ""},
		{"http://ollm.example/client.json", "must use https"},
		{"https://ollm.example/", "must have a path"},
		{"https://ollm.example/c.json#x", "must have a path and no fragment"},
		{"ollm.example/c.json", "is not a URL"},
	} {
		err := checkDocumentURL(c.url)
		if (c.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%s: %v, want %q", c.url, err, c.err)
		}
	}
}

// A document ollm cannot fetch (its name does not resolve here) but the
// authorization server can is used all the same, with a warning: the
// authorization server is the one that fetches it. One ollm fetches and
// finds wrong still stops the login (TestOAuthMetadataDocumentVerified).
func TestOAuthMetadataDocumentUnreachableHere(t *testing.T) {
	as := mcptest.NewAuthServerWith(t, mcptest.AuthOptions{NoRegistration: true, MetadataDocuments: true})
	spec := secureSpec(mcptest.StartProtectedServer(t, as))
	docURL := serveDocument(t, "", "http://127.0.0.1/callback")
	spec.OAuth = &OAuthClient{MetadataURL: docURL}
	docHost := strings.TrimPrefix(strings.TrimSuffix(docURL, "/ollm.json"), "http://")
	dialer := &net.Dialer{}
	client := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		if addr == docHost {
			return nil, &net.DNSError{Err: "no such host", Name: "docs.example", IsNotFound: true}
		}
		return dialer.DialContext(ctx, network, addr)
	}}}
	var warnings []string
	tokens := t.TempDir()
	b := &mcptest.Browser{}
	err := Login(context.Background(), spec, LoginOptions{TokenDir: tokens, OpenURL: b.Open, Timeout: 20 * time.Second, HTTPClient: client,
		Warn: func(msg string) { warnings = append(warnings, msg) }})
	if err != nil {
		t.Fatalf("%v (browser %q)", err, b.Pages())
	}
	if rec, _ := readRecord(t, tokens); rec.ClientID != docURL {
		t.Errorf("client id %q, want the document's URL", rec.ClientID)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], `MCP server "secure": could not check the client metadata document (fetching the client metadata document `+docURL) ||
		!strings.Contains(warnings[0], "the authorization server fetches it") {
		t.Errorf("warnings %q", warnings)
	}
}
