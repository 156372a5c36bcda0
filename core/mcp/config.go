package mcp

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/ollm/ollm/internal/secrets"
	"github.com/ollm/ollm/schema"
)

// Config is one server's configuration as the profile declares it.
type Config = schema.MCPServer

// Transports.
const (
	TransportStdio = "stdio"
	TransportSSE   = "sse"
	TransportHTTP  = "http"
)

// Spec is a server to run: its configuration and where it came from.
type Spec struct {
	Name      string       // "github", or "<extension>:<server>" for extension servers
	Config    Config       // after overrides
	Scope     schema.Scope // trust: workspace servers need approval
	Extension string       // the extension that declared it, if any
	Dir       string       // the extension's directory: default cwd, ${extensionPath}
	// SettingsEnv holds the extension's settings that declare an envVar,
	// by variable name.
	SettingsEnv map[string]string
	// SecretEnv names the SettingsEnv variables of sensitive settings,
	// whose values errors and status never show.
	SecretEnv []string
	// Permissions are the extension manifest's permissions: the sandbox
	// of its servers that declare none (see DeclaredSandbox).
	Permissions *schema.Sandbox
	// Roots are the directories offered to this server as roots; empty:
	// Options.Roots (the workspace) and the extra directories its sandbox
	// lets it read or write (see conn.roots).
	Roots []string
	// OAuth is a client registered with the server's authorization server
	// beforehand, and the scopes to ask for; nil registers dynamically.
	OAuth *OAuthClient
	// TokenName names the server's token file under TokenDir; default
	// Name. An ad-hoc --url server has one per URL.
	TokenName string
	// LoginCommand is what the user runs to log in, for messages;
	// default "ollm mcp login <name>".
	LoginCommand string
	// Pin is the extension's version and content hash as resolved (and,
	// for a store extension, as ollm.lock pins it): part of the tool
	// cache's key, so an updated extension's servers are listed afresh.
	Pin string
	// Off, when set, says why the server does not run although its
	// configuration enables it: its extension is not enabled (a session
	// would not activate it). It is shown disabled with this as its error.
	Off string
}

// OAuthClient is how ollm authenticates at a server's authorization
// server when it is not to register itself dynamically.
type OAuthClient struct {
	ClientID     string
	ClientSecret string // the secret's value, "" for a public client
	// ClientSecretEnv names the variable holding the secret, read from
	// the environment (and the extension's settings) at login.
	ClientSecretEnv string
	Scopes          []string // asked for at login; default the server's challenge
	// Grant is "authorization_code" (the default: the user logs in in the
	// browser) or "client_credentials" (no user: the client's own
	// credentials, a secret or a private key, get the token).
	Grant string
	// PrivateKeyFile is a PEM private key (RSA or EC P-256) for
	// private_key_jwt client authentication with client_credentials.
	PrivateKeyFile string
	// KeyID is the "kid" of the key, when the authorization server wants it.
	KeyID string
	// MetadataURL is the HTTPS URL of a client ID metadata document that
	// describes ollm (name, redirect URIs): an authorization server that
	// supports them takes the URL as the client id and fetches the
	// document, so no registration is needed.
	MetadataURL string
	// CrossApp, when set, logs in by enterprise-managed authorization
	// (cross-app access): the enterprise IdP's ID token is exchanged for
	// an identity assertion grant (ID-JAG), which the authorization server
	// takes for a token (Grant is GrantJWTBearer).
	CrossApp *CrossApp
	// issuer, when set, is the authorization server ClientID is
	// registered with (a step-up reusing the client of the stored
	// record): at another one the client is not used.
	issuer string
}

// CrossApp is where the enterprise identity provider's ID token comes
// from and how ollm is known there.
type CrossApp struct {
	// IDTokenFile holds the ID token; it is read again when the access
	// token expires. IDToken is the token itself, when it was given
	// another way (stdin); it is not stored.
	IDTokenFile string
	IDToken     string
	// Workload: the token is a workload's own JWT that the authorization
	// server trusts (workload identity federation, RFC 7523 §2.1): it is
	// presented there as is, with no exchange at an IdP.
	Workload bool
	// TokenEndpoint is the IdP's token endpoint; without it, it comes
	// from the metadata of Issuer (OpenID Connect discovery, RFC 8414).
	TokenEndpoint string
	Issuer        string
	// ClientID and ClientSecret are ollm's client at the IdP (the secret
	// "" for a public client).
	ClientID     string
	ClientSecret string
}

