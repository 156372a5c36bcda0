package tools

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/ollm/ollm/core/tool"
)

const page = `<!doctype html><html><head><title>T</title><style>body{color:red}</style></head>
<body><nav>menu</nav><h1>Install</h1><p>Run the   <b>installer</b>
now.</p><script>alert(1)</script>
<ul><li>one</li><li>two <a href="https://example.org/x">link</a></li></ul>
<div id="usage"><h2>Usage</h2><pre>ollm  --help
  indented</pre></div><footer>foot</footer></body></html>`

func webServer(t *testing.T) *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, page)
	})
	mux.HandleFunc("/long", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, strings.Repeat("a", 100))
	})
	mux.HandleFunc("/json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"ok":true}`)
	})
	mux.HandleFunc("/png", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write([]byte("\x89PNG\r\n\x1a\n0000"))
	})
	mux.HandleFunc("/hop/{n}", func(w http.ResponseWriter, r *http.Request) {
		var n int
		fmt.Sscan(r.PathValue("n"), &n)
		if n == 0 {
			http.Redirect(w, r, "/page", http.StatusFound)
			return
		}
		http.Redirect(w, r, fmt.Sprintf("/hop/%d", n-1), http.StatusFound)
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	mux.HandleFunc("/boom", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "boom", 500) })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func TestWebFetch(t *testing.T) {
	srv := webServer(t)
	f := newFixture(t, func(c *Config) { c.Tools.Web.MaxBytes = 4096; c.HTTP = srv.Client() })
	got := f.ok("web_fetch", `{"url":"`+srv.URL+`/page"}`)
	want := "URL: " + srv.URL + "/page\nContent-Type: text/html; charset=utf-8\n\n# Install\n\nRun the installer now.\n\n- one\n\n- two link (https://example.org/x)\n\n## Usage\n\nollm  --help\n  indented"
	if got != want {
		t.Fatalf("web_fetch page =\n%q\nwant\n%q", got, want)
	}
	if got := f.ok("web_fetch", `{"url":"`+srv.URL+`/page","selector":"#usage pre"}`); !strings.HasSuffix(got, "\n\nollm  --help\n  indented") {
		t.Fatalf("selector = %q", got)
	}
	f.fails("web_fetch", `{"url":"`+srv.URL+`/page","selector":"table.none"}`, tool.ErrNotFound, `matches the selector "table.none"`)
	f.fails("web_fetch", `{"url":"`+srv.URL+`/page","selector":"[[["}`, tool.ErrInvalidParams, `parameter "selector"`)
	if got := f.ok("web_fetch", `{"url":"`+srv.URL+`/long","maxLength":40}`); !strings.HasSuffix(got, strings.Repeat("a", 40)+"\n[... output truncated: 60 characters omitted ...]") {
		t.Fatalf("maxLength = %q", got)
	}
	if got := f.ok("web_fetch", `{"url":"`+srv.URL+`/json"}`); !strings.HasSuffix(got, `{"ok":true}`) {
		t.Fatalf("json = %q", got)
	}
	if got := f.ok("web_fetch", `{"url":"`+srv.URL+`/png"}`); !strings.HasSuffix(got, "[binary content of type image/png, 12 bytes; not shown]") {
		t.Fatalf("png = %q", got)
	}
	if got := f.ok("web_fetch", `{"url":"`+srv.URL+`/hop/3"}`); !strings.HasPrefix(got, "URL: "+srv.URL+"/page\n") {
		t.Fatalf("redirects = %q", got)
	}
	f.fails("web_fetch", `{"url":"`+srv.URL+`/hop/12"}`, tool.ErrNetwork, "stopped after 10 redirects")
	f.fails("web_fetch", `{"url":"`+srv.URL+`/missing"}`, tool.ErrNotFound, "GET "+srv.URL+"/missing: HTTP 404 Not Found")
	f.fails("web_fetch", `{"url":"`+srv.URL+`/boom"}`, tool.ErrNetwork, "HTTP 500 Internal Server Error")
	f.fails("web_fetch", `{"url":"`+srv.URL+`/slow","timeout":200}`, tool.ErrTimeout, "/slow: timed out after")
	f.fails("web_fetch", `{"url":"ftp://x/y"}`, tool.ErrInvalidParams, `parameter "url"`)
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	f.fails("web_fetch", `{"url":"`+closed.URL+`/x"}`, tool.ErrNetwork, "GET "+closed.URL+"/x: ")
	if c := f.build("web_fetch", `{"url":"`+srv.URL+`/page"}`).Confirmation(); c.Kind != tool.KindFetch || c.Locations[0] != srv.URL+"/page" {
		t.Fatalf("confirmation = %+v", c)
	}
}

