package tools

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/andybalholm/cascadia"
	"github.com/ollm/ollm/core/tool"
	"github.com/ollm/ollm/internal/secrets"
)

//go:embed web_fetch.md
var webFetchMD string

type webFetchParams struct {
	URL       string `json:"url"`
	Selector  string `json:"selector"`
	MaxLength int    `json:"maxLength"`
	Timeout   int    `json:"timeout"`
}

const maxRedirects = 10

func newWebFetch(e *env) tool.Tool {
	return &tool.Func[webFetchParams]{
		Spec: tool.Spec{ToolName: "web_fetch", Desc: webFetchMD, ToolKind: tool.KindFetch, Params: obj([]string{"url"}, map[string]*tool.Schema{
			"url":       str("http or https URL"),
			"selector":  str("CSS selector; return only the matching elements"),
			"maxLength": integer("maximum characters returned (default 20000)", 1),
			"timeout":   integer("milliseconds before giving up (default 30000)", 1),
		})},
		New: func(p webFetchParams) (*tool.Call, error) {
			u, err := url.Parse(p.URL)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				return nil, &tool.Error{Kind: tool.ErrInvalidParams, Message: fmt.Sprintf("web_fetch: parameter \"url\": %q is not an http(s) URL", p.URL)}
			}
			if p.Selector != "" {
				if _, err := cascadia.ParseGroup(p.Selector); err != nil {
					return nil, &tool.Error{Kind: tool.ErrInvalidParams, Message: fmt.Sprintf("web_fetch: parameter \"selector\": %q is not a valid CSS selector: %v", p.Selector, err)}
				}
			}
			desc := "Fetch " + u.String()
			return &tool.Call{Desc: desc, Locs: []string{u.String()}, Confirm: &tool.Confirmation{Title: desc},
				Run: func(ctx context.Context, _ func(tool.Chunk)) (tool.Result, error) {
					return e.fetch(ctx, u.String(), p), nil
				}}, nil
		},
	}
}

// fetched is a response body read within the size cap.
type fetched struct {
	finalURL    string
	contentType string
	body        []byte
	capped      bool
}

func (e *env) fetch(ctx context.Context, rawURL string, p webFetchParams) tool.Result {
	timeout := 30 * time.Second
	if p.Timeout > 0 {
		timeout = time.Duration(p.Timeout) * time.Millisecond
	}
	started := time.Now()
	f, err := e.httpGet(ctx, rawURL, timeout, nil)
	if err != nil {
		return fetchFailure(rawURL, err, time.Since(started))
	}
	text, err := fetchedText(f, p.Selector)
	if err != nil {
		return tool.FromError(err, tool.ErrExec)
	}
	limit := p.MaxLength
	if limit == 0 {
		limit = 20000
	}
	text, _ = tool.Truncate(text, tool.Limits{MaxChars: limit})
	header := fmt.Sprintf("URL: %s\nContent-Type: %s\n", f.finalURL, f.contentType)
	if f.capped {
		header += fmt.Sprintf("[the response was larger than %d bytes (tools.web.maxBytes); only the start was read]\n", len(f.body))
	}
	return tool.Result{ForModel: header + "\n" + text, Display: fmt.Sprintf("Fetched %s (%d bytes)", f.finalURL, len(f.body)), Data: map[string]any{"url": f.finalURL}}
}

// httpGet fetches rawURL, following redirects, and fails on an HTTP error
// status. Headers, when set, are added to the request.
func (e *env) httpGet(ctx context.Context, rawURL string, timeout time.Duration, headers map[string]string) (*fetched, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", "ollm (terminal agent)")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	client := *e.cfg.HTTP
	client.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) >= maxRedirects {
			return fmt.Errorf("stopped after %d redirects", maxRedirects)
		}
		return nil
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 400 {
		return nil, &httpStatusError{code: resp.StatusCode, status: resp.Status}
	}
	return readCapped(resp, e.maxBytes())
}

func (e *env) maxBytes() int {
	if n := e.cfg.Tools.Web.MaxBytes; n > 0 {
		return n
	}
	return 5 << 20
}

func readCapped(resp *http.Response, limit int) (*fetched, error) {
	body, err := io.ReadAll(io.LimitReader(resp.Body, int64(limit)+1))
	if err != nil {
		return nil, err
	}
	f := &fetched{finalURL: resp.Request.URL.String(), contentType: resp.Header.Get("Content-Type"), body: body}
	if len(body) > limit {
		f.body, f.capped = body[:limit], true
	}
	if f.contentType == "" {
		f.contentType = http.DetectContentType(f.body)
	}
	return f, nil
}

type httpStatusError struct {
	code   int
	status string
}

func (e *httpStatusError) Error() string { return "HTTP " + e.status }

// fetchFailure turns a failed GET into a typed result naming the URL.
func fetchFailure(rawURL string, err error, elapsed time.Duration) tool.Result {
	rawURL = secrets.RedactURLs(rawURL) // a key in the query is not repeated
	var se *httpStatusError
	var ne net.Error
	switch {
	case errors.As(err, &se) && se.code == http.StatusNotFound:
		return tool.Fail(tool.ErrNotFound, "GET %s: %s: the page does not exist", rawURL, se.Error())
	case errors.As(err, &se):
		return tool.Fail(tool.ErrNetwork, "GET %s: %s", rawURL, se.Error())
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return tool.Fail(tool.ErrTimeout, "GET %s: timed out after %s", rawURL, elapsed.Round(time.Millisecond))
	case errors.Is(err, context.Canceled):
		return tool.Fail(tool.ErrCancelled, "GET %s: cancelled", rawURL)
	}
	return tool.Fail(tool.ErrNetwork, "GET %s: %s", rawURL, secrets.RedactURLs(err.Error()))
}

// fetchedText renders a response body by its media type.
func fetchedText(f *fetched, selector string) (string, error) {
	mt, _, _ := mime.ParseMediaType(f.contentType)
	switch {
	case mt == "text/html" || mt == "application/xhtml+xml":
		doc, err := goquery.NewDocumentFromReader(strings.NewReader(string(f.body)))
		if err != nil {
			return "", &tool.Error{Kind: tool.ErrExec, Message: fmt.Sprintf("parse HTML from %s: %v", f.finalURL, err)}
		}
		text, found := htmlToText(doc, selector)
		if !found {
			return "", &tool.Error{Kind: tool.ErrNotFound, Message: fmt.Sprintf("no element of %s matches the selector %q", f.finalURL, selector)}
		}
		return text, nil
	case strings.HasPrefix(mt, "text/") || strings.HasSuffix(mt, "json") || strings.HasSuffix(mt, "xml") || mt == "application/javascript":
		return string(f.body), nil
	}
	return fmt.Sprintf("[binary content of type %s, %d bytes; not shown]", mt, len(f.body)), nil
}
