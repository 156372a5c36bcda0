package cli

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ollm/ollm/core/mcp"
	"github.com/ollm/ollm/store"
)

// MCPLoginOptions are the options of `ollm mcp login` and `ollm mcp logout`.
type MCPLoginOptions struct {
	IO      *IOStreams
	Context context.Context
	Home    func() (store.Home, error)
	// Specs lists the servers of the profile.
	Specs   func() ([]mcp.Spec, []string, error)
	Environ func() []string
	// OpenURL shows the authorization page; the default prints it and,
	// with a terminal, starts the system's browser.
	OpenURL func(url string) error
	Name    string
	Timeout time.Duration
	JSON    bool

	// URL logs in to an ad-hoc server instead of one of the profile's.
	URL string
	// Local: logout deletes the local tokens without revoking them.
	Local bool
	// A client registered beforehand, the scopes and the grant.
	ClientID        string
	ClientSecretEnv string
	Scopes          []string
	Grant           string
	PrivateKey      string
	KeyID           string
	MetadataURL     string
	// Cross-app access: the enterprise IdP's ID token (a file, "-" for
	// stdin), the IdP and ollm's client there.
	IDTokenFile        string
	IdPIssuer          string
	IdPTokenEndpoint   string
	IdPClientID        string
	IdPClientSecretEnv string
	// Workload identity: a JWT the authorization server trusts (a file,
	// "-" for stdin), presented with the jwt-bearer grant.
	AssertionFile string
}

func newMCPLoginOptions(f *Factory) *MCPLoginOptions {
	o := &MCPLoginOptions{IO: f.IO, Context: f.Context, Home: f.Home, Environ: f.Environ}
	o.Specs = func() ([]mcp.Spec, []string, error) {
		r, err := f.LoadProfile()
		if err != nil {
			return nil, nil, err
		}
		var roots []string
		if r.Workspace != "" {
			roots = []string{r.Workspace}
		}
		return mcp.Specs(r), roots, nil
	}
	o.OpenURL = browserOpener(f.IO, startBrowser)
	return o
}

