package llm

import (
	"crypto/rand"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/ollm/ollm/schema"
)

// Config holds what providers take from outside the profile. The zero value
// uses the process environment and a fresh HTTP client.
type Config struct {
	// HTTPClient carries every request. Nil means a client without an
	// overall timeout: replies stream for as long as the model writes, and
	// the caller's context is what stops them.
	HTTPClient *http.Client
	// Getenv reads model.apiKeyEnv and OLLAMA_HOST; nil means os.Getenv.
	Getenv func(string) string
	// NewID names tool calls the server sent without an id; nil gives
	// "call_" and eight random characters, as Ollama does.
	NewID func() string
}

func (c Config) withDefaults() Config {
	if c.HTTPClient == nil {
		c.HTTPClient = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	}
	if c.Getenv == nil {
		c.Getenv = os.Getenv
	}
	if c.NewID == nil {
		c.NewID = randomCallID
	}
	return c
}

// New builds the provider named by m.Provider ("ollama" when empty).
func New(m schema.Model, cfg Config) (Provider, error) {
	switch m.Provider {
	case "", "ollama":
		return NewOllama(m, cfg)
	case "openai":
		return NewOpenAI(m, cfg)
	}
	return nil, &Error{Kind: ErrConfig, Provider: m.Provider, Model: m.Name,
		Message: fmt.Sprintf("model.provider %q is not supported: use \"ollama\" or \"openai\"", m.Provider)}
}

// parseEndpoint accepts "host:port", "http://host:port" and
// "https://host/path", and returns it without a trailing slash.
func parseEndpoint(raw string) (*url.URL, error) {
	raw = strings.TrimSpace(raw)
	if !strings.Contains(raw, "://") {
		raw = "http://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, err
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("scheme %q is not http or https", u.Scheme)
	}
	if u.Host == "" {
		return nil, fmt.Errorf("no host")
	}
	u.Path = strings.TrimRight(u.Path, "/")
	return u, nil
}

// mergeOptions lays over on top of base without changing either. A nil
// value in over removes the option (the server's default applies).
func mergeOptions(base, over map[string]any) map[string]any {
	if len(base) == 0 && len(over) == 0 {
		return nil
	}
	out := make(map[string]any, len(base)+len(over))
	maps.Copy(out, base)
	for k, v := range over {
		if v == nil {
			delete(out, k)
			continue
		}
		out[k] = v
	}
	return out
}

// Unwrap follows providers that wrap another (an Unwrap() Provider
// method, as the runtime's, which watches the first request) to the one
// underneath, whose optional methods (ModelOptions, ForcesToolCalls,
// Endpoint) the wrapper does not show.
func Unwrap(p Provider) Provider {
	for {
		u, ok := p.(interface{ Unwrap() Provider })
		if !ok {
			return p
		}
		p = u.Unwrap()
	}
}

// ForcesToolCalls reports whether p honours Request.ToolChoice.
func ForcesToolCalls(p Provider) bool {
	f, ok := Unwrap(p).(interface{ ForcesToolCalls() bool })
	return ok && f.ForcesToolCalls()
}

// ModelOptions are the model options a provider sends with every request
// (the profile's model.options), a copy; nil for a provider that has none.
// Hooks see them, laid under the request's, as the generation config.
func ModelOptions(p Provider) map[string]any {
	if o, ok := Unwrap(p).(interface{ ModelOptions() map[string]any }); ok {
		return o.ModelOptions()
	}
	return nil
}

// parseKeepAlive reads "10m", "300" (seconds) or "-1" (for ever).
func parseKeepAlive(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if n, err := strconv.ParseFloat(s, 64); err == nil {
		if n < 0 {
			return -1, nil
		}
		return time.Duration(n * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("keepAlive %q is neither a duration (\"10m\") nor a number of seconds; use -1 to keep the model loaded", s)
	}
	return d, nil
}

// optionInt reads an integer option that may have been decoded from JSON
// (float64) or written in Go (int).
func optionInt(opts map[string]any, key string) int {
	switch v := opts[key].(type) {
	case int:
		return v
	case int64:
		return int(v)
	case float64:
		return int(v)
	case string:
		n, _ := strconv.Atoi(v)
		return n
	}
	return 0
}

const idChars = "abcdefghijklmnopqrstuvwxyz0123456789"

func randomCallID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = idChars[int(b[i])%len(idChars)]
	}
	return "call_" + string(b)
}
