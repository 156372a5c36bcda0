package profiles

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/ollm/ollm/internal/secrets"
	"github.com/ollm/ollm/schema"
)

// Redacted is what replaces a secret in output.
const Redacted = secrets.Redacted

// LooksSecret reports whether a variable or header name suggests a secret:
// *_TOKEN, *_KEY, *_PAT, *SECRET*, *PASSWORD*, *PASSWD*, *CREDENTIAL*,
// *AUTHORIZATION*, *API_KEY*, *COOKIE*, *PRIVATE_KEY* (internal/secrets
// holds the rules, so core/mcp applies the same ones).
func LooksSecret(name string) bool { return secrets.LooksSecret(name) }

// Redact returns a deep copy of r in which the values of sensitive
// extension settings, secret-looking environment entries and headers are
// replaced whole by Redacted, and so is the password of a server URL's
// userinfo. ${VAR} references are kept: they are not secrets. A value
// found that way is also cut out of the other values of servers and
// settings (args, env, headers, URLs, strings): anywhere when it has
// secrets.MinLen characters or more, only as the whole value when shorter.
// Every string of the copy then has its URLs' credentials hidden
// (secrets.RedactURLs): model.endpoint, search URLs, sources included.
func Redact(r *schema.Resolved) *schema.Resolved {
	var c schema.Resolved
	b, _ := json.Marshal(r)
	_ = json.Unmarshal(b, &c)
	rd := &redactor{sensitive: map[string]map[string]bool{}}
	for i := range c.Extensions {
		rd.collectExtension(&c.Extensions[i])
	}
	rd.collectSettings(c.Profile.Settings)
	rd.values = append(rd.values, secrets.FromURL(c.Profile.Model.Endpoint)...)
	for _, s := range c.Profile.MCP.Servers {
		rd.collectServer(s)
	}
	for _, o := range c.Profile.MCP.Overrides {
		rd.values = append(rd.values, secretValues(o.Env)...)
	}
	for i := range c.Extensions {
		x := &c.Extensions[i]
		for n, s := range x.Manifest.MCPServers {
			x.Manifest.MCPServers[n] = rd.server(s)
		}
	}
	for ext, vals := range c.Profile.Settings {
		for k, v := range vals {
			if rd.sensitive[ext][k] || LooksSecret(k) {
				vals[k] = Redacted
			} else if s, ok := v.(string); ok {
				vals[k] = rd.text(s)
			}
		}
	}
	for n, s := range c.Profile.MCP.Servers {
		c.Profile.MCP.Servers[n] = rd.server(s)
	}
	for n, o := range c.Profile.MCP.Overrides {
		o.Env = rd.strings(o.Env)
		c.Profile.MCP.Overrides[n] = o
	}
	return rd.everywhere(&c)
}

// everywhere applies rd.text to every string of r (the model endpoint,
// search URLs, sources, layer paths, ...), so no URL credential or
// collected secret is left in a field the passes above do not know.
func (rd *redactor) everywhere(r *schema.Resolved) *schema.Resolved {
	b, err := json.Marshal(r)
	if err != nil {
		return r
	}
	var tree any
	if json.Unmarshal(b, &tree) != nil {
		return r
	}
	b, err = json.Marshal(rd.walk(tree))
	if err != nil {
		return r
	}
	var out schema.Resolved
	if json.Unmarshal(b, &out) != nil {
		return r
	}
	return &out
}