func newCmdMCPLogin(f *Factory) *cobra.Command {
	o := newMCPLoginOptions(f)
	cmd := &cobra.Command{
		Use:   "login [server]",
		Short: "Authorize ollm at an HTTP MCP server that requires OAuth",
		Long: `Log in to an HTTP MCP server that answers 401: ollm finds its authorization
server (the server's WWW-Authenticate challenge, its protected resource
metadata, the authorization server's metadata), registers itself as a client,
and prints the authorization page's URL (opening it in the browser when a
terminal is attached). After you approve, the browser comes back to a
listener on 127.0.0.1 with a code that ollm exchanges, with its PKCE
verifier, for tokens. They are stored with mode 0600 under
$OLLM_HOME/tokens and refreshed when they expire or the server refuses them.
Sessions without a terminal cannot log in; they say to run this command.
--url logs in to an ad-hoc server (as ` + "`ollm mcp call --url`" + ` uses it). An
authorization server without dynamic registration needs the client
registered there beforehand: --client-id and --client-secret-env, or a
client ID metadata document it fetches: --client-metadata-url. --scope
asks for scopes (by default those the server's challenge names); a server
that later answers 401 or 403 insufficient_scope gets a new login asking
for the old scopes and the new ones and the request once more (once per
request, and not when that asks for nothing new). A server that lets
initialize through and challenges later is probed with tools/list, or
accepted when it publishes protected resource metadata. The authorization
response's iss must be the authorization server's issuer (RFC 9207).
--grant client_credentials gets tokens with the
client's own secret or private key (private_key_jwt), with no user and no
browser, and again by itself when they expire.
--id-token-file logs in by enterprise-managed authorization (cross-app
access), with no browser: the enterprise identity provider's ID token (read
from the file, or stdin for -) is exchanged there (RFC 8693, --idp-issuer or
--idp-token-endpoint, --idp-client-id, --idp-client-secret-env) for an
identity assertion grant (ID-JAG) for the MCP server's authorization server
and the server, which that authorization server takes (RFC 7523 jwt-bearer)
from the client --client-id; an expired token is fetched again the same way
(the file is read again). --assertion-file logs in by workload identity
federation, with no browser and no identity provider exchange: the JWT in
the file (a workload's identity token whose audience is the authorization
server) is presented as is with the jwt-bearer grant (RFC 7523) from the
client --client-id, and read again when the token expires. Where the authorization server or the server asks
for DPoP (RFC 9449), tokens are bound to a key of ollm's, kept with them.`,
		Example: `  ollm mcp login github
  ollm mcp login github --timeout 10m
  ollm mcp login --url https://mcp.example.com/mcp
  ollm mcp login tracker --client-id ollm-team --client-secret-env TRACKER_SECRET --scope "issues:read issues:write"
  ollm mcp login ci-tools --grant client_credentials --client-id svc --private-key ~/.config/ollm/svc.pem
  ollm mcp login wiki --id-token-file ~/.cache/idp/id_token --idp-issuer https://idp.example.com --idp-client-id ollm --client-id ollm-wiki --client-secret-env WIKI_SECRET`,
		Args: rangeArgs(0, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case len(args) == 1 && o.URL != "":
				return &FlagError{Err: fmt.Errorf("give a server name or --url, not both")}
			case len(args) == 1:
				o.Name = args[0]
			case o.URL == "":
				return &FlagError{Err: fmt.Errorf("give the server to log in to: ollm mcp login <server>, or --url URL")}
			}
			return mcpLoginRun(o)
		},
	}
	fl := cmd.Flags()
	fl.DurationVar(&o.Timeout, "timeout", mcp.DefaultLoginTimeout, "how long to wait for the browser")
	fl.StringVar(&o.URL, "url", "", "log in to the HTTP MCP server at `URL` (as used with mcp call --url) instead of a profile server")
	fl.StringVar(&o.ClientID, "client-id", "", "use the client `ID` registered with the authorization server beforehand instead of registering dynamically")
	fl.StringVar(&o.ClientSecretEnv, "client-secret-env", "", "the environment `VAR` holding that client's secret")
	fl.StringSliceVar(&o.Scopes, "scope", nil, "OAuth `scopes` to ask for (space- or comma-separated; default: those the server's challenge names)")
	fl.StringVar(&o.Grant, "grant", mcp.GrantAuthorizationCode, "authorization_code (a user in the browser) or client_credentials (the client's own credentials, no user)")
	fl.StringVar(&o.PrivateKey, "private-key", "", "PEM private key `FILE` (RSA or EC P-256) for private_key_jwt with client_credentials")
	fl.StringVar(&o.KeyID, "key-id", "", "the key's `kid`, when the authorization server wants it")
	fl.StringVar(&o.MetadataURL, "client-metadata-url", "", "use the client ID metadata document at `URL` as the client id (no registration)")
	fl.StringVar(&o.IDTokenFile, "id-token-file", "", "cross-app access: the enterprise identity provider's ID token is in `FILE` (- reads stdin)")
	fl.StringVar(&o.IdPIssuer, "idp-issuer", "", "cross-app access: the identity provider's issuer `URL` (its metadata name the token endpoint)")
	fl.StringVar(&o.IdPTokenEndpoint, "idp-token-endpoint", "", "cross-app access: the identity provider's token endpoint `URL`")
	fl.StringVar(&o.IdPClientID, "idp-client-id", "", "cross-app access: ollm's client `ID` at the identity provider")
	fl.StringVar(&o.IdPClientSecretEnv, "idp-client-secret-env", "", "cross-app access: the environment `VAR` holding that client's secret")
	fl.StringVar(&o.AssertionFile, "assertion-file", "", "workload identity: present the JWT in `FILE` (- reads stdin) to the authorization server with the jwt-bearer grant")
	return cmd
}

