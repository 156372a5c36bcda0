package mcp

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
)

// discover finds the authorization server's metadata through mcp-go's
// handler (the challenge's or the well-known protected resource metadata,
// RFC 9728, then RFC 8414 / OpenID metadata with the issuer's path
// inserted). When that finds no document at all, mcp-go falls back to the
// 2025-03-26 default endpoints; before using them, the 2025-03-26 rule
// that the metadata live at the root of the MCP server's origin (its path
// discarded) is tried, which mcp-go does not do.
func (fl *loginFlow) discover(ctx context.Context, rec tokenRecord) (*transport.OAuthHandler, error) {
	h := newOAuthHandler(rec, fl.file, fl.client, fl.cfg.URL)
	md, err := h.GetServerMetadata(ctx)
	if err != nil {
		return nil, fmt.Errorf("discovering the authorization server: %w", err)
	}
	if !isDefaultEndpoints(md) {
		return h, nil
	}
	for _, u := range rootMetadataURLs(fl.cfg.URL) {
		r := rec
		r.AuthServerMetadata = u
		h2 := newOAuthHandler(r, fl.file, fl.client, fl.cfg.URL)
		if md2, err := h2.GetServerMetadata(ctx); err == nil && md2 != nil && md2.TokenEndpoint != "" {
			fl.metadataURL = u
			return h2, nil
		}
	}
	return h, nil
}

// rootMetadataURLs are the 2025-03-26 metadata locations: the MCP
// server's origin with its path discarded.
func rootMetadataURLs(server string) []string {
	u, err := url.Parse(server)
	if err != nil || u.Host == "" {
		return nil
	}
	root := u.Scheme + "://" + u.Host
	return []string{root + "/.well-known/oauth-authorization-server", root + "/.well-known/openid-configuration"}
}

// isDefaultEndpoints reports whether md is mcp-go's stand-in for metadata
// it could not find: the 2025-03-26 default endpoints under the issuer.
func isDefaultEndpoints(md *transport.AuthServerMetadata) bool {
	i := strings.TrimSuffix(md.Issuer, "/")
	return i != "" && md.AuthorizationEndpoint == i+"/authorize" && md.TokenEndpoint == i+"/token" &&
		md.RegistrationEndpoint == i+"/register" && len(md.ResponseTypesSupported) == 0 &&
		len(md.CodeChallengeMethodsSupported) == 0 && len(md.GrantTypesSupported) == 0
}

// challengeParam is one auth-param of a WWW-Authenticate header, "" when
// it is not there.
func challengeParam(challenge, key string) string {
	for i := 0; i < len(challenge); {
		j := strings.Index(challenge[i:], key+"=")
		if j < 0 {
			return ""
		}
		j += i
		if j > 0 && !strings.ContainsRune(" ,\t", rune(challenge[j-1])) {
			i = j + len(key) + 1
			continue
		}
		v := challenge[j+len(key)+1:]
		if strings.HasPrefix(v, `"`) {
			end := strings.IndexByte(v[1:], '"')
			if end < 0 {
				return v[1:]
			}
			return v[1 : end+1]
		}
		if end := strings.IndexAny(v, ", "); end >= 0 {
			return v[:end]
		}
		return v
	}
	return ""
}

// clientCredentials gets a token with the client's own credentials
// (RFC 6749 §4.4): no browser, no user. The client authenticates with
// its secret (client_secret_basic, or client_secret_post when that is all
// the server takes) or a private key (private_key_jwt, RFC 7523).
func (fl *loginFlow) clientCredentials(ctx context.Context) error {
	if fl.oauth == nil || fl.oauth.ClientID == "" {
		return errors.New("the client_credentials grant needs a registered client: give its id (--client-id) and its secret or private key")
	}
	rec := tokenRecord{Server: fl.name, URL: fl.cfg.URL, Grant: GrantClientCredentials,
		ClientID: fl.oauth.ClientID, ClientSecret: fl.oauth.ClientSecret,
		PrivateKeyFile: fl.oauth.PrivateKeyFile, KeyID: fl.oauth.KeyID, Scopes: slices.Clone(fl.oauth.Scopes)}
	md, err := fl.tokenEndpoint(ctx, &rec, "")
	if err != nil {
		return err
	}
	tok, err := fetchClientCredentials(ctx, fl.client, md, rec)
	if err != nil {
		return err
	}
	rec.Token, rec.SavedAt = *tok, time.Now().UTC()
	return writeRecord(fl.file.path, rec)
}