func (rd *redactor) walk(v any) any {
	switch x := v.(type) {
	case string:
		return rd.text(x)
	case []any:
		for i := range x {
			x[i] = rd.walk(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = rd.walk(x[k])
		}
	}
	return v
}

// redactor knows the secret values of one resolution.
type redactor struct {
	sensitive map[string]map[string]bool // extension -> sensitive setting names
	values    []string                   // the secret values themselves
}

// collectExtension notes the extension's sensitive settings, replaces
// their defaults and collects its servers' secrets.
func (rd *redactor) collectExtension(x *schema.Extension) {
	for i, s := range x.Manifest.Settings {
		if !s.Sensitive {
			continue
		}
		if rd.sensitive[x.Name] == nil {
			rd.sensitive[x.Name] = map[string]bool{}
		}
		rd.sensitive[x.Name][s.Name] = true
		if s.Default != nil {
			rd.add(s.Default)
			x.Manifest.Settings[i].Default = Redacted
		}
	}
	for _, s := range x.Manifest.MCPServers {
		rd.collectServer(s)
	}
}

func (rd *redactor) collectSettings(settings map[string]map[string]any) {
	for ext, vals := range settings {
		for k, v := range vals {
			if rd.sensitive[ext][k] || LooksSecret(k) {
				rd.add(v)
			}
		}
	}
}

func (rd *redactor) collectServer(s schema.MCPServer) {
	rd.values = append(rd.values, secretValues(s.Env)...)
	rd.values = append(rd.values, secretValues(s.Headers)...)
	rd.values = append(rd.values, secrets.FromURL(s.URL)...)
}

func (rd *redactor) add(v any) {
	switch x := v.(type) {
	case nil:
	case string:
		if x != "" && !isReference(x) {
			rd.values = append(rd.values, x)
		}
	default:
		b, _ := json.Marshal(x)
		rd.values = append(rd.values, string(b))
	}
}

// secretValues lists the literal values of secret-looking entries of m.
func secretValues(m map[string]string) []string {
	var out []string
	for k, v := range m {
		if LooksSecret(k) && v != "" && !isReference(v) {
			out = append(out, v)
		}
	}
	return out
}

// text is s with the collected secrets and URL passwords cut out.
func (rd *redactor) text(s string) string {
	return secrets.Scrub(s, rd.values)
}

func (rd *redactor) server(s schema.MCPServer) schema.MCPServer {
	s.Env = rd.strings(s.Env)
	s.Headers = rd.strings(s.Headers)
	s.URL = rd.text(s.URL)
	s.Command = rd.text(s.Command)
	if s.Args != nil {
		args := make([]string, len(s.Args))
		for i, a := range s.Args {
			args[i] = rd.text(a)
		}
		s.Args = args
	}
	return s
}

// strings redacts the values of m: whole for secret-looking names unless
// they only reference variables, otherwise the collected secrets within
// them.
func (rd *redactor) strings(m map[string]string) map[string]string {
	for k, v := range m {
		if LooksSecret(k) && !isReference(v) {
			m[k] = Redacted
		} else {
			m[k] = rd.text(v)
		}
	}
	return m
}

// isReference reports a value that only names variables, such as
// "${TOKEN}" or "Bearer ${TOKEN}".
func isReference(v string) bool {
	rest := strings.TrimSpace(stripRefs(v))
	return strings.Contains(v, "${") && strings.TrimSpace(strings.TrimPrefix(rest, "Bearer")) == ""
}

func stripRefs(v string) string {
	for {
		i := strings.Index(v, "${")
		if i < 0 {
			return v
		}
		j := strings.Index(v[i:], "}")
		if j < 0 {
			return v
		}
		v = v[:i] + v[i+j+1:]
	}
}

// Sends lists, one line each, what a server sends that may be a secret:
// every variable its headers, env, URL and arguments reference ("$GITHUB_TOKEN
// in header Authorization"), literal values of secret-looking headers and
// env entries (never the value), a URL's own credentials and an OAuth
// client secret's variable. `ollm trust` shows them so an approval says
// which secrets go where. Sorted, so the output is stable.
func Sends(s schema.MCPServer) []string {
	var out []string
	for _, k := range sortedNames(s.Headers) {
		out = append(out, sends(s.Headers[k], "header "+k)...)
	}
	for _, k := range sortedNames(s.Env) {
		out = append(out, sends(s.Env[k], "env "+k)...)
	}
	for _, v := range refs(s.URL) {
		out = append(out, "$"+v+" in the URL")
	}
	if len(secrets.FromURL(s.URL)) > 0 {
		out = append(out, "a credential written in the URL")
	}
	for i, a := range s.Args {
		for _, v := range refs(a) {
			out = append(out, fmt.Sprintf("$%s in args[%d]", v, i))
		}
	}
	if s.OAuth != nil && s.OAuth.ClientSecretEnv != "" {
		out = append(out, "$"+s.OAuth.ClientSecretEnv+" as the OAuth client secret")
	}
	return out
}

// HookSends is Sends for a hook: the variables its env entries and
// arguments reference and its literal secret-looking env values.
func HookSends(h schema.Hook) []string {
	var out []string
	for _, k := range sortedNames(h.Env) {
		out = append(out, sends(h.Env[k], "env "+k)...)
	}
	for i, a := range append([]string{h.Command}, h.Args...) {
		where := "its command"
		if i > 0 {
			where = fmt.Sprintf("args[%d]", i-1)
		}
		for _, v := range refs(a) {
			out = append(out, "$"+v+" in "+where)
		}
	}
	return out
}

// sends describes one header or env value: the variables it references,
// or "a literal secret" for a secret-looking name with a written value.
func sends(value, where string) []string {
	var out []string
	for _, v := range refs(value) {
		out = append(out, "$"+v+" in "+where)
	}
	name := where[strings.IndexByte(where, ' ')+1:]
	if len(out) == 0 && value != "" && LooksSecret(name) {
		out = append(out, "a secret written in "+where)
	}
	return out
}

// refs lists the variables ${NAME} and ${NAME:-default} in s, in order,
// each once.
func refs(s string) []string {
	var out []string
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			return out
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			return out
		}
		name, _, _ := strings.Cut(s[i+2:i+j], ":-")
		if name != "" && !slices.Contains(out, name) {
			out = append(out, name)
		}
		s = s[i+j+1:]
	}
}

func sortedNames(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
