package mcp

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
)

// DPoP (RFC 9449): where the authorization server's metadata list
// dpop_signing_alg_values_supported with ES256, or the server's challenge
// uses the DPoP scheme, ollm makes an ES256 key pair for the server, kept
// in its token record (0600) and never logged, and proves possession of
// it with a fresh proof JWT on every token request and every request to
// the server. A token bound to the key (token_type DPoP, or cnf.jkt in a
// JWT access token) goes out as "Authorization: DPoP <token>" only, never
// as a bearer token.

// dpopKey is a server's DPoP key pair.
type dpopKey struct {
	priv *ecdsa.PrivateKey
	jwk  map[string]string // the public key (RFC 7517), for the proof header
	jkt  string            // its RFC 7638 thumbprint, base64url
}

func newDPoPKey() (*dpopKey, error) {
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	return dpopKeyOf(priv), nil
}

func dpopKeyOf(priv *ecdsa.PrivateKey) *dpopKey {
	b := make([]byte, 64)
	priv.X.FillBytes(b[:32])
	priv.Y.FillBytes(b[32:])
	x, y := base64.RawURLEncoding.EncodeToString(b[:32]), base64.RawURLEncoding.EncodeToString(b[32:])
	// RFC 7638: the required members, lexicographic order, no spaces.
	sum := sha256.Sum256([]byte(`{"crv":"P-256","kty":"EC","x":"` + x + `","y":"` + y + `"}`))
	return &dpopKey{priv: priv, jwk: map[string]string{"kty": "EC", "crv": "P-256", "x": x, "y": y},
		jkt: base64.RawURLEncoding.EncodeToString(sum[:])}
}

// encode is the private key as stored in the token record: PKCS#8 DER,
// base64url.
func (k *dpopKey) encode() string {
	der, err := x509.MarshalPKCS8PrivateKey(k.priv)
	if err != nil {
		return ""
	}
	return base64.RawURLEncoding.EncodeToString(der)
}

func parseDPoPKey(s string) (*dpopKey, error) {
	der, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, errors.New("the stored DPoP key is not base64url")
	}
	k, err := x509.ParsePKCS8PrivateKey(der)
	if err != nil {
		return nil, errors.New("the stored DPoP key is not a PKCS#8 key")
	}
	ec, ok := k.(*ecdsa.PrivateKey)
	if !ok || ec.Curve != elliptic.P256() {
		return nil, errors.New("the stored DPoP key is not an EC P-256 key")
	}
	return dpopKeyOf(ec), nil
}

// proof is a DPoP proof JWT (RFC 9449 §4.2) for one request: typ
// dpop+jwt, the public key in the header, a fresh jti, the method and the
// URL without query and fragment, the time, the server's nonce when it
// gave one, and on a request carrying an access token its hash (ath).
func (k *dpopKey) proof(method string, u *url.URL, accessToken, nonce string) (string, error) {
	jti := make([]byte, 16)
	if _, err := rand.Read(jti); err != nil {
		return "", err
	}
	claims := map[string]any{"jti": base64.RawURLEncoding.EncodeToString(jti), "htm": method,
		"htu": htu(u), "iat": time.Now().Unix()}
	if accessToken != "" {
		sum := sha256.Sum256([]byte(accessToken))
		claims["ath"] = base64.RawURLEncoding.EncodeToString(sum[:])
	}
	if nonce != "" {
		claims["nonce"] = nonce
	}
	h, _ := json.Marshal(map[string]any{"typ": "dpop+jwt", "alg": "ES256", "jwk": k.jwk})
	c, _ := json.Marshal(claims)
	signing := base64.RawURLEncoding.EncodeToString(h) + "." + base64.RawURLEncoding.EncodeToString(c)
	sum := sha256.Sum256([]byte(signing))
	r, s, err := ecdsa.Sign(rand.Reader, k.priv, sum[:])
	if err != nil {
		return "", err
	}
	sig := make([]byte, 64)
	r.FillBytes(sig[:32])
	s.FillBytes(sig[32:])
	return signing + "." + base64.RawURLEncoding.EncodeToString(sig), nil
}

// htu is a request's URL without query and fragment (RFC 9449 §4.2).
func htu(u *url.URL) string {
	c := *u
	c.RawQuery, c.Fragment, c.RawFragment, c.User = "", "", "", nil
	return c.String()
}

// dpopBound reports whether a token is bound to a DPoP key: the
// authorization server said token_type DPoP, or the access token is a JWT
// with a cnf.jkt confirmation (RFC 9449 §6.1). Such a token is never sent
// as a bearer token.
func dpopBound(tok transport.Token) bool {
	return strings.EqualFold(tok.TokenType, "DPoP") || jwtConfirmation(tok.AccessToken) != ""
}

