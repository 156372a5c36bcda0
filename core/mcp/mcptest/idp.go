package mcptest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// IdP is an enterprise identity provider on loopback for cross-app access
// (enterprise-managed authorization): OpenID Connect metadata and a token
// endpoint that takes the RFC 8693 token exchange of an ID token it
// issued (IDToken) for an identity assertion JWT authorization grant
// (ID-JAG, typ oauth-id-jag+jwt) for an audience and a resource.
type IdP struct {
	srv  *httptest.Server
	key  *ecdsa.PrivateKey
	opts IdPOptions

	mu        sync.Mutex
	exchanges []url.Values // each token exchange request's form, client auth as client_id
	refusals  []string
}

// IdPOptions shape an IdP.
type IdPOptions struct {
	// ClientID is ollm's client at the IdP; ClientSecret its secret
	// (client_secret_basic), "" for a public client (client_id in the
	// form). ID tokens are issued to it.
	ClientID, ClientSecret string
	// ASClientID is ollm's client at the MCP authorization server, put in
	// the ID-JAG's client_id claim.
	ASClientID string
}

// NewIdP starts an IdP.
func NewIdP(t testing.TB, o IdPOptions) *IdP {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	p := &IdP{key: key, opts: o}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		writeJSONResp(w, http.StatusOK, map[string]any{"issuer": p.Issuer(), "token_endpoint": p.Issuer() + "/token",
			"authorization_endpoint": p.Issuer() + "/authorize", "grant_types_supported": []string{"urn:ietf:params:oauth:grant-type:token-exchange"}})
	})
	mux.HandleFunc("POST /token", p.token)
	p.srv = httptest.NewServer(mux)
	t.Cleanup(p.srv.Close)
	return p
}

// Issuer is the IdP's issuer identifier.
func (p *IdP) Issuer() string { return p.srv.URL }

// IDToken is an ID token for subject, issued to the IdP's client, valid
// for ttl (negative: expired).
func (p *IdP) IDToken(subject string, ttl time.Duration) string {
	now := time.Now()
	return p.sign(map[string]string{"alg": "ES256", "typ": "JWT"}, map[string]any{"iss": p.Issuer(), "sub": subject,
		"aud": p.opts.ClientID, "iat": now.Unix(), "exp": now.Add(ttl).Unix()})
}

// WorkloadJWT is a workload's identity token (workload identity
// federation, RFC 7523 §2.1): issued by the IdP for subject, its
// audience the authorization server audience, valid for ttl.
func (p *IdP) WorkloadJWT(subject, audience string, ttl time.Duration) string {
	now := time.Now()
	return p.sign(map[string]string{"alg": "ES256", "typ": "JWT"}, map[string]any{"iss": p.Issuer(), "sub": subject,
		"aud": audience, "iat": now.Unix(), "exp": now.Add(ttl).Unix()})
}

// checkWorkload verifies a workload JWT presented to the authorization
// server a: signed by the IdP, unexpired, audience a's issuer.
func (p *IdP) checkWorkload(a *AuthServer, r *http.Request, jwt string) error {
	_, c, err := p.verify(jwt)
	if err != nil {
		return err
	}
	if c["aud"] != a.issuerFor(r) {
		return fmt.Errorf("audience %v, not the issuer %s", c["aud"], a.issuerFor(r))
	}
	return nil
}

func (p *IdP) sign(header map[string]string, claims map[string]any) string {
	h, _ := json.Marshal(header)
	c, _ := json.Marshal(claims)
	signing := base64.RawURLEncoding.EncodeToString(h) + "." + base64.RawURLEncoding.EncodeToString(c)
	sum := sha256.Sum256([]byte(signing))
	r, s, _ := ecdsa.Sign(rand.Reader, p.key, sum[:])
	sig := make([]byte, 64)
	r.FillBytes(sig[:32])
	s.FillBytes(sig[32:])
	return signing + "." + base64.RawURLEncoding.EncodeToString(sig)
}

