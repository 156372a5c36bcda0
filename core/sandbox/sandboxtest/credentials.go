package sandboxtest

import (
	"slices"
	"strings"
	"testing"
)

// Credentials are variables that commonly hold credentials on a
// developer's machine or a CI runner, each with a value no other variable
// holds, plus a made-up one (ACME_DEPLOY_KEY) that no list of names knows.
// REDIS_URL and SENTRY_DSN hold no password a pattern would see, and
// MYSQL_PWD, DOCKER_AUTH_CONFIG and SSH_AUTH_SOCK no secret-looking name.
var Credentials = map[string]string{
	"AWS_SECRET_ACCESS_KEY":          "leak-aws-secret-0001",
	"AWS_SESSION_TOKEN":              "leak-aws-session-0002",
	"GITHUB_TOKEN":                   "leak-ghp-0003",
	"GH_TOKEN":                       "leak-gh-0004",
	"GITLAB_TOKEN":                   "leak-glpat-0005",
	"NPM_TOKEN":                      "leak-npm-0006",
	"NPM_CONFIG__AUTH":               "leak-npm-auth-0007",
	"MYSQL_PWD":                      "leak-mysql-0008",
	"PGPASSWORD":                     "leak-pg-0009",
	"DOCKER_AUTH_CONFIG":             `{"auths":{"registry.example":{"auth":"leak-docker-0010"}}}`,
	"CI_JOB_JWT":                     "leak-jwt-0011",
	"CI_JOB_TOKEN":                   "leak-ci-job-0012",
	"SENTRY_DSN":                     "https://leak-sentry-0013@o1.ingest.example/1",
	"SLACK_TOKEN":                    "leak-xoxb-0014",
	"OPENAI_API_KEY":                 "leak-sk-0015",
	"ANTHROPIC_API_KEY":              "leak-sk-ant-0016",
	"HF_TOKEN":                       "leak-hf-0017",
	"DATABASE_URL":                   "postgres://app:leak-db-0018@db.example/app",
	"REDIS_URL":                      "redis://cache.example:6379/leak-redis-0019",
	"SSH_AUTH_SOCK":                  "/tmp/ssh-leak-0020/agent.1",
	"VAULT_TOKEN":                    "leak-hvs-0021",
	"AZURE_CLIENT_SECRET":            "leak-azure-0022",
	"GOOGLE_APPLICATION_CREDENTIALS": "/home/leak-gcp-0023/key.json",
	"ACME_DEPLOY_KEY":                "leak-acme-0024",
}

// CredentialEnviron is Credentials as KEY=VALUE entries, sorted.
func CredentialEnviron() []string {
	out := make([]string, 0, len(Credentials))
	for k, v := range Credentials {
		out = append(out, k+"="+v)
	}
	slices.Sort(out)
	return out
}

// SetCredentials sets Credentials in the test process's environment.
func SetCredentials(t *testing.T) {
	for k, v := range Credentials {
		t.Setenv(k, v)
	}
}

// Leaks names the credentials whose value, or whose name as the start of a
// KEY=VALUE line, shows in env (what env(1) printed), except those keep
// names.
func Leaks(env string, keep ...string) []string {
	var out []string
	for k, v := range Credentials {
		if slices.Contains(keep, k) {
			continue
		}
		if strings.Contains(env, v) || strings.HasPrefix(env, k+"=") || strings.Contains(env, "\n"+k+"=") {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}