func TestWebFetchSizeCap(t *testing.T) {
	srv := webServer(t)
	f := newFixture(t, func(c *Config) { c.Tools.Web.MaxBytes = 30; c.HTTP = srv.Client() })
	got := f.ok("web_fetch", `{"url":"`+srv.URL+`/long"}`)
	if !strings.Contains(got, "larger than 30 bytes (tools.web.maxBytes)") || !strings.HasSuffix(got, "\n"+strings.Repeat("a", 30)) {
		t.Fatalf("size cap = %q", got)
	}
}

const ddgHTML = `<html><body>
<div class="result results_links"><h2><a class="result__a" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fgo.dev%2Fdoc%2F&amp;rut=x">Go <b>Docs</b></a></h2>
<a class="result__snippet">The Go   programming language.</a></div>
<div class="result result--ad"><a class="result__a" href="https://ads.example/">Ad</a></div>
<div class="result"><a class="result__a" href="https://pkg.go.dev/">Packages</a><div class="result__snippet">Find packages.</div></div>
<div class="result"><a class="result__a" href="https://third.example/">Third</a></div>
</body></html>`

func TestWebSearchProviders(t *testing.T) {
	var gotQuery, gotKey string
	mux := http.NewServeMux()
	mux.HandleFunc("/html/", func(w http.ResponseWriter, r *http.Request) {
		gotQuery = r.URL.Query().Get("q")
		fmt.Fprint(w, ddgHTML)
	})
	mux.HandleFunc("/searx/search", func(w http.ResponseWriter, r *http.Request) {
		gotQuery = r.URL.Query().Get("q") + "|" + r.URL.Query().Get("format")
		fmt.Fprint(w, `{"results":[{"title":"S1","url":"https://s1.example","content":"first"},{"title":"S2","url":"https://s2.example","content":"second"}]}`)
	})
	mux.HandleFunc("/brave", func(w http.ResponseWriter, r *http.Request) {
		gotQuery, gotKey = r.URL.Query().Get("q")+"|"+r.URL.Query().Get("count"), r.Header.Get("X-Subscription-Token")
		fmt.Fprint(w, `{"web":{"results":[{"title":"B1","url":"https://b1.example","description":"<strong>bold</strong> text"}]}}`)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	f := newFixture(t, func(c *Config) { c.HTTP = srv.Client(); c.Tools.Web.SearchURL = srv.URL + "/html/" })
	got := f.ok("web_search", `{"query":"golang docs","numResults":2}`)
	want := "Results for \"golang docs\":\n\n1. Go Docs\n   https://go.dev/doc/\n   The Go programming language.\n\n2. Packages\n   https://pkg.go.dev/\n   Find packages.\n"
	if got != want || gotQuery != "golang docs" {
		t.Fatalf("duckduckgo =\n%q\nwant\n%q (query %q)", got, want, gotQuery)
	}
	if got := f.ok("web_search", `{"query":"x"}`); strings.Count(got, "\n   https://") != 3 {
		t.Fatalf("default numResults = %q", got)
	}

	f = newFixture(t, func(c *Config) {
		c.HTTP = srv.Client()
		c.Tools.Web.SearchProvider, c.Tools.Web.SearchURL = "searxng", srv.URL+"/searx"
	})
	if got := f.ok("web_search", `{"query":"q1","numResults":1}`); got != "Results for \"q1\":\n\n1. S1\n   https://s1.example\n   first\n" || gotQuery != "q1|json" {
		t.Fatalf("searxng = %q (query %q)", got, gotQuery)
	}

	f = newFixture(t, func(c *Config) {
		c.HTTP = srv.Client()
		c.Tools.Web.SearchProvider, c.Tools.Web.SearchURL, c.Tools.Web.APIKeyEnv = "brave", srv.URL+"/brave", "MY_BRAVE"
	})
	f.fails("web_search", `{"query":"q2"}`, tool.ErrUnavailable, "needs an API key in $MY_BRAVE")
	f.env["MY_BRAVE"] = "k123"
	if got := f.ok("web_search", `{"query":"q2","numResults":3}`); got != "Results for \"q2\":\n\n1. B1\n   https://b1.example\n   bold text\n" || gotQuery != "q2|3" || gotKey != "k123" {
		t.Fatalf("brave = %q (query %q key %q)", got, gotQuery, gotKey)
	}
	f.fails("web_search", `{"query":"q","numResults":21}`, tool.ErrInvalidParams, `parameter "numResults"`)

	f = newFixture(t, func(c *Config) { c.HTTP = srv.Client(); c.Tools.Web.SearchURL = srv.URL + "/gone" })
	f.fails("web_search", `{"query":"q"}`, tool.ErrNotFound, "404")
}
