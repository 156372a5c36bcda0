package mcptest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"strings"
	"time"
)

// errNonce: the proof lacks the nonce the server requires (or carries a
// stale one); the answer is use_dpop_nonce with a DPoP-Nonce header.
var errNonce = errors.New("use_dpop_nonce")

// checkProof verifies the DPoP proof of r (RFC 9449 §4.3): one DPoP
// header, a JWT with typ dpop+jwt, alg ES256 and a public EC P-256 jwk
// that verifies its signature, htm the request's method, htu its URL
// without query, iat within five minutes, a jti not seen before, ath the
// hash of accessToken when there is one, the nonce when one is required.
// It returns the key's thumbprint. Called with a.mu held.
func (a *AuthServer) checkProof(r *http.Request, accessToken, nonce string) (string, error) {
	values := r.Header.Values("DPoP")
	if len(values) != 1 || strings.Contains(values[0], ",") {
		return "", fmt.Errorf("%d DPoP headers", len(values))
	}
	parts := strings.Split(values[0], ".")
	if len(parts) != 3 {
		return "", errors.New("the proof is not a JWT")
	}
	var h struct {
		Typ, Alg string
		JWK      map[string]string `json:"jwk"`
	}
	var c struct {
		Jti, Htm, Htu, Ath, Nonce string
		Iat                       int64
	}
	hb, _ := base64.RawURLEncoding.DecodeString(parts[0])
	cb, _ := base64.RawURLEncoding.DecodeString(parts[1])
	if json.Unmarshal(hb, &h) != nil || json.Unmarshal(cb, &c) != nil {
		return "", errors.New("the proof's header or claims are not JSON")
	}
	if h.Typ != "dpop+jwt" || h.Alg != "ES256" || h.JWK["kty"] != "EC" || h.JWK["crv"] != "P-256" || h.JWK["d"] != "" {
		return "", fmt.Errorf("bad proof header %s", hb)
	}
	x, err1 := base64.RawURLEncoding.DecodeString(h.JWK["x"])
	y, err2 := base64.RawURLEncoding.DecodeString(h.JWK["y"])
	sig, err3 := base64.RawURLEncoding.DecodeString(parts[2])
	if err1 != nil || err2 != nil || err3 != nil || len(sig) != 64 {
		return "", errors.New("bad proof key or signature encoding")
	}
	pub := &ecdsa.PublicKey{Curve: elliptic.P256(), X: new(big.Int).SetBytes(x), Y: new(big.Int).SetBytes(y)}
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if !ecdsa.Verify(pub, sum[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])) {
		return "", errors.New("the proof's signature does not verify")
	}
	if want := "http://" + r.Host + r.URL.Path; c.Htm != r.Method || c.Htu != want {
		return "", fmt.Errorf("htm %q htu %q, want %s %s", c.Htm, c.Htu, r.Method, want)
	}
	if d := time.Now().Unix() - c.Iat; d > 300 || d < -300 {
		return "", errors.New("iat out of the window")
	}
	if c.Jti == "" || a.jtis[c.Jti] {
		return "", errors.New("jti missing or replayed")
	}
	a.jtis[c.Jti] = true
	if accessToken != "" {
		s := sha256.Sum256([]byte(accessToken))
		if c.Ath != base64.RawURLEncoding.EncodeToString(s[:]) {
			return "", errors.New("ath is not the hash of the access token")
		}
	}
	if nonce != "" && c.Nonce != nonce {
		return "", errNonce
	}
	t := sha256.Sum256([]byte(`{"crv":"P-256","kty":"EC","x":"` + h.JWK["x"] + `","y":"` + h.JWK["y"] + `"}`))
	return base64.RawURLEncoding.EncodeToString(t[:]), nil
}

// refuseDPoP notes why a DPoP use was refused.
func (a *AuthServer) refuseDPoP(why string) {
	a.dpopRefusals = append(a.dpopRefusals, why)
}