// tokenEndpoint finds the authorization server of a grant without a
// browser (client credentials, jwt-bearer): its metadata, which rec
// records (document, issuer), and DPoP when the server or the challenge
// asks for it.
func (fl *loginFlow) tokenEndpoint(ctx context.Context, rec *tokenRecord, challenge string) (*transport.AuthServerMetadata, error) {
	h, err := fl.discover(ctx, *rec)
	if err != nil {
		return nil, err
	}
	rec.AuthServerMetadata = fl.metadataURL
	md, err := h.GetServerMetadata(ctx)
	if err != nil {
		return nil, err
	}
	rec.Issuer = md.Issuer
	if err := fl.useDPoP(md, challenge, rec); err != nil {
		return nil, err
	}
	return md, nil
}

// fetchClientCredentials asks the token endpoint for a token for rec's
// client.
func fetchClientCredentials(ctx context.Context, client *http.Client, md *transport.AuthServerMetadata, rec tokenRecord) (*transport.Token, error) {
	if md.TokenEndpoint == "" {
		return nil, errors.New("the authorization server names no token endpoint")
	}
	form := url.Values{"grant_type": {GrantClientCredentials}, "resource": {resourceBase(rec.URL)}}
	if len(rec.Scopes) > 0 {
		form.Set("scope", strings.Join(rec.Scopes, " "))
	}
	return postToken(ctx, client, md, rec, form, true)
}

