package llm

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"strings"

	"github.com/ollm/ollm/internal/secrets"
	"github.com/ollm/ollm/schema"
)

// OpenAI is a provider for any server with an OpenAI-compatible
// /v1/chat/completions endpoint (llama.cpp, vLLM, LM Studio, ...).
type OpenAI struct {
	http     *http.Client
	endpoint string   // as configured, for messages, credentials hidden (secrets.RedactURLs)
	url      string   // the chat completions URL
	known    []string // the API key and the endpoint's credentials, cut out of errors
	model    schema.Model
	apiKey   string // from $model.apiKeyEnv; never logged or put in errors
	newID    func() string
}

var _ Provider = (*OpenAI)(nil)

// NewOpenAI builds an OpenAI-compatible provider for m. m.Endpoint is the
// server's base URL, with or without the /v1 suffix. When m.APIKeyEnv is
// set, that environment variable must hold the key.
func NewOpenAI(m schema.Model, cfg Config) (*OpenAI, error) {
	cfg = cfg.withDefaults()
	if strings.TrimSpace(m.Endpoint) == "" {
		return nil, configError("openai", m, "model.endpoint is empty: set it to the server's base URL, e.g. http://127.0.0.1:8080/v1")
	}
	u, err := parseEndpoint(m.Endpoint)
	if err != nil {
		return nil, configError("openai", m, fmt.Sprintf("model.endpoint %q is not usable (%v): use e.g. http://127.0.0.1:8080/v1", secrets.RedactURLs(m.Endpoint), err))
	}
	p := &OpenAI{http: cfg.HTTPClient, endpoint: secrets.RedactURLs(u.String()), url: chatCompletionsURL(u.String()),
		known: secrets.FromURL(u.String()), model: m, newID: cfg.NewID}
	if m.APIKeyEnv != "" {
		p.apiKey = cfg.Getenv(m.APIKeyEnv)
		if p.apiKey == "" {
			return nil, configError("openai", m, fmt.Sprintf("model.apiKeyEnv names %s, which is not set: export it or remove model.apiKeyEnv", m.APIKeyEnv))
		}
		p.known = append(p.known, p.apiKey)
	}
	return p, nil
}

// chatCompletionsURL accepts a base URL with or without /v1, or the full
// chat completions URL; a query (?api-version=..., ?key=...) is kept.
func chatCompletionsURL(base string) string {
	u, err := url.Parse(base)
	if err != nil {
		return base
	}
	switch {
	case strings.HasSuffix(u.Path, "/chat/completions"):
	case strings.HasSuffix(u.Path, "/v1"):
		u.Path += "/chat/completions"
	default:
		u.Path += "/v1/chat/completions"
	}
	return u.String()
}

// siblingURL is the chat completions URL with its last path element
// "chat/completions" replaced by elem ("models"), its query kept.
func siblingURL(chat, elem string) string {
	u, err := url.Parse(chat)
	if err != nil {
		return strings.TrimSuffix(chat, "/chat/completions") + "/" + elem
	}
	u.Path = strings.TrimSuffix(u.Path, "/chat/completions") + "/" + elem
	return u.String()
}

// Endpoint is the base URL the provider talks to.
func (p *OpenAI) Endpoint() string { return p.endpoint }

// ModelOptions returns a copy of the profile's model.options.
func (p *OpenAI) ModelOptions() map[string]any { return maps.Clone(p.model.Options) }

// ForcesToolCalls: Request.ToolChoice is sent as tool_choice.
func (p *OpenAI) ForcesToolCalls() bool { return true }

// Chat streams one reply from /v1/chat/completions.
func (p *OpenAI) Chat(ctx context.Context, req Request, onEvent func(Event)) (Response, error) {
	resp, err := p.chat(ctx, req, onEvent)
	return resp, scrub(err, p.known)
}

func (p *OpenAI) chat(ctx context.Context, req Request, onEvent func(Event)) (Response, error) {
	model := cmp.Or(req.Model, p.model.Name)
	if model == "" {
		return Response{}, configError("openai", p.model, "no model to chat with: set model.name in the profile")
	}
	wire := oaBody(model, req.Messages, req.Tools, mergeOptions(p.model.Options, req.Options))
	if req.ToolChoice != "" && wire["tools"] != nil {
		wire["tool_choice"] = req.ToolChoice
	}
	body, err := json.Marshal(wire)
	if err != nil {
		return Response{}, fmt.Errorf("encode the chat request for %s: %w", model, err)
	}
	resp, err := p.post(ctx, body)
	if err != nil {
		return Response{}, p.transportError(ctx, model, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		return Response{}, p.statusError(model, resp.StatusCode, oaErrorMessage(msg))
	}
	st := newOAStream(onEvent, p.newID)
	err = readSSE(resp.Body, st.data)
	out := st.response()
	if err := p.streamError(ctx, model, err, st); err != nil {
		return out, err
	}
	st.emit(Event{Kind: EventDone, Usage: out.Usage, DoneReason: out.DoneReason})
	return out, nil
}

func (p *OpenAI) post(ctx context.Context, body []byte) (*http.Response, error) {
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, p.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "text/event-stream")
	if p.apiKey != "" {
		hreq.Header.Set("Authorization", "Bearer "+p.apiKey)
	}
	return p.http.Do(hreq)
}

