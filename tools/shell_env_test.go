package tools

import (
	"os"
	"strings"
	"testing"

	"github.com/ollm/ollm/schema"
)

func TestSecretNamePasswordsAndWebhooks(t *testing.T) {
	tests := []struct {
		name   string
		secret bool
	}{
		{"SMTP_PASS", true},
		{"smtp_pass", true},
		{"DB_PASSWORD", true},
		{"LDAP_PASSWD", true},
		{"SLACK_WEBHOOK_URL", true},
		{"DISCORD_WEBHOOK", true},
		{"WEBHOOK_SECRET", true},
		{"TEAMS_WEBHOOK_ENDPOINT", true},
		{"BYPASS", false},
		{"COMPASS_HOME", false},
		{"PASSAGE_DIR", false},
		{"PWD", false},
		{"OLDPWD", false},
		{"HOOK_DIR", false},
	}
	for _, tt := range tests {
		if got := secretName(tt.name); got != tt.secret {
			t.Errorf("secretName(%q) = %v; want %v", tt.name, got, tt.secret)
		}
	}
}

func TestSecretValueURLPassword(t *testing.T) {
	tests := []struct {
		value  string
		secret bool
	}{
		{"postgres://u:pw@host/db", true},
		{"postgres://u:pw@host:5432/db?sslmode=disable", true},
		{"http://proxyuser:proxypass@proxy.example:3128", true},
		{"https://x-access-token:abc@git.example/org/repo.git", true},
		{"mysql://root:p/ss@db.example/app", true}, // an unencoded "/" in the password
		{"https://a.example/simple https://u:p@b.example/simple", true},
		{"amqp://guest:guest@localhost:5672/", true},
		{"postgres://u@host/db", false}, // a user, no password
		{"ssh://git@git.example/org/repo.git", false},
		{"https://u:@host/", false}, // empty password
		{"https://example.com/x", false},
		{"http://localhost:8080/@scope/pkg", false}, // a port, then a path with "@"
		{"https://host/search?q=a:b@c", false},      // ":" and "@" in the query
		{"user:pw@host", false},                     // no scheme: not a URL
		{"/usr/bin:/bin", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := secretValue(tt.value); got != tt.secret {
			t.Errorf("secretValue(%q) = %v; want %v", tt.value, got, tt.secret)
		}
	}
}

func TestSanitizeEnvURLsAndAllowEnv(t *testing.T) {
	environ := []string{
		"PATH=/bin",
		"DATABASE_URL=postgres://u:pw@host/db",
		"CACHE_URL=redis://cache.example:6379/0",
		"http_proxy=http://u:p@proxy.example:3128",
		"SMTP_PASS=x",
		"SLACK_WEBHOOK_URL=https://hooks.example/services/T/B/x",
	}
	kept, removed := sanitizeEnv(environ, []string{"http_proxy"})
	if got := strings.Join(kept, " "); got != "PATH=/bin CACHE_URL=redis://cache.example:6379/0 http_proxy=http://u:p@proxy.example:3128" {
		t.Errorf("kept %s", got)
	}
	if got := strings.Join(removed, " "); got != "DATABASE_URL SMTP_PASS SLACK_WEBHOOK_URL" {
		t.Errorf("removed %s", got)
	}
}

// TestShellEnvLacksSecretValues runs env in the shell tool and looks for
// the secrets' values, not only their names.
func TestShellEnvLacksSecretValues(t *testing.T) {
	secrets := map[string]string{
		"DATABASE_URL":      "postgres://app:dbpw-0001@db.example/app",
		"REDIS":             "redis://:redispw-0002@cache.example:6379", // a password without a user, any name
		"SMTP_PASS":         "smtppw-0003",
		"LDAP_PASSWORD":     "ldappw-0004",
		"FTP_PASSWD":        "ftppw-0005",
		"SLACK_WEBHOOK_URL": "https://hooks.example/services/T0/B0/hook-0006",
		"DEPLOY_WEBHOOK":    "https://ci.example/trigger/hook-0007",
	}
	environ := []string{"PATH=" + os.Getenv("PATH"), "PLAIN_URL=https://docs.example/guide", "KEPT_URL=https://u:kept-0008@git.example/"}
	for k, v := range secrets {
		environ = append(environ, k+"="+v)
	}
	f := newFixture(t, func(c *Config) {
		c.Tools.Shell = schema.Shell{Timeout: 60000, AllowEnv: []string{"KEPT_URL"}}
		c.Environ = func() []string { return environ }
	})
	env := f.ok("shell", `{"command":"env"}`)
	for name, value := range secrets {
		if strings.Contains(env, value) || strings.Contains(env, name+"=") {
			t.Errorf("env shows %s:\n%s", name, env)
		}
	}
	for _, want := range []string{"PLAIN_URL=https://docs.example/guide", "KEPT_URL=https://u:kept-0008@git.example/"} {
		if !strings.Contains(env, want) {
			t.Errorf("env lacks %s:\n%s", want, env)
		}
	}
}
