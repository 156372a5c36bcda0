package secrets

import (
	"slices"
	"testing"
)

func TestRedact(t *testing.T) {
	for _, tc := range []struct {
		name    string
		in      string
		secrets []string
		want    string
	}{
		{"no secrets", "extension x failed", nil, "extension x failed"},
		{"long secret anywhere", "token=sk-live-123 and sk-live-123.", []string{"sk-live-123"}, "token=[redacted] and [redacted]."},
		{"four characters is long enough", "pin abcd, abcdabcd", []string{"abcd"}, "pin [redacted], [redacted]"},
		{"short secret never inside words", "extension x: bad value", []string{"x"}, "extension x: bad value"},
		{"short secret as the whole value", "x", []string{"x"}, Redacted},
		{"three characters as the whole value", "abc", []string{"abc"}, Redacted},
		{"three characters inside text", "abc abcdef", []string{"abc"}, "abc abcdef"},
		{"longer secret first", "key sk-abcdef-long here", []string{"sk-abcdef", "sk-abcdef-long"}, "key [redacted] here"},
		{"longer secret first, any order", "key sk-abcdef-long here", []string{"sk-abcdef-long", "sk-abcdef"}, "key [redacted] here"},
		{"overlapping secrets merge", "xxabcdefghxx", []string{"abcdef", "defghi", "efgh"}, "xx[redacted]xx"},
		{"adjacent occurrences merge", "secrsecr!", []string{"secr"}, "[redacted]!"},
		{"replacement is not matched again", "my ultra-secret-value", []string{"ultra-secret-value", "dact"}, "my [redacted]"},
		{"empty and blank secrets ignored", "a    b", []string{"", "    "}, "a    b"},
		{"unicode length counts characters", "é€ in text é€", []string{"é€"}, "é€ in text é€"},
		{"empty text", "", []string{"abcd"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Redact(tc.in, tc.secrets); got != tc.want {
				t.Errorf("Redact(%q, %q) = %q, want %q", tc.in, tc.secrets, got, tc.want)
			}
		})
	}
}

func TestRedactURLs(t *testing.T) {
	for in, want := range map[string]string{
		"https://user:hunter2@example.test/mcp":               "https://user:[redacted]@example.test/mcp",
		"dial postgres://app:p@ss@db:5432/x failed":           "dial postgres://app:[redacted]@db:5432/x failed",
		"https://:tok@h/ and http://u:v@h2":                   "https://:[redacted]@h/ and http://u:[redacted]@h2",
		"https://user@example.test/ (no password)":            "https://user@example.test/ (no password)",
		"http://127.0.0.1:8080/mcp":                           "http://127.0.0.1:8080/mcp",
		"mail me at a@b.c, see http://h/x?q=a:b@c":            "mail me at a@b.c, see http://h/x?q=a:b@c",
		"git+ssh://git:s3cr3t@host/repo.git and nothing else": "git+ssh://git:[redacted]@host/repo.git and nothing else",
	} {
		if got := RedactURLs(in); got != want {
			t.Errorf("RedactURLs(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLooksSecret(t *testing.T) {
	for name, want := range map[string]bool{
		"GITHUB_TOKEN": true, "OPENAI_API_KEY": true, "DB_PASSWORD": true, "client-secret": true, "Authorization": true,
		"token": true, "GH_PAT": true, "X-Api-Key": true, "Cookie": true, "SSH_PRIVATE_KEY_FILE": true, "AWS_CREDENTIALS": true,
		"PATH": false, "HOME": false, "KEYBOARD": false, "TOKENIZER": false, "LANG": false, "PATH_INFO": false,
	} {
		if got := LooksSecret(name); got != want {
			t.Errorf("LooksSecret(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestFrom(t *testing.T) {
	env := FromEnv([]string{"PATH=/bin", "MY_TOKEN=tok-1", "EMPTY_TOKEN=", "odd"})
	if !slices.Equal(env, []string{"tok-1"}) {
		t.Errorf("FromEnv = %q", env)
	}
	m := FromMap(map[string]string{"HOME": "/h", "API_KEY": "k-1"})
	if !slices.Equal(m, []string{"k-1"}) {
		t.Errorf("FromMap = %q", m)
	}
	h := FromHeaders(map[string]string{"Authorization": "Bearer abc.def"})
	slices.Sort(h)
	if !slices.Equal(h, []string{"Bearer abc.def", "abc.def"}) {
		t.Errorf("FromHeaders = %q", h)
	}
}
