package tools

import (
	"path"
	"strings"

	"github.com/ollm/ollm/internal/secrets"
)

// secretName reports whether an environment variable's name looks like it
// holds a secret (*_TOKEN, *_KEY, *SECRET*, *PASSWORD*, *_PASS, *WEBHOOK*
// and their kin): the same rules as every redaction (internal/secrets).
func secretName(name string) bool { return secrets.LooksSecret(name) }

// secretValue reports whether a variable's value holds a URL with a
// password in it, scheme://user:password@host, whatever the name
// (DATABASE_URL, http_proxy, a list of index URLs). "user@host" alone and
// "host:port/path@x" are not passwords.
func secretValue(value string) bool {
	for rest := value; ; {
		i := strings.Index(rest, "://")
		if i < 0 {
			return false
		}
		rest = rest[i+3:]
		token := rest
		if end := strings.IndexAny(rest, " \t\n"); end >= 0 {
			token = rest[:end]
		}
		if hasPassword(token) {
			return true
		}
	}
}

// hasPassword looks at what follows "://" up to the next blank.
func hasPassword(token string) bool {
	at := strings.IndexByte(token, '@')
	if at < 0 {
		return false
	}
	user, pw, ok := strings.Cut(token[:at], ":")
	if !ok || pw == "" || strings.ContainsAny(user, "/?#") {
		return false
	}
	port, _, isPath := strings.Cut(pw, "/")
	return !(isPath && port != "" && strings.Trim(port, "0123456789") == "")
}

// sanitizeEnv drops the secret-looking variables of environ (by name, or
// by a URL with a password in the value) unless their name matches one of
// allow (exact names or path.Match globs such as "GOPRIVATE_*"). It
// returns the kept entries and the removed names.
func sanitizeEnv(environ, allow []string) (kept, removed []string) {
	for _, kv := range environ {
		name, value, _ := strings.Cut(kv, "=")
		if (secretName(name) || secretValue(value)) && !allowed(name, allow) {
			removed = append(removed, name)
			continue
		}
		kept = append(kept, kv)
	}
	return kept, removed
}

func allowed(name string, allow []string) bool {
	for _, a := range allow {
		if a == name {
			return true
		}
		if ok, _ := path.Match(a, name); ok {
			return true
		}
	}
	return false
}