// verify checks a JWT the IdP signed and returns its header and claims.
func (p *IdP) verify(jwt string) (map[string]any, map[string]any, error) {
	parts := strings.Split(jwt, ".")
	if len(parts) != 3 {
		return nil, nil, errors.New("not a JWT")
	}
	sig, _ := base64.RawURLEncoding.DecodeString(parts[2])
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if len(sig) != 64 || !ecdsa.Verify(&p.key.PublicKey, sum[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])) {
		return nil, nil, errors.New("bad signature")
	}
	var h, c map[string]any
	hb, _ := base64.RawURLEncoding.DecodeString(parts[0])
	cb, _ := base64.RawURLEncoding.DecodeString(parts[1])
	if json.Unmarshal(hb, &h) != nil || json.Unmarshal(cb, &c) != nil {
		return nil, nil, errors.New("bad JSON")
	}
	if exp, _ := c["exp"].(float64); int64(exp) < time.Now().Unix() {
		return nil, nil, errors.New("expired")
	}
	if c["iss"] != p.Issuer() {
		return nil, nil, fmt.Errorf("issuer %v", c["iss"])
	}
	return h, c, nil
}

func (p *IdP) token(w http.ResponseWriter, r *http.Request) {
	r.ParseForm()
	p.mu.Lock()
	defer p.mu.Unlock()
	f := url.Values{}
	for k, v := range r.PostForm {
		f[k] = v
	}
	client := r.PostForm.Get("client_id")
	if id, secret, ok := r.BasicAuth(); ok {
		id, _ = url.QueryUnescape(id)
		secret, _ = url.QueryUnescape(secret)
		if id != p.opts.ClientID || secret != p.opts.ClientSecret {
			client = ""
		} else {
			client = id
		}
	} else if p.opts.ClientSecret != "" {
		client = ""
	}
	f.Set("authenticated_client", client)
	p.exchanges = append(p.exchanges, f)
	refuse := func(code, why string) {
		p.refusals = append(p.refusals, why)
		writeJSONResp(w, http.StatusBadRequest, map[string]string{"error": code, "error_description": why})
	}
	switch {
	case client != p.opts.ClientID:
		writeJSONResp(w, http.StatusUnauthorized, map[string]string{"error": "invalid_client"})
		p.refusals = append(p.refusals, "client")
		return
	case f.Get("grant_type") != "urn:ietf:params:oauth:grant-type:token-exchange":
		refuse("unsupported_grant_type", f.Get("grant_type"))
		return
	case f.Get("requested_token_type") != "urn:ietf:params:oauth:token-type:id-jag" ||
		f.Get("subject_token_type") != "urn:ietf:params:oauth:token-type:id_token" || f.Get("audience") == "" || f.Get("resource") == "":
		refuse("invalid_request", "requested_token_type, subject_token_type, audience and resource are required")
		return
	}
	_, c, err := p.verify(f.Get("subject_token"))
	if err != nil || c["aud"] != p.opts.ClientID {
		refuse("invalid_grant", fmt.Sprintf("the ID token is not valid (%v); it was %s", err, f.Get("subject_token")))
		return
	}
	now := time.Now()
	claims := map[string]any{"iss": p.Issuer(), "sub": c["sub"], "aud": f.Get("audience"), "resource": f.Get("resource"),
		"client_id": p.opts.ASClientID, "jti": randomString(), "iat": now.Unix(), "exp": now.Add(5 * time.Minute).Unix()}
	if s := f.Get("scope"); s != "" {
		claims["scope"] = s
	}
	jag := p.sign(map[string]string{"alg": "ES256", "typ": "oauth-id-jag+jwt"}, claims)
	writeJSONResp(w, http.StatusOK, map[string]any{"access_token": jag, "issued_token_type": "urn:ietf:params:oauth:token-type:id-jag",
		"token_type": "N_A", "expires_in": 300})
}

// Exchanges lists each token exchange request's form, with
// "authenticated_client" the client the IdP recognised ("" for none).
func (p *IdP) Exchanges() []url.Values {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]url.Values(nil), p.exchanges...)
}

// checkJAG verifies an ID-JAG presented to the authorization server a by
// client: signed by the IdP, typ oauth-id-jag+jwt, audience a's issuer,
// client_id the client; it returns its resource and scope.
func (p *IdP) checkJAG(a *AuthServer, r *http.Request, jag, client string) (resource, scope string, err error) {
	h, c, err := p.verify(jag)
	if err != nil {
		return "", "", err
	}
	if h["typ"] != "oauth-id-jag+jwt" {
		return "", "", fmt.Errorf("typ %v", h["typ"])
	}
	if c["aud"] != a.issuerFor(r) {
		return "", "", fmt.Errorf("audience %v, not the issuer %s", c["aud"], a.issuerFor(r))
	}
	if c["client_id"] != client {
		return "", "", fmt.Errorf("client_id %v, not %s", c["client_id"], client)
	}
	resource, _ = c["resource"].(string)
	scope, _ = c["scope"].(string)
	return resource, scope, nil
}
