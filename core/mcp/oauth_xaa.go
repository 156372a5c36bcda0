package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
)

// Enterprise-managed authorization (cross-app access, the MCP extension
// built on draft-ietf-oauth-identity-assertion-authz-grant): the user is
// signed in to the enterprise identity provider already; ollm exchanges
// the IdP's ID token there for an identity assertion JWT authorization
// grant (ID-JAG, RFC 8693 token exchange) meant for the MCP server's
// authorization server and the MCP server, and presents the ID-JAG to
// that authorization server with the RFC 7523 jwt-bearer grant. No
// browser is involved.

const (
	grantTokenExchange = "urn:ietf:params:oauth:grant-type:token-exchange"
	tokenTypeIDToken   = "urn:ietf:params:oauth:token-type:id_token"
	tokenTypeIDJAG     = "urn:ietf:params:oauth:token-type:id-jag"
)

// crossApp logs in with the ID token: the IdP's token endpoint (given, or
// from its metadata), the MCP server's authorization server (its
// challenge, its protected resource metadata), the exchange, the grant.
// The record keeps the ID token's file (not the token), so an expired
// access token is fetched again the same way.
func (fl *loginFlow) crossApp(ctx context.Context) error {
	ca := fl.oauth.CrossApp
	if fl.oauth.ClientID == "" {
		return errors.New("cross-app access needs ollm's client at the MCP server's authorization server: --client-id (and --client-secret-env for a confidential client)")
	}
	if ca.IDTokenFile == "" && ca.IDToken == "" {
		return errors.New("cross-app access needs the identity provider's ID token: --id-token-file FILE (- for stdin)")
	}
	if ca.ClientID == "" && !ca.Workload {
		return errors.New("cross-app access needs ollm's client id at the identity provider: --idp-client-id")
	}
	endpoint := ca.TokenEndpoint
	if endpoint == "" && !ca.Workload {
		if ca.Issuer == "" {
			return errors.New("cross-app access needs the identity provider: --idp-issuer URL or --idp-token-endpoint URL")
		}
		var err error
		if endpoint, err = idpTokenEndpoint(ctx, fl.client, ca.Issuer); err != nil {
			return err
		}
	}
	rec := tokenRecord{Server: fl.name, URL: fl.cfg.URL, Grant: GrantJWTBearer, PreRegistered: true,
		ClientID: fl.oauth.ClientID, ClientSecret: fl.oauth.ClientSecret,
		PrivateKeyFile: fl.oauth.PrivateKeyFile, KeyID: fl.oauth.KeyID, Scopes: slices.Clone(fl.oauth.Scopes),
		IDTokenFile: ca.IDTokenFile, IdPTokenEndpoint: endpoint, IdPClientID: ca.ClientID, IdPClientSecret: ca.ClientSecret}
	challenge, _ := fl.probe(ctx) // a server that does not challenge is logged in to all the same
	rec.ResourceMetadata = sameOriginMetadata(challenge, fl.cfg.URL)
	if len(rec.Scopes) == 0 {
		rec.Scopes = strings.Fields(challengeParam(challenge, "scope"))
	}
	md, err := fl.tokenEndpoint(ctx, &rec, challenge)
	if err != nil {
		return err
	}
	tok, err := fetchCrossApp(ctx, fl.client, md, rec, ca.IDToken)
	if err != nil {
		return err
	}
	rec.Token, rec.SavedAt = *tok, time.Now().UTC()
	return writeRecord(fl.file.path, rec)
}

// fetchCrossApp gets a token for rec: the ID token (idToken, else read
// from rec.IDTokenFile) exchanged at the IdP for an ID-JAG whose audience
// is the authorization server's issuer and whose resource is the MCP
// server, then the ID-JAG presented with the jwt-bearer grant. Errors
// never quote the ID token, the ID-JAG or a secret.
func fetchCrossApp(ctx context.Context, client *http.Client, md *transport.AuthServerMetadata, rec tokenRecord, idToken string) (*transport.Token, error) {
	if idToken == "" {
		if rec.IDTokenFile == "" {
			return nil, errors.New("the token expired and the ID token was not given in a file; log in again with --id-token-file")
		}
		data, err := os.ReadFile(rec.IDTokenFile)
		if err != nil {
			return nil, fmt.Errorf("reading the ID token: %w", err)
		}
		idToken = strings.TrimSpace(string(data))
		if idToken == "" {
			return nil, fmt.Errorf("the ID token file %s is empty", rec.IDTokenFile)
		}
	}
	secrets := []string{idToken, rec.ClientSecret, rec.IdPClientSecret}
	jag := idToken // a workload's JWT is the assertion itself
	if rec.IdPTokenEndpoint != "" {
		var err error
		if jag, err = exchangeIDToken(ctx, client, rec, idToken, md.Issuer); err != nil {
			return nil, redactErr(err, secrets)
		}
	}
	secrets = append(secrets, jag)
	form := url.Values{"grant_type": {GrantJWTBearer}, "assertion": {jag}, "resource": {resourceBase(rec.URL)}}
	if len(rec.Scopes) > 0 {
		form.Set("scope", strings.Join(rec.Scopes, " "))
	}
	tok, err := postToken(ctx, client, md, rec, form, false)
	if err != nil {
		what := "the identity assertion grant (ID-JAG)"
		if rec.IdPTokenEndpoint == "" {
			what = "the workload's JWT"
		}
		return nil, redactErr(fmt.Errorf("presenting %s: %w", what, err), secrets)
	}
	return tok, nil
}

