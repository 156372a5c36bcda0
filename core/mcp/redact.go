package mcp

import (
	"net/url"

	"github.com/ollm/ollm/internal/secrets"
)

// secretsOf lists the values that must not appear in what ollm says about
// a server (its errors, its status, the stderr it quotes): the values of
// the variables with secret-looking names in its environment (the process
// environment, its extension's settings and its own env entries, after
// ${VAR} expansion), of its extension's sensitive settings, of its
// headers, and the password of its URL.
func (m *Manager) secretsOf(s *server) []string {
	cfg := ExpandServer(s.spec.Name, s.spec.Config, m.opts.Environ, s.spec.SettingsEnv, s.spec.vars(&m.opts))
	out := secrets.FromEnv(cfg.Env)
	out = append(out, secrets.FromEnv(m.opts.Environ)...) // values the server's own env shadows
	out = append(out, secrets.FromMap(s.spec.SettingsEnv)...)
	for _, name := range s.spec.SecretEnv {
		if v := s.spec.SettingsEnv[name]; v != "" {
			out = append(out, v)
		}
	}
	out = append(out, secrets.FromHeaders(cfg.Headers)...)
	if u, err := url.Parse(cfg.URL); err == nil && u.User != nil {
		if p, ok := u.User.Password(); ok {
			out = append(out, p)
		}
	}
	return out
}

// redact cuts the server's secrets and any URL password out of text.
func (m *Manager) redact(s *server, text string) string {
	return secrets.RedactURLs(secrets.Redact(text, m.secretsOf(s)))
}

// command is the server's command line or URL as errors and the status
// show it, redacted.
func (m *Manager) command(s *server) string { return m.redact(s, describeCommand(s.spec)) }

// redactedError is an error whose text had secrets cut out; errors.Is and
// errors.As still see the error it wraps.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }
