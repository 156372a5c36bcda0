package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/mark3labs/mcp-go/client/transport"
)

// Client ID metadata documents (MCP 2025-11-25 client registration;
// draft-ietf-oauth-client-id-metadata-document): the client's id is an
// HTTPS URL and the authorization server fetches the client's metadata
// from it. ollm does not host the document; the user names it
// (oauth.metadataUrl, --client-metadata-url), and before sending anyone
// to the browser ollm checks what the spec asks of each side.

// metadataDocument decides whether the login uses the configured client
// ID metadata document. The URL must be https with a path (http is
// accepted on a loopback host, for local authorization servers); the
// authorization server must advertise client_id_metadata_document_supported
// (when it does not, false: ollm falls back to dynamic registration where
// the server offers it, as the spec's order says, else an error); and the
// document must name the URL as its client_id and allow ollm's loopback
// redirect URI.
func (fl *loginFlow) metadataDocument(ctx context.Context, md *transport.AuthServerMetadata, rec *tokenRecord) (bool, error) {
	doc := fl.oauth.MetadataURL
	if err := checkDocumentURL(doc); err != nil {
		return false, err
	}
	supported, err := cimdSupported(ctx, fl.client, md, rec.AuthServerMetadata)
	if err != nil {
		return false, err
	}
	if !supported {
		if md.RegistrationEndpoint != "" {
			return false, nil
		}
		return false, fmt.Errorf("the authorization server %s does not advertise client ID metadata documents (client_id_metadata_document_supported) and offers no dynamic registration; register ollm there and log in with --client-id", md.Issuer)
	}
	err = verifyDocument(ctx, fl.client, doc, rec.RedirectURI)
	var unreachable *documentUnreachable
	if errors.As(err, &unreachable) && ctx.Err() == nil {
		// The authorization server fetches the document, not ollm: one
		// ollm cannot reach (a name that does not resolve here, a proxy)
		// may be there for it. What ollm can read it checks; this it
		// cannot, and says so.
		fl.warn(fmt.Sprintf("could not check the client metadata document (%v); using it as the client id all the same: the authorization server fetches it", unreachable.err))
		return true, nil
	}
	return true, err
}

// documentUnreachable: ollm could not fetch the client ID metadata
// document at all (no answer, as opposed to a wrong one).
type documentUnreachable struct{ err error }

func (e *documentUnreachable) Error() string { return e.err.Error() }

// checkDocumentURL: a client ID metadata document URL is https and has
// a path (the draft's client_id rules); http only on a loopback host.
func checkDocumentURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return fmt.Errorf("client metadata URL %q is not a URL", raw)
	}
	if u.Scheme != "https" && !(u.Scheme == "http" && isLoopback(u.Hostname())) {
		return fmt.Errorf("client metadata URL %s must use https (the client id of a metadata document is an https URL)", raw)
	}
	if u.Path == "" || u.Path == "/" || u.Fragment != "" {
		return fmt.Errorf("client metadata URL %s must have a path and no fragment", raw)
	}
	return nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// cimdSupported reads client_id_metadata_document_supported from the
// authorization server's metadata document (mcp-go's metadata type does
// not carry it): the URL found at discovery, else the RFC 8414 and
// OpenID locations of the issuer. Metadata that are the 2025-03-26
// default endpoints (no document) support nothing.
func cimdSupported(ctx context.Context, client *http.Client, md *transport.AuthServerMetadata, found string) (bool, error) {
	if isDefaultEndpoints(md) {
		return false, nil
	}
	for _, u := range metadataLocations(md.Issuer, found) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err != nil {
			continue
		}
		req.Header.Set("Accept", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			if ctx.Err() != nil {
				return false, ctx.Err()
			}
			continue
		}
		var m struct {
			Issuer    string `json:"issuer"`
			Supported bool   `json:"client_id_metadata_document_supported"`
		}
		err = json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&m)
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK && err == nil && m.Issuer == md.Issuer {
			return m.Supported, nil
		}
	}
	return false, nil
}

// metadataLocations are where an issuer's metadata may be (RFC 8414 §3
// with the path inserted, OpenID Connect Discovery both ways), the one
// found at discovery first.
func metadataLocations(issuer, found string) []string {
	var out []string
	if found != "" {
		out = append(out, found)
	}
	u, err := url.Parse(issuer)
	if err != nil || u.Host == "" {
		return out
	}
	origin, path := u.Scheme+"://"+u.Host, strings.TrimSuffix(u.Path, "/")
	return append(out, origin+"/.well-known/oauth-authorization-server"+path,
		origin+"/.well-known/openid-configuration"+path, origin+path+"/.well-known/openid-configuration")
}

// verifyDocument fetches the client ID metadata document and checks what
// the authorization server will: its client_id is the URL itself, and a
// redirect URI it lists matches ollm's loopback callback (any port, RFC
// 8252 §7.3).
func verifyDocument(ctx context.Context, client *http.Client, doc, redirect string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, doc, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return &documentUnreachable{fmt.Errorf("fetching the client metadata document %s: %w", doc, err)}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("the client metadata document %s answered HTTP %d", doc, resp.StatusCode)
	}
	var d struct {
		ClientID     string   `json:"client_id"`
		RedirectURIs []string `json:"redirect_uris"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&d); err != nil {
		return fmt.Errorf("the client metadata document %s is not JSON: %w", doc, err)
	}
	if d.ClientID != doc {
		return fmt.Errorf("the client metadata document %s names client_id %q; it must be its own URL", doc, d.ClientID)
	}
	want, err := url.Parse(redirect)
	if err != nil {
		return err
	}
	for _, r := range d.RedirectURIs {
		u, err := url.Parse(r)
		if err == nil && u.Scheme == "http" && isLoopback(u.Hostname()) && u.Path == want.Path {
			return nil
		}
	}
	return fmt.Errorf("the client metadata document %s lists no loopback redirect URI for ollm (redirect_uris %v); add \"http://127.0.0.1%s\"", doc, d.RedirectURIs, want.Path)
}
