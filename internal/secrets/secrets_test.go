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
		"https://user:hunter2@example.test/mcp":                                             "https://user:[redacted]@example.test/mcp",
		"dial postgres://app:p@ss@db:5432/x failed":                                         "dial postgres://app:[redacted]@db:5432/x failed",
		"https://:tok@h/ and http://u:v@h2":                                                 "https://:[redacted]@h/ and http://u:[redacted]@h2",
		"https://user@example.test/ (no password)":                                          "https://user@example.test/ (no password)",
		"http://127.0.0.1:8080/mcp":                                                         "http://127.0.0.1:8080/mcp",
		"mail me at a@b.c, see http://h/x?q=a:b@c":                                          "mail me at a@b.c, see http://h/x?q=a:b@c",
		"git+ssh://git:s3cr3t@host/repo.git and nothing else":                               "git+ssh://git:[redacted]@host/repo.git and nothing else",
		"GET https://api.example/v1?api_key=K123&model=m failed":                            "GET https://api.example/v1?api_key=[redacted]&model=m failed",
		"https://h/x?a=1&token=t0k#frag":                                                    "https://h/x?a=1&token=[redacted]#frag",
		"https://s3.example/o?X-Amz-Signature=abc&X-Amz-Credential=AKIA/x&X-Amz-Expires=60": "https://s3.example/o?X-Amz-Signature=[redacted]&X-Amz-Credential=[redacted]&X-Amz-Expires=60",
		"https://u:p4ss@h/v1?key=k9&sig=s9 end":                                             "https://u:[redacted]@h/v1?key=[redacted]&sig=[redacted] end",
		`"url": "https://h/?access_token=tk", "q": "?key=not-a-url"`:                        `"url": "https://h/?access_token=[redacted]", "q": "?key=not-a-url"`,
		"https://h/search?q=keyboard&page=2":                                                "https://h/search?q=keyboard&page=2",
		"https://h/?key=":                                                                   "https://h/?key=",
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

func TestScrubAndFromURL(t *testing.T) {
	got := Scrub(`401: {"error":"bad key sk-live-0042"} at https://bob:pw-77@h/v1?api_key=q-88`, []string{"sk-live-0042"})
	want := `401: {"error":"bad key [redacted]"} at https://bob:[redacted]@h/v1?api_key=[redacted]`
	if got != want {
		t.Errorf("Scrub = %q, want %q", got, want)
	}
	vals := FromURL("https://bob:pw-77@h/v1?api_key=q-88&model=m&sig=s-1")
	slices.Sort(vals)
	if !slices.Equal(vals, []string{"pw-77", "q-88", "s-1"}) {
		t.Errorf("FromURL = %q", vals)
	}
	if v := FromURL("http://127.0.0.1:11434"); v != nil {
		t.Errorf("FromURL of a plain URL = %q", v)
	}
}

func TestSecretParam(t *testing.T) {
	for name, want := range map[string]bool{
		"key": true, "api_key": true, "apiKey": true, "access_token": true, "token": true, "sig": true, "X-Amz-Signature": true,
		"client_secret": true, "password": true, "nextPageToken": true,
		"q": false, "model": false, "page": false, "keyboard": false, "format": false, "code": false,
	} {
		if got := SecretParam(name); got != want {
			t.Errorf("SecretParam(%q) = %v, want %v", name, got, want)
		}
	}
}