// jwtConfirmation is the cnf.jkt of a JWT access token, "" for another
// token (the client does not verify it: the server does).
func jwtConfirmation(token string) string {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return ""
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return ""
	}
	var c struct {
		Cnf struct {
			Jkt string `json:"jkt"`
		} `json:"cnf"`
	}
	if json.Unmarshal(payload, &c) != nil {
		return ""
	}
	return c.Cnf.Jkt
}

// dpopWanted reports whether a login should use DPoP: the authorization
// server's metadata list ES256 among dpop_signing_alg_values_supported,
// or the server's challenge uses the DPoP scheme (RFC 9449 §7.1). A list
// without ES256 (the only algorithm ollm signs with) is not used.
func dpopWanted(algs []string, challenge string) bool {
	if slices.Contains(algs, "ES256") {
		return true
	}
	return len(algs) == 0 && challengeScheme(challenge, "DPoP")
}

// challengeScheme reports whether a WWW-Authenticate value has a
// challenge with the auth scheme (case-insensitive).
func challengeScheme(challenge, scheme string) bool {
	for _, part := range strings.Split(challenge, ",") {
		f := strings.Fields(part)
		if len(f) > 0 && strings.EqualFold(f[0], scheme) && (len(f) > 1 || !strings.Contains(f[0], "=")) {
			return true
		}
	}
	return false
}

// maxNonceRetries bounds the retries a use_dpop_nonce answer gets: one
// per request (a server that keeps asking gets its refusal passed on).
const maxNonceRetries = 1

// dpopNonces are the last nonces each server gave (DPoP-Nonce), keyed by
// origin: the next proof to that server carries it (RFC 9449 §8, §9).
type dpopNonces struct {
	mu sync.Mutex
	by map[string]string
}

func (n *dpopNonces) get(u *url.URL) string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.by[u.Scheme+"://"+u.Host]
}

// note keeps the nonce a response carries.
func (n *dpopNonces) note(u *url.URL, resp *http.Response) string {
	v := resp.Header.Get("DPoP-Nonce")
	if v == "" {
		return ""
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.by == nil {
		n.by = map[string]string{}
	}
	n.by[u.Scheme+"://"+u.Host] = v
	return v
}

// dpopTokenTransport adds a DPoP proof to the token requests of a login,
// a refresh or a grant: POSTs to the bound token endpoint. A token
// endpoint that answers use_dpop_nonce with a DPoP-Nonce (RFC 9449 §8)
// gets the request once more with that nonce. Before bind, or for any
// other request, it passes requests through.
type dpopTokenTransport struct {
	base   http.RoundTripper
	nonces dpopNonces

	mu       sync.Mutex
	key      *dpopKey
	endpoint string
}

// withDPoP is client with a dpopTokenTransport in front.
func withDPoP(client *http.Client) (*http.Client, *dpopTokenTransport) {
	c := *client
	base := c.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	d := &dpopTokenTransport{base: base}
	c.Transport = d
	return &c, d
}

// bind makes token requests to endpoint carry proofs with key.
func (d *dpopTokenTransport) bind(key *dpopKey, endpoint string) {
	if u, err := url.Parse(endpoint); err == nil {
		endpoint = htu(u)
	}
	d.mu.Lock()
	d.key, d.endpoint = key, endpoint
	d.mu.Unlock()
}

func (d *dpopTokenTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	d.mu.Lock()
	key, endpoint := d.key, d.endpoint
	d.mu.Unlock()
	if key == nil || req.Method != http.MethodPost || htu(req.URL) != endpoint {
		return d.base.RoundTrip(req)
	}
	for try := 0; ; try++ {
		r := req.Clone(req.Context())
		if try > 0 {
			body, ok := replayBody(req)
			if !ok {
				return nil, errors.New("the token endpoint asked for a DPoP nonce and the request cannot be sent again")
			}
			r.Body = body
		}
		p, err := key.proof(http.MethodPost, req.URL, "", d.nonces.get(req.URL))
		if err != nil {
			return nil, fmt.Errorf("making a DPoP proof: %w", err)
		}
		r.Header.Set("DPoP", p)
		resp, err := d.base.RoundTrip(r)
		if err != nil {
			return resp, err
		}
		nonce := d.nonces.note(req.URL, resp)
		if try >= maxNonceRetries || nonce == "" || resp.StatusCode != http.StatusBadRequest && resp.StatusCode != http.StatusUnauthorized {
			return resp, nil
		}
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		_ = resp.Body.Close()
		var e struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(body, &e) != nil || e.Error != "use_dpop_nonce" {
			resp.Body = io.NopCloser(bytes.NewReader(body))
			return resp, nil
		}
	}
}
