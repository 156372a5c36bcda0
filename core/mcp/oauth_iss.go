package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
)

// issCheck is what RFC 9207 asks of an authorization response: when the
// authorization server's metadata say it sends iss
// (authorization_response_iss_parameter_supported), the response must
// carry it; when it carries one (advertised or not), it must be the
// issuer ollm sent the user to, compared as a string (no slash or case
// normalisation). A response that fails either comes from, or was meant
// for, another authorization server (the mix-up attack); its code is not
// exchanged.
type issCheck struct {
	issuer   string
	required bool
}

func (c issCheck) check(q url.Values) error {
	got, present := q["iss"]
	if !present {
		if c.required {
			return fmt.Errorf("the authorization response carries no iss, though the authorization server's metadata say it sends one (RFC 9207): expected issuer %q, received none; a response from another authorization server (mix-up attack) is refused, nothing was stored", c.issuer)
		}
		return nil
	}
	if len(got) != 1 || got[0] != c.issuer {
		return fmt.Errorf("the authorization response names issuer %q, not %q, the authorization server ollm sent you to (RFC 9207 iss check, the mix-up attack defence); nothing was stored", strings.Join(got, ","), c.issuer)
	}
	return nil
}

// metadataWatch sits in front of a login's HTTP client and notes, from
// every authorization server metadata document fetched (mcp-go's
// discovery does not keep the field), whether the issuer says it sends
// iss in authorization responses.
type metadataWatch struct {
	base http.RoundTripper
	mu   sync.Mutex
	iss  map[string]bool // issuer → authorization_response_iss_parameter_supported
	// dpop: issuer → dpop_signing_alg_values_supported (RFC 9449 §5.1)
	dpop map[string][]string
	// register is the registration endpoint whose requests get
	// "application_type": "native" (mcp-go's registration sends none).
	register string
	// seen: well-known URL → its answer, so that a login asks for each
	// metadata document once (ollm reads protected resource metadata for
	// their scopes_supported before mcp-go's discovery reads them again).
	seen map[string]seenAnswer
}

// seenAnswer is an answer to a GET of a well-known URL.
type seenAnswer struct {
	status int
	header http.Header
	body   []byte
}

func (a seenAnswer) response(req *http.Request) *http.Response {
	return &http.Response{StatusCode: a.status, Status: fmt.Sprintf("%d %s", a.status, http.StatusText(a.status)),
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Header: a.header.Clone(),
		Body: io.NopCloser(bytes.NewReader(a.body)), ContentLength: int64(len(a.body)), Request: req}
}

// nativeAt makes registration requests to endpoint say that ollm is a
// native application (OpenID Connect registration's application_type,
// which the MCP spec asks clients to send; the redirect is a loopback
// URI).
func (w *metadataWatch) nativeAt(endpoint string) {
	w.mu.Lock()
	w.register = endpoint
	w.mu.Unlock()
}

// native adds application_type to a registration request's JSON body.
func native(req *http.Request) *http.Request {
	data, err := io.ReadAll(io.LimitReader(req.Body, 1<<20))
	_ = req.Body.Close()
	var body map[string]any
	if err != nil || json.Unmarshal(data, &body) != nil {
		r := req.Clone(req.Context())
		r.Body = io.NopCloser(bytes.NewReader(data))
		return r
	}
	if _, ok := body["application_type"]; !ok {
		body["application_type"] = "native"
	}
	data, _ = json.Marshal(body)
	r := req.Clone(req.Context())
	r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(data)), int64(len(data))
	return r
}

// watchMetadata is client with a metadataWatch in front.
func watchMetadata(client *http.Client) (*http.Client, *metadataWatch) {
	c := *client
	base := c.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	w := &metadataWatch{base: base, iss: map[string]bool{}, dpop: map[string][]string{}}
	c.Transport = w
	return &c, w
}

func (w *metadataWatch) RoundTrip(req *http.Request) (*http.Response, error) {
	w.mu.Lock()
	reg := w.register
	w.mu.Unlock()
	if reg != "" && req.Method == http.MethodPost && req.URL.String() == reg && req.Body != nil {
		req = native(req)
	}
	wellKnown := req.Method == http.MethodGet && strings.Contains(req.URL.Path, "/.well-known/")
	if wellKnown {
		w.mu.Lock()
		a, ok := w.seen[req.URL.String()]
		w.mu.Unlock()
		if ok {
			return a.response(req), nil
		}
	}
	resp, err := w.base.RoundTrip(req)
	if err != nil || !wellKnown {
		return resp, err
	}
	body, rerr := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	_ = resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if rerr != nil {
		return resp, nil
	}
	w.mu.Lock()
	if w.seen == nil {
		w.seen = map[string]seenAnswer{}
	}
	w.seen[req.URL.String()] = seenAnswer{status: resp.StatusCode, header: resp.Header.Clone(), body: body}
	w.mu.Unlock()
	if resp.StatusCode != http.StatusOK {
		return resp, nil
	}
	var md struct {
		Issuer        string   `json:"issuer"`
		Authorization string   `json:"authorization_endpoint"`
		Token         string   `json:"token_endpoint"`
		IssSupported  bool     `json:"authorization_response_iss_parameter_supported"`
		DPoPAlgs      []string `json:"dpop_signing_alg_values_supported"`
	}
	if json.Unmarshal(body, &md) == nil && md.Issuer != "" && (md.Authorization != "" || md.Token != "") {
		w.mu.Lock()
		w.iss[md.Issuer] = md.IssSupported
		w.dpop[md.Issuer] = md.DPoPAlgs
		w.mu.Unlock()
	}
	return resp, nil
}

// issSupported reports whether issuer's metadata promised iss.
func (w *metadataWatch) issSupported(issuer string) bool {
	if w == nil {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.iss[issuer]
}

// dpopAlgs is issuer's dpop_signing_alg_values_supported, nil when its
// metadata have none (no DPoP there).
func (w *metadataWatch) dpopAlgs(issuer string) []string {
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.dpop[issuer]
}