// Grants.
const (
	GrantAuthorizationCode = "authorization_code"
	GrantClientCredentials = "client_credentials"
	// GrantJWTBearer is the RFC 7523 grant that takes an ID-JAG.
	GrantJWTBearer = "urn:ietf:params:oauth:grant-type:jwt-bearer"
)

func (s Spec) tokenName() string {
	if s.TokenName != "" {
		return s.TokenName
	}
	return s.Name
}

func (s Spec) loginCommand() string {
	if s.LoginCommand != "" {
		return s.LoginCommand
	}
	return "ollm mcp login " + s.Name
}

func (s Spec) grant() string {
	if s.OAuth != nil && s.OAuth.Grant != "" {
		return s.OAuth.Grant
	}
	return GrantAuthorizationCode
}

// headless reports whether the server's grant needs no user in a browser.
func (s Spec) headless() bool {
	return s.grant() == GrantClientCredentials || s.grant() == GrantJWTBearer && s.OAuth.CrossApp != nil
}

// Transport is the server's transport with the default filled in: stdio
// when a command is given, http when only a URL is.
func (s Spec) Transport() string { return transportOf(s.Config) }

func transportOf(c Config) string {
	switch {
	case c.Transport != "":
		return c.Transport
	case c.Command == "" && c.URL != "":
		return TransportHTTP
	default:
		return TransportStdio
	}
}

// NeedsApproval reports whether the server starts a process or connects on
// behalf of a workspace or a downloaded extension, which the user has to
// approve first. Downloaded (store) extensions are pinned by the
// workspace's ollm.lock, whose digest the workspace approval covers. An
// --ext extension is one the user named on the command line.
func (s Spec) NeedsApproval() bool {
	return s.Scope == schema.ScopeWorkspace || s.Scope == schema.ScopeStore
}

// Specs lists the servers a resolved profile declares: the profile's own
// (with the scope of the layer that declared each) and every extension's
// (named "<extension>:<server>"), with mcp.overrides applied, sorted by
// name. Disabled servers are listed too, so their status can be shown.
func Specs(r *schema.Resolved) []Spec {
	var specs []Spec
	for name, cfg := range r.Profile.MCP.Servers {
		specs = append(specs, Spec{Name: name, Config: cfg, Scope: r.ServerScopes[name]})
	}
	for _, ext := range r.Extensions {
		env := SettingsEnv(ext.Manifest.Settings, r.Profile.Settings[ext.Name])
		secret := secretEnv(ext.Manifest.Settings)
		for name, cfg := range ext.Manifest.MCPServers {
			specs = append(specs, Spec{
				Name: ext.Name + ":" + name, Config: cfg, Scope: ext.Scope,
				Extension: ext.Name, Dir: ext.Dir, SettingsEnv: env, SecretEnv: secret,
				Permissions: ext.Manifest.Permissions.Clone(), Pin: ext.Manifest.Version + " " + ext.Hash,
			})
		}
	}
	for i := range specs {
		if o, ok := r.Profile.MCP.Overrides[specs[i].Name]; ok {
			specs[i].Config = applyOverride(specs[i].Config, o)
			if o.Cwd != "" && specs[i].Extension == "" {
				// a profile server's working directory; a relative one is
				// taken in the workspace (extensions: core/ext overrideCwd)
				dir := o.Cwd
				if !filepath.IsAbs(dir) && r.Workspace != "" {
					dir = filepath.Join(r.Workspace, dir)
				}
				specs[i].Config.Cwd = dir
			}
		}
		specs[i].Roots = resolveRoots(specs[i].Config.Roots, specs[i].Dir, r.Workspace)
		specs[i].OAuth = oauthClient(specs[i].Config.OAuth)
		if oc := specs[i].OAuth; oc != nil && oc.PrivateKeyFile != "" {
			oc.PrivateKeyFile = resolveRoots([]string{oc.PrivateKeyFile}, specs[i].Dir, r.Workspace)[0]
		}
	}
	sort.Slice(specs, func(i, j int) bool { return specs[i].Name < specs[j].Name })
	return specs
}

