package secrets

import "testing"

// The names redaction treats as secret (what ollm shows and logs; what
// reaches a process is decided by allow-list, core/sandbox.Environ).
func TestLooksSecretNames(t *testing.T) {
	secret := []string{"GITHUB_TOKEN", "github_token", "OPENAI_API_KEY", "AWS_SECRET_ACCESS_KEY", "DB_PASSWORD",
		"PGPASSWORD", "MYSQL_PWD_SECRET", "NPM_AUTH_TOKEN", "SSH_PRIVATE_KEY", "GH_PAT", "GOOGLE_APPLICATION_CREDENTIALS",
		"CLIENT_SECRET", "TOKEN", "STRIPE_APIKEY", "SMTP_PASSWD", "SMTP_PASS", "smtp_pass", "LDAP_PASSWD",
		"SLACK_WEBHOOK_URL", "DISCORD_WEBHOOK", "WEBHOOK_SECRET", "TEAMS_WEBHOOK_ENDPOINT"}
	plain := []string{"PATH", "HOME", "KEYBOARD_LAYOUT", "TOKENIZER_PATH", "GOPATH", "SSH_AUTH_SOCK", "MONKEY", "EDITOR",
		"LANG", "BYPASS", "COMPASS_HOME", "PASSAGE_DIR", "PWD", "OLDPWD", "HOOK_DIR"}
	for _, n := range secret {
		if !LooksSecret(n) {
			t.Errorf("LooksSecret(%q) = false, want true", n)
		}
	}
	for _, n := range plain {
		if LooksSecret(n) {
			t.Errorf("LooksSecret(%q) = true, want false", n)
		}
	}
}
