package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"strings"
)

// Revoked says what Revoke did at the authorization server.
type Revoked struct {
	// Endpoint is the revocation endpoint; "" when the authorization
	// server advertises none (nothing was sent).
	Endpoint string `json:"endpoint,omitempty"`
	// Tokens are the kinds revoked: "refresh_token", "access_token".
	Tokens []string `json:"tokens,omitempty"`
}

// Revoke asks the authorization server that issued the stored tokens of
// server name (under tokenDir) to revoke them (RFC 7009), when its
// metadata advertise a revocation_endpoint: the refresh token first (so a
// server that revokes the grant with it does so), then the access token.
// The client authenticates as it does at the token endpoint. The stored
// record is left alone (Logout deletes it). No record: nothing to do.
func Revoke(ctx context.Context, tokenDir, name string, client *http.Client) (Revoked, error) {
	path := tokenPath(tokenDir, name)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Revoked{}, nil
	}
	if err != nil {
		return Revoked{}, err
	}
	var rec tokenRecord
	if err := json.Unmarshal(data, &rec); err != nil {
		return Revoked{}, fmt.Errorf("%s: %w", path, err)
	}
	if rec.Token.AccessToken == "" && rec.Token.RefreshToken == "" {
		return Revoked{}, nil
	}
	h := newOAuthHandler(rec, &tokenFile{path: path, rec: rec}, client, rec.URL)
	md, err := h.GetServerMetadata(ctx)
	if err != nil {
		return Revoked{}, fmt.Errorf("discovering the authorization server of %s: %w", rec.URL, err)
	}
	if err := sameIssuer(ctx, h, rec); err != nil {
		return Revoked{}, err
	}
	out := Revoked{Endpoint: md.RevocationEndpoint}
	if out.Endpoint == "" {
		return out, nil
	}
	for _, t := range []struct{ hint, value string }{
		{"refresh_token", rec.Token.RefreshToken},
		{"access_token", rec.Token.AccessToken},
	} {
		if t.value == "" {
			continue
		}
		done, err := revokeToken(ctx, client, md.RevocationEndpoint, assertionAudience(md), rec, t.hint, t.value)
		if err != nil {
			return out, err
		}
		if done {
			out.Tokens = append(out.Tokens, t.hint)
		}
	}
	return out, nil
}

// revokeToken sends one RFC 7009 revocation request; false: the server
// does not revoke tokens of that kind (unsupported_token_type).
func revokeToken(ctx context.Context, client *http.Client, endpoint, audience string, rec tokenRecord, hint, token string) (bool, error) {
	form := url.Values{"token": {token}, "token_type_hint": {hint}}
	basic := false
	switch {
	case rec.PrivateKeyFile != "":
		assertion, err := clientAssertion(rec.PrivateKeyFile, rec.KeyID, rec.ClientID, audience)
		if err != nil {
			return false, err
		}
		form.Set("client_id", rec.ClientID)
		form.Set("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
		form.Set("client_assertion", assertion)
	case rec.ClientSecret != "" && rec.AuthMethod == "client_secret_post":
		form.Set("client_id", rec.ClientID)
		form.Set("client_secret", rec.ClientSecret)
	case rec.ClientSecret != "":
		basic = true
	default:
		form.Set("client_id", rec.ClientID) // a public client names itself
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return false, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if basic {
		req.SetBasicAuth(url.QueryEscape(rec.ClientID), url.QueryEscape(rec.ClientSecret))
	}
	resp, err := client.Do(req)
	if err != nil {
		return false, fmt.Errorf("revocation endpoint %s: %w", endpoint, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode == http.StatusOK {
		return true, nil
	}
	var e struct {
		Error       string `json:"error"`
		Description string `json:"error_description"`
	}
	_ = json.Unmarshal(body, &e)
	if e.Error == "unsupported_token_type" {
		return false, nil // RFC 7009 §2.2.1: the server does not revoke this kind
	}
	if e.Error != "" {
		return false, fmt.Errorf("the revocation endpoint %s refused the %s: %s %s", endpoint, strings.ReplaceAll(hint, "_", " "), e.Error, e.Description)
	}
	return false, fmt.Errorf("the revocation endpoint %s answered HTTP %d for the %s", endpoint, resp.StatusCode, strings.ReplaceAll(hint, "_", " "))
}