// applyOverride returns c adjusted by o; env entries are merged.
func applyOverride(c Config, o schema.MCPOverride) Config {
	if o.Enabled != nil {
		c.Enabled = *o.Enabled
	}
	if o.Timeout > 0 {
		c.Timeout = o.Timeout
	}
	if len(o.Env) > 0 {
		env := make(map[string]string, len(c.Env)+len(o.Env))
		for k, v := range c.Env {
			env[k] = v
		}
		for k, v := range o.Env {
			env[k] = v
		}
		c.Env = env
	}
	if o.IncludeTools != nil {
		c.IncludeTools = o.IncludeTools
	}
	if o.ExcludeTools != nil {
		c.ExcludeTools = o.ExcludeTools
	}
	return c
}

// SettingsEnv maps the extension settings that declare an envVar to their
// values: the profile's value for the setting, else its default. Settings
// with neither are left out.
func SettingsEnv(settings []schema.Setting, values map[string]any) map[string]string {
	var env map[string]string
	for _, s := range settings {
		if s.EnvVar == "" {
			continue
		}
		v, ok := values[s.Name]
		if !ok || v == nil {
			v = s.Default
		}
		if v == nil {
			continue
		}
		if env == nil {
			env = map[string]string{}
		}
		env[s.EnvVar] = settingString(v)
	}
	return env
}

// secretEnv names the variables of the sensitive settings that declare one.
func secretEnv(settings []schema.Setting) []string {
	var out []string
	for _, s := range settings {
		if s.Sensitive && s.EnvVar != "" {
			out = append(out, s.EnvVar)
		}
	}
	return out
}

func settingString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	default:
		return fmt.Sprint(x)
	}
}

// toolAllowed applies includeTools (when not empty, only those) and
// excludeTools (never those; exclusion wins).
func toolAllowed(c Config, name string) bool {
	if contains(c.ExcludeTools, name) {
		return false
	}
	return len(c.IncludeTools) == 0 || contains(c.IncludeTools, name)
}

// describeCommand is how errors name a server's command or URL, with
// the password of a URL left out (Manager.command also leaves out the
// server's secrets).
func describeCommand(s Spec) string {
	if s.Transport() != TransportStdio {
		return secrets.RedactURLs(s.Config.URL)
	}
	parts := []string{s.Config.Command}
	for _, a := range s.Config.Args {
		if a == "" || strings.ContainsAny(a, " \t\"'") {
			a = strconv.Quote(a)
		}
		parts = append(parts, a)
	}
	return secrets.RedactURLs(strings.Join(parts, " "))
}

// resolveRoots makes a server's configured roots absolute: relative ones
// are the extension's (dir) for an extension server, else the
// workspace's; "~/" is the home directory.
func resolveRoots(roots []string, dir, workspace string) []string {
	if len(roots) == 0 {
		return nil
	}
	base := workspace
	if dir != "" {
		base = dir
	}
	home, _ := os.UserHomeDir()
	out := make([]string, 0, len(roots))
	for _, r := range roots {
		switch {
		case r == "~" || strings.HasPrefix(r, "~/"):
			r = filepath.Join(home, strings.TrimPrefix(r, "~"))
		case !filepath.IsAbs(r) && base != "":
			r = filepath.Join(base, r)
		}
		out = append(out, filepath.Clean(r))
	}
	return out
}

// oauthClient is the profile's oauth block as core takes it.
func oauthClient(o *schema.MCPOAuth) *OAuthClient {
	if o == nil {
		return nil
	}
	return &OAuthClient{ClientID: o.ClientID, ClientSecretEnv: o.ClientSecretEnv, Scopes: o.Scopes,
		Grant: o.Grant, PrivateKeyFile: o.PrivateKeyFile, KeyID: o.KeyID, MetadataURL: o.MetadataURL}
}
