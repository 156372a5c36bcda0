package sandbox_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ollm/ollm/core/sandbox"
	"github.com/ollm/ollm/core/sandbox/sandboxtest"
)

func TestEnvironAllowList(t *testing.T) {
	parent := append([]string{
		"PATH=/usr/bin:/bin", "HOME=/home/u", "LANG=C.UTF-8", "TERM=xterm-256color", "GOPATH=/home/u/go",
		"http_proxy=http://proxy.example:3128",          // a proxy without a password passes
		"HTTPS_PROXY=http://u:leak-proxy@proxy.example", // with one it does not
		"GOPROXY=https://u:leak-goproxy@mod.example,direct",
		"PWD=/somewhere", "SHLVL=2", "OLLM_HOME=/home/u/.ollm", "DISPLAY=:0", "LD_PRELOAD=/x.so",
		"GOOGLE_APPLICATION_CREDENTIALS_X=1", // a GO* name is not a Go variable
		"CI_JOB_ID=7", "ALLOWED_URL=https://u:kept@git.example/", "noequals", "=x",
	}, sandboxtest.CredentialEnviron()...)
	got := sandbox.Environ(parent, []string{"CI_JOB_*", "ALLOWED_URL", "ACME_DEPLOY_KEY", ""})
	want := []string{
		"PATH=/usr/bin:/bin", "HOME=/home/u", "LANG=C.UTF-8", "TERM=xterm-256color", "GOPATH=/home/u/go",
		"http_proxy=http://proxy.example:3128", "OLLM_HOME=/home/u/.ollm", "CI_JOB_ID=7", "ALLOWED_URL=https://u:kept@git.example/",
		"ACME_DEPLOY_KEY=leak-acme-0024", "CI_JOB_JWT=leak-jwt-0011", "CI_JOB_TOKEN=leak-ci-job-0012",
	}
	if !slices.Equal(got, want) {
		t.Errorf("Environ =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if leaks := sandboxtest.Leaks(strings.Join(sandbox.Environ(parent, nil), "\n")); len(leaks) > 0 {
		t.Errorf("with no allowEnv these pass: %v", leaks)
	}
}

func TestBaseEnvSortedAndNoCredential(t *testing.T) {
	if !slices.IsSorted(sandbox.BaseEnv) {
		t.Fatal("BaseEnv is not sorted: Environ's binary search misses names")
	}
	for _, n := range sandbox.BaseEnv {
		if _, ok := sandboxtest.Credentials[n]; ok || slices.Contains(sandbox.AgentEnv, n) {
			t.Errorf("BaseEnv holds %s", n)
		}
	}
}

// The table "The environment" in docs/security.md lists every variable
// of BaseEnv as passing, and passes no other.
func TestBaseEnvDocumented(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "security.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	i := strings.Index(doc, "### The environment")
	if i < 0 {
		t.Fatal(`docs/security.md has no "### The environment"`)
	}
	doc = doc[i:]
	if j := strings.Index(doc[4:], "\n#"); j >= 0 {
		doc = doc[:j+4]
	}
	row := regexp.MustCompile("(?m)^\\| ([^|]+) \\| (yes|no)[^|]* \\|")
	name := regexp.MustCompile("`([A-Za-z_][A-Za-z0-9_*]*)`")
	var yes []string
	documented := map[string]bool{}
	for _, m := range row.FindAllStringSubmatch(doc, -1) {
		for _, n := range name.FindAllStringSubmatch(m[1], -1) {
			documented[n[1]] = true
			if m[2] == "yes" {
				yes = append(yes, n[1])
			}
		}
	}
	slices.Sort(yes)
	if !slices.Equal(yes, sandbox.BaseEnv) {
		t.Errorf("the table passes\n%v\nBaseEnv is\n%v", yes, sandbox.BaseEnv)
	}
	for _, n := range append(slices.Clone(sandbox.AgentEnv), "DISPLAY", "XDG_RUNTIME_DIR", "DBUS_SESSION_BUS_ADDRESS") {
		if !documented[n] {
			t.Errorf("the table does not say why %s does not pass", n)
		}
	}
}

func TestHasURLPassword(t *testing.T) {
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
		{"https://a.example,https://u:p@b.example", true}, // a GOPROXY list
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
		if got := sandbox.HasURLPassword(tt.value); got != tt.secret {
			t.Errorf("HasURLPassword(%q) = %v; want %v", tt.value, got, tt.secret)
		}
	}
}