// oauthClient is the client the login flags describe, nil for none.
func (o *MCPLoginOptions) oauthClient() (*mcp.OAuthClient, error) {
	var scopes []string
	for _, s := range o.Scopes {
		scopes = append(scopes, strings.Fields(s)...)
	}
	if o.Grant == "" {
		o.Grant = mcp.GrantAuthorizationCode
	}
	if o.Grant != mcp.GrantAuthorizationCode && o.Grant != mcp.GrantClientCredentials {
		return nil, &FlagError{Err: fmt.Errorf("--grant %q: use authorization_code or client_credentials", o.Grant)}
	}
	if o.AssertionFile != "" {
		return o.workloadClient(scopes)
	}
	if o.IDTokenFile != "" {
		return o.crossAppClient(scopes)
	}
	if o.IdPIssuer != "" || o.IdPTokenEndpoint != "" || o.IdPClientID != "" || o.IdPClientSecretEnv != "" {
		return nil, &FlagError{Err: fmt.Errorf("the --idp-* flags need --id-token-file")}
	}
	if o.ClientID == "" && o.MetadataURL == "" && len(scopes) == 0 && o.Grant == mcp.GrantAuthorizationCode {
		if o.ClientSecretEnv != "" || o.PrivateKey != "" {
			return nil, &FlagError{Err: fmt.Errorf("--client-secret-env and --private-key need --client-id")}
		}
		return nil, nil
	}
	c := &mcp.OAuthClient{ClientID: o.ClientID, Scopes: scopes, Grant: o.Grant, PrivateKeyFile: o.PrivateKey, KeyID: o.KeyID, MetadataURL: o.MetadataURL}
	if o.ClientSecretEnv != "" {
		for _, kv := range o.Environ() {
			if k, v, _ := strings.Cut(kv, "="); k == o.ClientSecretEnv {
				c.ClientSecret = v
			}
		}
		if c.ClientSecret == "" {
			return nil, &FlagError{Err: fmt.Errorf("--client-secret-env %s: the variable is not set", o.ClientSecretEnv)}
		}
	}
	if o.Grant == mcp.GrantClientCredentials && (o.ClientID == "" || c.ClientSecret == "" && o.PrivateKey == "") {
		return nil, &FlagError{Err: fmt.Errorf("--grant client_credentials needs --client-id and --client-secret-env or --private-key")}
	}
	return c, nil
}

// crossAppClient is the client of a cross-app access login: the ID token
// from its file (or stdin, read here; it is not stored), the IdP's client
// secret and the authorization server's from the environment.
func (o *MCPLoginOptions) crossAppClient(scopes []string) (*mcp.OAuthClient, error) {
	switch {
	case o.Grant != mcp.GrantAuthorizationCode && o.Grant != "" && o.Grant != mcp.GrantJWTBearer:
		return nil, &FlagError{Err: fmt.Errorf("--id-token-file logs in with the jwt-bearer grant, not --grant %s", o.Grant)}
	case o.ClientID == "":
		return nil, &FlagError{Err: fmt.Errorf("--id-token-file needs --client-id: ollm's client at the MCP server's authorization server")}
	case o.IdPClientID == "":
		return nil, &FlagError{Err: fmt.Errorf("--id-token-file needs --idp-client-id: ollm's client at the identity provider")}
	case o.IdPIssuer == "" && o.IdPTokenEndpoint == "":
		return nil, &FlagError{Err: fmt.Errorf("--id-token-file needs --idp-issuer URL or --idp-token-endpoint URL")}
	}
	ca := &mcp.CrossApp{IDTokenFile: o.IDTokenFile, Issuer: o.IdPIssuer, TokenEndpoint: o.IdPTokenEndpoint, ClientID: o.IdPClientID}
	if o.IDTokenFile == "-" {
		data, err := io.ReadAll(io.LimitReader(o.IO.In, 1<<20))
		if err != nil {
			return nil, fmt.Errorf("reading the ID token from stdin: %w", err)
		}
		ca.IDTokenFile, ca.IDToken = "", strings.TrimSpace(string(data))
		if ca.IDToken == "" {
			return nil, &FlagError{Err: fmt.Errorf("--id-token-file -: stdin is empty")}
		}
	} else if abs, err := filepath.Abs(o.IDTokenFile); err == nil {
		ca.IDTokenFile = abs // read again at expiry, from wherever
	}
	var err error
	if ca.ClientSecret, err = o.secretFrom("--idp-client-secret-env", o.IdPClientSecretEnv); err != nil {
		return nil, err
	}
	c := &mcp.OAuthClient{ClientID: o.ClientID, Scopes: scopes, Grant: mcp.GrantJWTBearer, PrivateKeyFile: o.PrivateKey, KeyID: o.KeyID, CrossApp: ca}
	if c.ClientSecret, err = o.secretFrom("--client-secret-env", o.ClientSecretEnv); err != nil {
		return nil, err
	}
	return c, nil
}