// exchangeIDToken is the RFC 8693 token exchange at the IdP: the ID token
// for an ID-JAG for audience (the MCP authorization server's issuer) and
// the MCP server as resource.
func exchangeIDToken(ctx context.Context, client *http.Client, rec tokenRecord, idToken, audience string) (string, error) {
	form := url.Values{"grant_type": {grantTokenExchange}, "requested_token_type": {tokenTypeIDJAG},
		"subject_token": {idToken}, "subject_token_type": {tokenTypeIDToken},
		"audience": {audience}, "resource": {resourceBase(rec.URL)}}
	if len(rec.Scopes) > 0 {
		form.Set("scope", strings.Join(rec.Scopes, " "))
	}
	if rec.IdPClientSecret == "" {
		form.Set("client_id", rec.IdPClientID)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, rec.IdPTokenEndpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if rec.IdPClientSecret != "" {
		req.SetBasicAuth(url.QueryEscape(rec.IdPClientID), url.QueryEscape(rec.IdPClientSecret))
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", fmt.Errorf("the identity provider's token endpoint %s: %w", rec.IdPTokenEndpoint, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	var r struct {
		AccessToken     string `json:"access_token"`
		IssuedTokenType string `json:"issued_token_type"`
		Error           string `json:"error"`
		Description     string `json:"error_description"`
	}
	_ = json.Unmarshal(body, &r)
	switch {
	case resp.StatusCode != http.StatusOK && r.Error != "":
		return "", fmt.Errorf("the identity provider's token endpoint %s refused the token exchange: %s %s", rec.IdPTokenEndpoint, r.Error, r.Description)
	case resp.StatusCode != http.StatusOK:
		return "", fmt.Errorf("the identity provider's token endpoint %s answered the token exchange with HTTP %d", rec.IdPTokenEndpoint, resp.StatusCode)
	case r.AccessToken == "":
		return "", fmt.Errorf("the identity provider's token endpoint %s answered the token exchange without a token", rec.IdPTokenEndpoint)
	case r.IssuedTokenType != "" && r.IssuedTokenType != tokenTypeIDJAG:
		return "", fmt.Errorf("the identity provider's token endpoint %s issued a %s, not an ID-JAG", rec.IdPTokenEndpoint, r.IssuedTokenType)
	}
	return r.AccessToken, nil
}

// idpTokenEndpoint reads the IdP's token endpoint from its metadata:
// OpenID Connect discovery, then RFC 8414 (the issuer's path after the
// well-known part). The metadata must name the issuer asked.
func idpTokenEndpoint(ctx context.Context, client *http.Client, issuer string) (string, error) {
	u, err := url.Parse(issuer)
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("--idp-issuer %q is not a URL", issuer)
	}
	path := strings.TrimSuffix(u.Path, "/")
	origin := u.Scheme + "://" + u.Host
	for _, at := range []string{origin + path + "/.well-known/openid-configuration", origin + "/.well-known/oauth-authorization-server" + path} {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, at, nil)
		if err != nil {
			return "", err
		}
		req.Header.Set("Accept", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			continue
		}
		var md struct {
			Issuer        string `json:"issuer"`
			TokenEndpoint string `json:"token_endpoint"`
		}
		ok := resp.StatusCode == http.StatusOK && json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&md) == nil
		_ = resp.Body.Close()
		if !ok {
			continue
		}
		if md.Issuer != issuer {
			return "", fmt.Errorf("the identity provider's metadata at %s name issuer %q, not %q", at, md.Issuer, issuer)
		}
		if md.TokenEndpoint == "" {
			return "", fmt.Errorf("the identity provider's metadata at %s name no token endpoint", at)
		}
		return md.TokenEndpoint, nil
	}
	return "", fmt.Errorf("no identity provider metadata for %s (%s/.well-known/openid-configuration); give --idp-token-endpoint", issuer, issuer)
}

// redactErr is err with every secret in its text replaced.
func redactErr(err error, secrets []string) error {
	msg := err.Error()
	for _, s := range secrets {
		if len(s) >= 4 {
			msg = strings.ReplaceAll(msg, s, "[redacted]")
		}
	}
	if msg == err.Error() {
		return err
	}
	return errors.New(msg)
}