// streamError decides how a finished stream went: cancelled, failed while
// reading, an error event from the server, or cut short.
func (p *OpenAI) streamError(ctx context.Context, model string, err error, st *oaStream) error {
	if cerr := cancelled(ctx, "openai", p.endpoint, model); cerr != nil {
		return cerr
	}
	switch {
	case st.serverErr != "":
		return p.statusError(model, 0, st.serverErr)
	case err != nil:
		return &Error{Kind: ErrIncomplete, Provider: "openai", Endpoint: p.endpoint, Model: model, Err: err,
			Message: fmt.Sprintf("reading the reply of %s from %s failed: %v", model, p.endpoint, err)}
	case !st.complete():
		return &Error{Kind: ErrIncomplete, Provider: "openai", Endpoint: p.endpoint, Model: model,
			Message: fmt.Sprintf("the server at %s closed the stream before %s finished its reply: check the server's log", p.endpoint, model)}
	}
	return nil
}

func (p *OpenAI) transportError(ctx context.Context, model string, err error) error {
	if cerr := cancelled(ctx, "openai", p.endpoint, model); cerr != nil {
		return cerr
	}
	e := &Error{Provider: "openai", Endpoint: p.endpoint, Model: model, Err: err}
	if isRefused(err) {
		e.Kind = ErrUnreachable
		e.Message = fmt.Sprintf("nothing answers at %s: start the OpenAI-compatible server (llama.cpp, vLLM, LM Studio, ...) or set model.endpoint", p.endpoint)
		return e
	}
	e.Kind = ErrServer
	e.Message = fmt.Sprintf("sending the chat request for %s to %s failed: %v", model, p.endpoint, err)
	return e
}

// statusError maps an HTTP status (0 for an error inside the stream) and
// the server's message to an *Error.
func (p *OpenAI) statusError(model string, status int, msg string) error {
	e := &Error{Provider: "openai", Endpoint: p.endpoint, Model: model, Status: status}
	lower := strings.ToLower(msg)
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		e.Kind = ErrAuth
		e.Message = p.authMessage(status, msg)
	case isOverflow(lower):
		e.Kind = ErrContextOverflow
		e.Message = fmt.Sprintf("the conversation does not fit %s's context at %s: compact it or start the server with a larger context (server said: %s)", model, p.endpoint, msg)
	case status == http.StatusNotFound && strings.Contains(lower, "model"):
		e.Kind = ErrModelMissing
		e.Message = fmt.Sprintf("model %s is not available at %s: check model.name against the server's /v1/models (server said: %s)", model, p.endpoint, msg)
	case status == http.StatusNotFound:
		e.Kind = ErrRejected
		e.Message = fmt.Sprintf("%s has no chat completions endpoint (HTTP 404 for %s): check model.endpoint (server said: %s)", p.endpoint, secrets.RedactURLs(p.url), msg)
	case status >= 400 && status < 500:
		e.Kind = ErrRejected
		e.Message = fmt.Sprintf("the server at %s rejected the request for %s (HTTP %d): %s", p.endpoint, model, status, msg)
	default:
		e.Kind = ErrServer
		e.Message = fmt.Sprintf("the server at %s failed while %s was answering%s: %s (see the server's log)", p.endpoint, model, statusSuffix(status), msg)
	}
	return e
}

func (p *OpenAI) authMessage(status int, msg string) string {
	if p.model.APIKeyEnv == "" {
		return fmt.Sprintf("the server at %s wants an API key (HTTP %d: %s): put it in an environment variable and name that variable in model.apiKeyEnv", p.endpoint, status, msg)
	}
	return fmt.Sprintf("the server at %s refused the API key from $%s (HTTP %d: %s): check the key", p.endpoint, p.model.APIKeyEnv, status, msg)
}

func statusSuffix(status int) string {
	if status == 0 {
		return ""
	}
	return fmt.Sprintf(" (HTTP %d)", status)
}

// isOverflow recognises the context-overflow messages of OpenAI, vLLM and
// llama.cpp.
func isOverflow(lower string) bool {
	return strings.Contains(lower, "context_length_exceeded") ||
		strings.Contains(lower, "maximum context length") ||
		(strings.Contains(lower, "context") && strings.Contains(lower, "exceed"))
}

// ModelInfo reports the profile's model.contextWindow, or
// DefaultContextWindow: the OpenAI API has no standard way to ask.
func (p *OpenAI) ModelInfo(ctx context.Context, name string) (Info, error) {
	info := Info{Name: cmp.Or(name, p.model.Name)}
	info.ContextWindow, info.ContextSource = pickContextWindow(p.model.ContextWindow, 0, 0, 0)
	return info, nil
}