// workloadClient is the client of a workload identity login: the JWT
// from its file (or stdin, read here and not stored), presented as is.
func (o *MCPLoginOptions) workloadClient(scopes []string) (*mcp.OAuthClient, error) {
	switch {
	case o.IDTokenFile != "" || o.IdPIssuer != "" || o.IdPTokenEndpoint != "" || o.IdPClientID != "":
		return nil, &FlagError{Err: fmt.Errorf("--assertion-file presents the JWT itself; it takes no --id-token-file or --idp-* flags")}
	case o.Grant != mcp.GrantAuthorizationCode && o.Grant != "" && o.Grant != mcp.GrantJWTBearer:
		return nil, &FlagError{Err: fmt.Errorf("--assertion-file logs in with the jwt-bearer grant, not --grant %s", o.Grant)}
	case o.ClientID == "":
		return nil, &FlagError{Err: fmt.Errorf("--assertion-file needs --client-id: the workload's client at the MCP server's authorization server")}
	}
	ca := &mcp.CrossApp{Workload: true, IDTokenFile: o.AssertionFile}
	if o.AssertionFile == "-" {
		data, err := io.ReadAll(io.LimitReader(o.IO.In, 1<<20))
		if err != nil {
			return nil, fmt.Errorf("reading the JWT from stdin: %w", err)
		}
		ca.IDTokenFile, ca.IDToken = "", strings.TrimSpace(string(data))
		if ca.IDToken == "" {
			return nil, &FlagError{Err: fmt.Errorf("--assertion-file -: stdin is empty")}
		}
	} else if abs, err := filepath.Abs(o.AssertionFile); err == nil {
		ca.IDTokenFile = abs // read again at expiry, from wherever
	}
	c := &mcp.OAuthClient{ClientID: o.ClientID, Scopes: scopes, Grant: mcp.GrantJWTBearer, PrivateKeyFile: o.PrivateKey, KeyID: o.KeyID, CrossApp: ca}
	var err error
	if c.ClientSecret, err = o.secretFrom("--client-secret-env", o.ClientSecretEnv); err != nil {
		return nil, err
	}
	return c, nil
}

// secretFrom is the value of the environment variable name ("" for no
// name); a name that is not set is an error naming flag.
func (o *MCPLoginOptions) secretFrom(flag, name string) (string, error) {
	if name == "" {
		return "", nil
	}
	for _, kv := range o.Environ() {
		if k, v, _ := strings.Cut(kv, "="); k == name && v != "" {
			return v, nil
		}
	}
	return "", &FlagError{Err: fmt.Errorf("%s %s: the variable is not set", flag, name)}
}

func newCmdMCPLogout(f *Factory) *cobra.Command {
	o := newMCPLoginOptions(f)
	cmd := &cobra.Command{
		Use:   "logout [server]",
		Short: "Revoke and delete the OAuth tokens stored for an MCP server",
		Long: `Delete the tokens ` + "`ollm mcp login`" + ` stored for the server under $OLLM_HOME/tokens.
When the authorization server advertises a revocation endpoint (RFC 7009),
the tokens are revoked there first: the refresh token, then the access
token. A revocation that fails is a warning; the tokens are deleted anyway,
and --local skips the revocation. The next connection needs a new login.
The server need not be in the profile any more.`,
		Example: `  ollm mcp logout github
  ollm mcp logout --url https://mcp.example.com/mcp`,
		Args: rangeArgs(0, 1),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case len(args) == 1 && o.URL != "":
				return &FlagError{Err: fmt.Errorf("give a server name or --url, not both")}
			case len(args) == 1:
				o.Name = args[0]
			case o.URL == "":
				return &FlagError{Err: fmt.Errorf("give the server to log out of: ollm mcp logout <server>, or --url URL")}
			}
			return mcpLogoutRun(o)
		},
	}
	cmd.Flags().BoolVar(&o.JSON, "json", false, "print the result as JSON")
	cmd.Flags().StringVar(&o.URL, "url", "", "log out of the ad-hoc server at `URL` (as logged in with login --url)")
	cmd.Flags().BoolVar(&o.Local, "local", false, "only delete the local tokens; do not revoke them at the authorization server")
	return cmd
}

func mcpLoginRun(o *MCPLoginOptions) error {
	client, err := o.oauthClient()
	if err != nil {
		return err
	}
	var spec mcp.Spec
	var roots []string
	if o.URL != "" {
		if spec, err = adHocSpec(o.URL, ""); err != nil {
			return &FlagError{Err: err}
		}
		o.Name = o.URL
	} else {
		var specs []mcp.Spec
		if specs, roots, err = o.Specs(); err != nil {
			return err
		}
		if spec, err = findSpec(specs, o.Name); err != nil {
			return err
		}
	}
	if client != nil {
		spec.OAuth = client
	}
	home, err := o.Home()
	if err != nil {
		return err
	}
	err = mcp.Login(o.Context, spec, mcp.LoginOptions{TokenDir: home.Tokens(), Environ: o.Environ(),
		Roots: roots, OpenURL: o.OpenURL, Timeout: o.Timeout,
		Warn: func(msg string) { fmt.Fprintf(o.IO.ErrOut, "warning: %s\n", msg) }})
	if err != nil {
		return err
	}
	tokenName := spec.TokenName
	if tokenName == "" {
		tokenName = spec.Name
	}
	fmt.Fprintf(o.IO.Out, "logged in to MCP server %s; tokens stored in %s\n", o.Name, mcp.TokenPath(home.Tokens(), tokenName))
	return nil
}

