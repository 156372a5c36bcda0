package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/ollm/ollm/core/tool"
)

//go:embed web_search.md
var webSearchMD string

type webSearchParams struct {
	Query      string `json:"query"`
	NumResults int    `json:"numResults"`
}

// searchResult is one hit, whatever the provider.
type searchResult struct {
	Title   string `json:"title"`
	URL     string `json:"url"`
	Snippet string `json:"snippet"`
}

// Default endpoints; tools.web.searchURL replaces them (tests point it at
// a local server).
const (
	duckDuckGoURL = "https://html.duckduckgo.com/html/"
	braveURL      = "https://api.search.brave.com/res/v1/web/search"
)

func newWebSearch(e *env) tool.Tool {
	maxN := 20.0
	n := integer("maximum number of results (default 5)", 1)
	n.Maximum = &maxN
	return &tool.Func[webSearchParams]{
		Spec: tool.Spec{ToolName: "web_search", Desc: webSearchMD, ToolKind: tool.KindSearch, Params: obj([]string{"query"}, map[string]*tool.Schema{
			"query":      str("search query"),
			"numResults": n,
		})},
		New: func(p webSearchParams) (*tool.Call, error) {
			if strings.TrimSpace(p.Query) == "" {
				return nil, &tool.Error{Kind: tool.ErrInvalidParams, Message: "web_search: parameter \"query\": empty"}
			}
			endpoint, err := e.searchEndpoint(p)
			if err != nil {
				return nil, err
			}
			desc := fmt.Sprintf("Search the web (%s) for %q", e.searchProvider(), p.Query)
			return &tool.Call{Desc: desc, Locs: []string{endpoint}, Confirm: &tool.Confirmation{Title: desc},
				Run: func(ctx context.Context, _ func(tool.Chunk)) (tool.Result, error) {
					return e.search(ctx, endpoint, p), nil
				}}, nil
		},
	}
}

func (e *env) searchProvider() string {
	if p := strings.ToLower(e.cfg.Tools.Web.SearchProvider); p != "" {
		return p
	}
	return "duckduckgo"
}

// searchEndpoint builds the request URL for the configured provider.
func (e *env) searchEndpoint(p webSearchParams) (string, error) {
	base := e.cfg.Tools.Web.SearchURL
	q := url.Values{"q": {p.Query}}
	switch e.searchProvider() {
	case "duckduckgo":
		if base == "" {
			base = duckDuckGoURL
		}
	case "searxng":
		if base == "" {
			return "", &tool.Error{Kind: tool.ErrUnavailable, Message: "web_search: the searxng provider needs tools.web.searchURL (your instance's address)"}
		}
		base = strings.TrimSuffix(base, "/") + "/search"
		q.Set("format", "json")
	case "brave":
		if base == "" {
			base = braveURL
		}
		q.Set("count", fmt.Sprint(numResults(p)))
	default:
		return "", &tool.Error{Kind: tool.ErrUnavailable, Message: fmt.Sprintf("web_search: unknown tools.web.searchProvider %q; use duckduckgo, searxng or brave", e.searchProvider())}
	}
	return base + "?" + q.Encode(), nil
}

func numResults(p webSearchParams) int {
	if p.NumResults > 0 {
		return p.NumResults
	}
	return 5
}

func (e *env) search(ctx context.Context, endpoint string, p webSearchParams) tool.Result {
	headers := map[string]string{}
	if e.searchProvider() == "brave" {
		keyEnv := e.cfg.Tools.Web.APIKeyEnv
		if keyEnv == "" {
			keyEnv = "BRAVE_API_KEY"
		}
		key := e.cfg.Getenv(keyEnv)
		if key == "" {
			return tool.Fail(tool.ErrUnavailable, "the brave provider needs an API key in $%s (tools.web.apiKeyEnv)", keyEnv)
		}
		headers["X-Subscription-Token"], headers["Accept"] = key, "application/json"
	}
	started := time.Now()
	f, err := e.httpGet(ctx, endpoint, 30*time.Second, headers)
	if err != nil {
		return fetchFailure(endpoint, err, time.Since(started))
	}
	results, err := parseSearch(e.searchProvider(), f.body)
	if err != nil {
		return tool.Fail(tool.ErrExec, "%s answered %s with something unreadable: %v", e.searchProvider(), endpoint, err)
	}
	if n := numResults(p); len(results) > n {
		results = results[:n]
	}
	text := formatResults(p.Query, results)
	return tool.Result{ForModel: text, Display: fmt.Sprintf("%s for %q", plural(len(results), "result"), p.Query), Data: results}
}

// parseSearch reads a provider's answer; a pure function of its bytes.
func parseSearch(provider string, body []byte) ([]searchResult, error) {
	switch provider {
	case "searxng":
		var r struct {
			Results []struct{ Title, URL, Content string } `json:"results"`
		}
		err := json.Unmarshal(body, &r)
		out := make([]searchResult, 0, len(r.Results))
		for _, x := range r.Results {
			out = append(out, searchResult{Title: x.Title, URL: x.URL, Snippet: x.Content})
		}
		return out, err
	case "brave":
		var r struct {
			Web struct {
				Results []struct{ Title, URL, Description string } `json:"results"`
			} `json:"web"`
		}
		err := json.Unmarshal(body, &r)
		out := make([]searchResult, 0, len(r.Web.Results))
		for _, x := range r.Web.Results {
			out = append(out, searchResult{Title: x.Title, URL: x.URL, Snippet: stripTags(x.Description)})
		}
		return out, err
	}
	return parseDuckDuckGo(body)
}

func parseDuckDuckGo(body []byte) ([]searchResult, error) {
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(string(body)))
	if err != nil {
		return nil, err
	}
	var out []searchResult
	doc.Find(".result").Not(".result--ad").Each(func(_ int, s *goquery.Selection) {
		a := s.Find("a.result__a").First()
		href, _ := a.Attr("href")
		if href == "" {
			return
		}
		out = append(out, searchResult{
			Title:   strings.TrimSpace(a.Text()),
			URL:     ddgTarget(href),
			Snippet: strings.TrimSpace(spaces.ReplaceAllString(s.Find(".result__snippet").Text(), " ")),
		})
	})
	return out, nil
}

// ddgTarget unwraps DuckDuckGo's redirect links (/l/?uddg=<url>).
func ddgTarget(href string) string {
	u, err := url.Parse(href)
	if err != nil {
		return href
	}
	if t := u.Query().Get("uddg"); t != "" {
		return t
	}
	if u.Scheme == "" && strings.HasPrefix(href, "//") {
		return "https:" + href
	}
	return href
}

func stripTags(s string) string {
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(s))
	if err != nil {
		return s
	}
	return strings.TrimSpace(doc.Text())
}

func formatResults(query string, results []searchResult) string {
	if len(results) == 0 {
		return fmt.Sprintf("No results for %q.", query)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Results for %q:\n\n", query)
	for i, r := range results {
		fmt.Fprintf(&b, "%d. %s\n   %s\n", i+1, r.Title, r.URL)
		if r.Snippet != "" {
			fmt.Fprintf(&b, "   %s\n", r.Snippet)
		}
		b.WriteString("\n")
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}
