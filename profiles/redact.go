package profiles

import (
	"encoding/json"
	"strings"

	"github.com/ollm/ollm/schema"
)

// Redacted is what replaces a secret in output.
const Redacted = "[redacted]"

// LooksSecret reports whether a variable or header name suggests a secret:
// *_TOKEN, *_KEY, *SECRET*, *PASSWORD*, *PASSWD*, *CREDENTIAL*, AUTHORIZATION,
// *API_KEY*, *COOKIE*.
func LooksSecret(name string) bool {
	n := strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
	for _, s := range []string{"SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "AUTHORIZATION", "APIKEY", "API_KEY", "COOKIE", "PRIVATE_KEY"} {
		if strings.Contains(n, s) {
			return true
		}
	}
	return strings.HasSuffix(n, "_TOKEN") || n == "TOKEN" || strings.HasSuffix(n, "_KEY") || strings.HasSuffix(n, "_PAT")
}

// Redact returns a deep copy of r in which the values of sensitive
// extension settings, secret-looking environment entries and headers are
// replaced by Redacted. ${VAR} references are kept: they are not secrets.
func Redact(r *schema.Resolved) *schema.Resolved {
	var c schema.Resolved
	b, _ := json.Marshal(r)
	_ = json.Unmarshal(b, &c)
	sensitive := map[string]map[string]bool{}
	for i := range c.Extensions {
		x := &c.Extensions[i]
		for _, s := range x.Manifest.Settings {
			if s.Sensitive {
				if sensitive[x.Name] == nil {
					sensitive[x.Name] = map[string]bool{}
				}
				sensitive[x.Name][s.Name] = true
				if s.Default != nil {
					x.Manifest.Settings = redactDefault(x.Manifest.Settings, s.Name)
				}
			}
		}
		for n, s := range x.Manifest.MCPServers {
			x.Manifest.MCPServers[n] = redactServer(s)
		}
	}
	for ext, vals := range c.Profile.Settings {
		for k := range vals {
			if sensitive[ext][k] || LooksSecret(k) {
				vals[k] = Redacted
			}
		}
	}
	for n, s := range c.Profile.MCP.Servers {
		c.Profile.MCP.Servers[n] = redactServer(s)
	}
	for n, o := range c.Profile.MCP.Overrides {
		o.Env = redactMap(o.Env)
		c.Profile.MCP.Overrides[n] = o
	}
	return &c
}

func redactDefault(ss []schema.Setting, name string) []schema.Setting {
	for i := range ss {
		if ss[i].Name == name {
			ss[i].Default = Redacted
		}
	}
	return ss
}

func redactServer(s schema.MCPServer) schema.MCPServer {
	s.Env = redactMap(s.Env)
	s.Headers = redactMap(s.Headers)
	return s
}

func redactMap(m map[string]string) map[string]string {
	for k, v := range m {
		if LooksSecret(k) && !isReference(v) {
			m[k] = Redacted
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