// DPoPRefusals lists why DPoP proofs or DPoP-bound tokens were refused
// (a nonce asked for is not a refusal).
func (a *AuthServer) DPoPRefusals() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.dpopRefusals...)
}

// NonceChallenges counts the use_dpop_nonce answers of the token
// endpoint and of the resource.
func (a *AuthServer) NonceChallenges() (token, resource int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.asNonces, a.rsNonces
}

// BoundKey is the thumbprint of the key an access token is bound to, ""
// for a bearer token.
func (a *AuthServer) BoundKey(token string) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.bound[token]
}

// bindToken issues access token at for the proof's key jkt: with
// DPoPJWT a JWT carrying cnf.jkt (and token_type Bearer, an
// authorization server that says so all the same), else an opaque token
// of type DPoP. Called with a.mu held.
func (a *AuthServer) bindToken(at, jkt string) (token, typ string) {
	token, typ = at, "DPoP"
	if a.opts.DPoPJWT {
		h := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"ES256","typ":"at+jwt"}`))
		c, _ := json.Marshal(map[string]any{"jti": at, "cnf": map[string]string{"jkt": jkt}})
		token, typ = h+"."+base64.RawURLEncoding.EncodeToString(c)+"."+randomString(), "Bearer"
	}
	a.bound[token] = jkt
	return token, typ
}

// tokenProof checks a token request's proof when the server does DPoP;
// a failure has been answered (400 invalid_dpop_proof, or use_dpop_nonce
// with the nonce) and ok is false. Called with a.mu held.
func (a *AuthServer) tokenProof(w http.ResponseWriter, r *http.Request) (jkt string, ok bool) {
	if !a.opts.DPoP && (!a.opts.DPoPQuiet || r.Header.Get("DPoP") == "") {
		return "", true
	}
	jkt, err := a.checkProof(r, "", a.opts.DPoPNonce)
	if errors.Is(err, errNonce) {
		a.asNonces++
		w.Header().Set("DPoP-Nonce", a.opts.DPoPNonce)
		writeJSONResp(w, http.StatusBadRequest, map[string]string{"error": "use_dpop_nonce"})
		return "", false
	}
	if err != nil {
		a.refuseDPoP("token endpoint: " + err.Error())
		writeJSONResp(w, http.StatusBadRequest, map[string]string{"error": "invalid_dpop_proof", "error_description": err.Error()})
		return "", false
	}
	return jkt, true
}

// resourceProof checks a request to the protected server that carries
// token: a bound token must come with the DPoP scheme and a proof by its
// key (a bearer use is refused); an unbound one with the Bearer scheme.
// It answers the refusal itself and reports whether to go on.
func (a *AuthServer) resourceProof(w http.ResponseWriter, r *http.Request, scheme, token, challenge string, o ServerOptions) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	jkt := a.bound[token]
	refuse := func(why, errCode string) bool {
		a.refuseDPoP(r.Method + " " + r.URL.Path + ": " + why)
		w.Header().Set("WWW-Authenticate", challenge+` error="`+errCode+`"`)
		http.Error(w, why, http.StatusUnauthorized)
		return false
	}
	if jkt == "" {
		if !strings.EqualFold(scheme, "Bearer") {
			return refuse("a bearer token presented with the "+scheme+" scheme", "invalid_token")
		}
		return true
	}
	if !strings.EqualFold(scheme, "DPoP") {
		return refuse("a DPoP-bound token presented as "+scheme, "invalid_token")
	}
	got, err := a.checkProof(r, token, o.DPoPNonce)
	if errors.Is(err, errNonce) {
		a.rsNonces++
		w.Header().Set("DPoP-Nonce", o.DPoPNonce)
		w.Header().Set("WWW-Authenticate", `DPoP error="use_dpop_nonce"`)
		http.Error(w, "use_dpop_nonce", http.StatusUnauthorized)
		return false
	}
	if err != nil {
		return refuse(err.Error(), "invalid_dpop_proof")
	}
	if got != jkt {
		return refuse("the proof's key is not the one the token is bound to", "invalid_dpop_proof")
	}
	return true
}