// findSpec is the profile's HTTP server called name.
func findSpec(specs []mcp.Spec, name string) (mcp.Spec, error) {
	for _, s := range specs {
		if s.Name != name {
			continue
		}
		if s.Transport() == mcp.TransportStdio {
			return s, &FlagError{Err: fmt.Errorf("MCP server %q runs over stdio; OAuth login is for HTTP servers (--url)", name)}
		}
		return s, nil
	}
	return mcp.Spec{}, &FlagError{Err: fmt.Errorf("no MCP server %q in the profile; `ollm mcp list` shows them", name)}
}

func mcpLogoutRun(o *MCPLoginOptions) error {
	home, err := o.Home()
	if err != nil {
		return err
	}
	tokenName := o.Name
	if o.URL != "" {
		spec, err := adHocSpec(o.URL, "")
		if err != nil {
			return &FlagError{Err: err}
		}
		o.Name, tokenName = o.URL, spec.TokenName
	}
	var revoked mcp.Revoked
	if !o.Local {
		revoked = revokeTokens(o, home.Tokens(), tokenName)
	}
	had, err := mcp.Logout(home.Tokens(), tokenName)
	if err != nil {
		return err
	}
	if o.JSON {
		return writeJSON(o.IO.Out, map[string]any{"server": o.Name, "removed": had, "revoked": revoked})
	}
	if len(revoked.Tokens) > 0 {
		fmt.Fprintf(o.IO.Out, "revoked the %s at %s\n", strings.ReplaceAll(strings.Join(revoked.Tokens, " and the "), "_", " "), revoked.Endpoint)
	}
	if had {
		fmt.Fprintf(o.IO.Out, "logged out of MCP server %s; its tokens are deleted\n", o.Name)
	} else {
		fmt.Fprintf(o.IO.Out, "no tokens stored for MCP server %s\n", o.Name)
	}
	return nil
}

// revokeTokens revokes the stored tokens at the authorization server
// (RFC 7009) when it has a revocation endpoint; a failure is a warning,
// since the local tokens go anyway.
func revokeTokens(o *MCPLoginOptions, dir, name string) mcp.Revoked {
	ctx, cancel := context.WithTimeout(o.Context, 15*time.Second)
	defer cancel()
	r, err := mcp.Revoke(ctx, dir, name, &http.Client{Timeout: 15 * time.Second})
	if err != nil {
		fmt.Fprintf(o.IO.ErrOut, "warning: MCP server %s: the tokens were not revoked at the authorization server (%v); they stay valid there until they expire\n", o.Name, err)
	}
	return r
}

// browserOpener prints the authorization URL and, when a terminal is
// attached, asks the system to open it (start runs the opener). Failing
// to start a browser is not an error: the URL is on the screen.
func browserOpener(io *IOStreams, start func(url string) error) func(string) error {
	return func(url string) error {
		fmt.Fprintf(io.ErrOut, "To authorize ollm, open this page:\n\n  %s\n\n", url)
		if io.StdinTTY || io.StderrTTY {
			if err := start(url); err != nil {
				fmt.Fprintf(io.ErrOut, "(could not start a browser: %v; open the page yourself)\n", err)
			}
		}
		fmt.Fprintln(io.ErrOut, "Waiting for the browser to come back...")
		return nil
	}
}

// startBrowser opens url with xdg-open (open on macOS).
func startBrowser(url string) error {
	name := "xdg-open"
	if runtime.GOOS == "darwin" {
		name = "open"
	}
	cmd := exec.Command(name, url)
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() { _ = cmd.Wait() }()
	return nil
}

// mcpAuth sets the OAuth options of a Manager: the token directory, and a
// browser login only when the user can be asked; without a terminal a
// server that needs a login fails, naming `ollm mcp login <server>`.
func mcpAuth(o *mcp.Options, home store.Home, io *IOStreams) {
	o.TokenDir = home.Tokens()
	if io.CanPrompt() {
		o.OpenURL = browserOpener(io, startBrowser)
	}
}
