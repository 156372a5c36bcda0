package secrets

import (
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/ollm/ollm/internal/lazyre"
)

// Redacted is what replaces a secret.
const Redacted = "[redacted]"

// MinLen is the length (in characters) from which a secret is replaced
// wherever it occurs in text. A shorter one ("x", "42") would match
// inside ordinary words, mangling the text and, worse, showing where the
// secret was; it is replaced only when it is the whole value.
const MinLen = 4

// LooksSecret reports whether a variable or header name suggests a secret:
// *_TOKEN, *_KEY, *_PAT, *SECRET*, *PASSWORD*, *PASSWD*, *CREDENTIAL*,
// *AUTHORIZATION*, *API_KEY*, *APIKEY*, *COOKIE*, *PRIVATE_KEY*. Case and
// '-' versus '_' do not matter.
func LooksSecret(name string) bool {
	n := strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
	for _, s := range []string{"SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "AUTHORIZATION", "APIKEY", "API_KEY", "COOKIE",
		"PRIVATE_KEY", "ACCESS_KEY", "AUTH_TOKEN", "WEBHOOK"} {
		if strings.Contains(n, s) {
			return true
		}
	}
	for _, suffix := range []string{"_TOKEN", "_KEY", "_PAT", "_PASS", "_SESSION"} {
		if strings.HasSuffix(n, suffix) {
			return true
		}
	}
	return n == "TOKEN" || n == "KEY"
}

// Redact replaces the secrets in s. A secret of MinLen characters or more
// is replaced wherever it occurs; a shorter one only when it is all of s.
// Overlapping and nested occurrences become one Redacted, so a secret that
// contains another is replaced whole, and text already replaced is never
// matched again. Empty and blank secrets are ignored.
func Redact(s string, secrets []string) string {
	if s == "" {
		return s
	}
	var cover []bool // cover[i]: byte i of s is part of a secret
	for _, sec := range secrets {
		if strings.TrimSpace(sec) == "" {
			continue
		}
		if utf8.RuneCountInString(sec) < MinLen {
			if s == sec {
				return Redacted
			}
			continue
		}
		for i := 0; ; {
			j := strings.Index(s[i:], sec)
			if j < 0 {
				break
			}
			if cover == nil {
				cover = make([]bool, len(s))
			}
			for k := i + j; k < i+j+len(sec); k++ {
				cover[k] = true
			}
			i += j + 1
		}
	}
	if cover == nil {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case !cover[i]:
			b.WriteByte(s[i])
		case i == 0 || !cover[i-1]:
			b.WriteString(Redacted)
		}
	}
	return b.String()
}

// userinfo matches scheme://user:password@ up to the password; the
// password runs to the last '@' before the host.
var userinfo = lazyre.New(`([A-Za-z][A-Za-z0-9+.\-]*://[^\s/?#@:]*:)[^\s/?#]+@`)

// urlSpan matches a URL in text: a scheme, "://" and what follows up to
// white space or a quote.
var urlSpan = lazyre.New("[A-Za-z][A-Za-z0-9+.\\-]*://[^\\s\"'<>`]+")

// queryParam matches one name=value pair of a query.
// A value stops at the punctuation that closes a URL quoted in text
// ("(see https://h/?key=k)", "<https://h/?key=k>") so what follows the
// URL stays.
// A value already [redacted] is matched whole, so redacting twice changes
// nothing.
var queryParam = lazyre.New("([?&;])([^=&#?;\\s]+)=(\\[redacted\\]|[^&#;\\s)\\]}>,|\"'`]*)")

// RedactURLs hides the credentials of every URL in s: the password of its
// userinfo (scheme://user:pass@host becomes scheme://user:[redacted]@host,
// the user name is kept) and the values of query parameters whose names
// look like keys (SecretParam: ?api_key=..., &token=..., &sig=...).
func RedactURLs(s string) string {
	if !strings.Contains(s, "://") {
		return s
	}
	s = userinfo.Re().ReplaceAllString(s, "${1}"+Redacted+"@")
	if !strings.ContainsAny(s, "?") {
		return s
	}
	return urlSpan.Re().ReplaceAllStringFunc(s, redactQuery)
}

// redactQuery masks the secret-looking parameters of one URL's query.
func redactQuery(u string) string {
	q := strings.IndexByte(u, '?')
	if q < 0 {
		return u
	}
	end := len(u)
	if h := strings.IndexByte(u[q:], '#'); h >= 0 {
		end = q + h
	}
	query := queryParam.Re().ReplaceAllStringFunc(u[q:end], func(kv string) string {
		m := queryParam.Re().FindStringSubmatch(kv)
		if m[3] == "" || m[3] == Redacted || !SecretParam(m[2]) {
			return kv
		}
		return m[1] + m[2] + "=" + Redacted
	})
	return u[:q] + query + u[end:]
}

// SecretParam reports whether a URL query parameter name carries a
// credential: key, token, sig, signature, auth, password, pass, pwd,
// secret, code_verifier, any name LooksSecret accepts (api_key,
// access_token, client_secret, X-Amz-Security-Token, ...) and names ending
// in -signature or -credential (X-Amz-Signature, X-Goog-Credential).
func SecretParam(name string) bool {
	n := strings.ToLower(strings.ReplaceAll(name, "-", "_"))
	switch n {
	case "key", "token", "sig", "signature", "auth", "password", "pass", "pwd", "secret", "code_verifier", "apikey":
		return true
	}
	return LooksSecret(name) || strings.HasSuffix(n, "_signature") || strings.HasSuffix(n, "_credential") ||
		strings.HasSuffix(n, "token")
}

// Scrub is the one redaction of text ollm shows or writes: the known
// secrets cut out (Redact), then every URL's credentials (RedactURLs).
func Scrub(s string, known []string) string {
	return RedactURLs(Redact(s, known))
}

// FromURL lists the credentials a URL carries: the password of its
// userinfo and the values of its secret-looking query parameters, so a
// server that echoes one alone is redacted too.
func FromURL(raw string) []string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u == nil {
		return nil
	}
	var out []string
	if u.User != nil {
		if p, ok := u.User.Password(); ok && p != "" {
			out = append(out, p)
		}
	}
	for name, vals := range u.Query() {
		if !SecretParam(name) {
			continue
		}
		for _, v := range vals {
			if v != "" {
				out = append(out, v)
			}
		}
	}
	return out
}

// FromEnv lists the values of the KEY=VALUE entries whose names look
// secret.
func FromEnv(environ []string) []string {
	var out []string
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok && v != "" && LooksSecret(k) {
			out = append(out, v)
		}
	}
	return out
}

// FromMap lists the values of the entries of m whose names look secret.
func FromMap(m map[string]string) []string {
	var out []string
	for k, v := range m {
		if v != "" && LooksSecret(k) {
			out = append(out, v)
		}
	}
	return out
}

// FromHeaders lists the values of HTTP headers, and the credentials of
// those of the form "<scheme> <credentials>" ("Bearer abc") alone, since
// a server may quote the token without its scheme.
func FromHeaders(h map[string]string) []string {
	var out []string
	for _, v := range h {
		if v == "" {
			continue
		}
		out = append(out, v)
		if _, cred, ok := strings.Cut(strings.TrimSpace(v), " "); ok && strings.TrimSpace(cred) != "" {
			out = append(out, strings.TrimSpace(cred))
		}
	}
	return out
}
