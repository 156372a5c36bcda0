package tools

import (
	"path"
	"strings"
)

// secretName reports whether an environment variable's name looks like it
// holds a secret: *_TOKEN, *_KEY, *SECRET*, *PASSWORD* and their kin.
func secretName(name string) bool {
	n := strings.ToUpper(name)
	for _, suffix := range []string{"_TOKEN", "_KEY", "_PAT", "_APIKEY", "_CREDENTIALS", "_COOKIE", "_SESSION"} {
		if strings.HasSuffix(n, suffix) {
			return true
		}
	}
	for _, part := range []string{"SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "PRIVATE_KEY", "API_KEY", "APIKEY", "ACCESS_KEY", "AUTH_TOKEN"} {
		if strings.Contains(n, part) {
			return true
		}
	}
	return n == "TOKEN" || n == "KEY"
}

// sanitizeEnv drops the secret-looking variables of environ unless their
// name matches one of allow (exact names or path.Match globs such as
// "GOPRIVATE_*"). It returns the kept entries and the removed names.
func sanitizeEnv(environ, allow []string) (kept, removed []string) {
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if secretName(name) && !allowed(name, allow) {
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