// postToken sends a token request with form, the client authenticating
// as rec says (a private key, a secret; a public client, when
// mustAuthenticate is false, names itself with client_id), and returns
// the token. An error names the endpoint and the server's error code and
// description, never a token or a secret sent.
func postToken(ctx context.Context, client *http.Client, md *transport.AuthServerMetadata, rec tokenRecord, form url.Values, mustAuthenticate bool) (*transport.Token, error) {
	if md.TokenEndpoint == "" {
		return nil, errors.New("the authorization server names no token endpoint")
	}
	basic := false
	switch {
	case rec.PrivateKeyFile != "":
		assertion, err := clientAssertion(rec.PrivateKeyFile, rec.KeyID, rec.ClientID, assertionAudience(md))
		if err != nil {
			return nil, err
		}
		form.Set("client_id", rec.ClientID)
		form.Set("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
		form.Set("client_assertion", assertion)
	case rec.ClientSecret == "" && !mustAuthenticate:
		form.Set("client_id", rec.ClientID)
	case rec.ClientSecret == "":
		return nil, errors.New("the client_credentials grant needs the client's secret (--client-secret-env) or a private key (--private-key)")
	case slices.Contains(md.TokenEndpointAuthMethodsSupported, "client_secret_post") && !slices.Contains(md.TokenEndpointAuthMethodsSupported, "client_secret_basic"):
		form.Set("client_id", rec.ClientID)
		form.Set("client_secret", rec.ClientSecret)
	default:
		basic = true
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, md.TokenEndpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if basic {
		req.SetBasicAuth(url.QueryEscape(rec.ClientID), url.QueryEscape(rec.ClientSecret))
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("token endpoint %s: %w", md.TokenEndpoint, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Error       string `json:"error"`
			Description string `json:"error_description"`
		}
		_ = json.Unmarshal(body, &e)
		if e.Error != "" {
			return nil, fmt.Errorf("the token endpoint %s refused: %s %s", md.TokenEndpoint, e.Error, e.Description)
		}
		return nil, fmt.Errorf("the token endpoint %s answered HTTP %d", md.TokenEndpoint, resp.StatusCode)
	}
	var tok transport.Token
	if err := json.Unmarshal(body, &tok); err != nil || tok.AccessToken == "" {
		return nil, fmt.Errorf("the token endpoint %s answered without an access token", md.TokenEndpoint)
	}
	if tok.ExpiresIn > 0 {
		tok.ExpiresAt = time.Now().Add(time.Duration(tok.ExpiresIn) * time.Second)
	}
	return &tok, nil
}

// assertionAudience is the aud of a client assertion: the authorization
// server's issuer identifier, exactly as its metadata give it (RFC
// 7523bis, which the MCP client-credentials extension follows: a token
// endpoint URL as audience is ambiguous between servers); the token
// endpoint only when the metadata name no issuer.
func assertionAudience(md *transport.AuthServerMetadata) string {
	if md.Issuer != "" {
		return md.Issuer
	}
	return md.TokenEndpoint
}

// clientAssertion is a JWT that authenticates the client (RFC 7523 §2.2):
// issuer and subject the client id, audience the issuer, valid
// for five minutes, signed with the private key in keyFile (RS256 for an
// RSA key, ES256 for an EC P-256 key).
func clientAssertion(keyFile, keyID, clientID, audience string) (string, error) {
	data, err := os.ReadFile(keyFile)
	if err != nil {
		return "", fmt.Errorf("reading the private key: %w", err)
	}
	key, err := parsePrivateKey(data)
	if err != nil {
		return "", fmt.Errorf("%s: %w", keyFile, err)
	}
	alg := "RS256"
	if _, ok := key.(*ecdsa.PrivateKey); ok {
		alg = "ES256"
	}
	header := map[string]string{"alg": alg, "typ": "JWT"}
	if keyID != "" {
		header["kid"] = keyID
	}
	jti := make([]byte, 16)
	_, _ = rand.Read(jti)
	now := time.Now()
	claims := map[string]any{"iss": clientID, "sub": clientID, "aud": audience,
		"iat": now.Unix(), "exp": now.Add(5 * time.Minute).Unix(), "jti": base64.RawURLEncoding.EncodeToString(jti)}
	h, _ := json.Marshal(header)
	c, _ := json.Marshal(claims)
	signing := base64.RawURLEncoding.EncodeToString(h) + "." + base64.RawURLEncoding.EncodeToString(c)
	sum := sha256.Sum256([]byte(signing))
	var sig []byte
	switch k := key.(type) {
	case *rsa.PrivateKey:
		sig, err = rsa.SignPKCS1v15(rand.Reader, k, crypto.SHA256, sum[:])
	case *ecdsa.PrivateKey:
		var r, s *big.Int
		r, s, err = ecdsa.Sign(rand.Reader, k, sum[:])
		if err == nil {
			sig = make([]byte, 64)
			r.FillBytes(sig[:32])
			s.FillBytes(sig[32:])
		}
	}
	if err != nil {
		return "", err
	}
	return signing + "." + base64.RawURLEncoding.EncodeToString(sig), nil
}

func parsePrivateKey(data []byte) (any, error) {
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, errors.New("no PEM block")
	}
	if k, err := x509.ParsePKCS8PrivateKey(block.Bytes); err == nil {
		switch k := k.(type) {
		case *rsa.PrivateKey:
			return k, nil
		case *ecdsa.PrivateKey:
			if k.Curve.Params().BitSize != 256 {
				return nil, errors.New("an EC key must be on P-256 (ES256)")
			}
			return k, nil
		}
		return nil, errors.New("the key is neither RSA nor EC P-256")
	}
	if k, err := x509.ParsePKCS1PrivateKey(block.Bytes); err == nil {
		return k, nil
	}
	if k, err := x509.ParseECPrivateKey(block.Bytes); err == nil {
		if k.Curve.Params().BitSize != 256 {
			return nil, errors.New("an EC key must be on P-256 (ES256)")
		}
		return k, nil
	}
	return nil, errors.New("not an RSA or EC private key in PKCS#8, PKCS#1 or SEC 1 form")
}
