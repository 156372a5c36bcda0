package llm

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"strings"

	"github.com/ollama/ollama/api"

	"github.com/ollm/ollm/internal/secrets"
	"github.com/ollm/ollm/schema"
)

// DefaultOllamaEndpoint is where Ollama listens unless told otherwise.
const DefaultOllamaEndpoint = "http://127.0.0.1:11434"

// Ollama is the native Ollama provider, built on Ollama's own Go client.
type Ollama struct {
	client    *api.Client
	endpoint  string   // for messages, credentials hidden (secrets.RedactURLs)
	known     []string // the endpoint's credentials, cut out of errors
	model     schema.Model
	keepAlive *api.Duration
	newID     func() string
}

var _ Provider = (*Ollama)(nil)

// NewOllama builds an Ollama provider for m. The endpoint is m.Endpoint,
// else $OLLAMA_HOST, else DefaultOllamaEndpoint; a plain-HTTP endpoint
// without a port gets Ollama's port 11434.
func NewOllama(m schema.Model, cfg Config) (*Ollama, error) {
	cfg = cfg.withDefaults()
	raw := cmp.Or(m.Endpoint, cfg.Getenv("OLLAMA_HOST"), DefaultOllamaEndpoint)
	u, err := parseEndpoint(raw)
	if err != nil {
		return nil, configError("ollama", m, fmt.Sprintf("model.endpoint %q is not usable (%v): use e.g. %s", secrets.RedactURLs(raw), err, DefaultOllamaEndpoint))
	}
	if u.Port() == "" && u.Scheme == "http" {
		u.Host += ":11434"
	}
	o := &Ollama{client: api.NewClient(u, cfg.HTTPClient), endpoint: secrets.RedactURLs(u.String()),
		known: secrets.FromURL(u.String()), model: m, newID: cfg.NewID}
	if m.KeepAlive != "" {
		d, err := parseKeepAlive(m.KeepAlive)
		if err != nil {
			return nil, configError("ollama", m, "model."+err.Error())
		}
		o.keepAlive = &api.Duration{Duration: d}
	}
	return o, nil
}

// Endpoint is the base URL the provider talks to.
func (o *Ollama) Endpoint() string { return o.endpoint }

// ModelOptions returns a copy of the profile's model.options.
func (o *Ollama) ModelOptions() map[string]any { return maps.Clone(o.model.Options) }

// Chat streams one reply from /api/chat.
func (o *Ollama) Chat(ctx context.Context, req Request, onEvent func(Event)) (Response, error) {
	resp, err := o.chat(ctx, req, onEvent)
	return resp, scrub(err, o.known)
}

func (o *Ollama) chat(ctx context.Context, req Request, onEvent func(Event)) (Response, error) {
	creq, err := o.chatRequest(req)
	if err != nil {
		return Response{}, err
	}
	st := newOllamaStream(onEvent, o.newID)
	err = o.client.Chat(ctx, creq, func(r api.ChatResponse) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		st.add(r)
		return nil
	})
	resp := st.response()
	if err := o.chatError(ctx, creq.Model, err, st.done); err != nil {
		return resp, err
	}
	st.emit(Event{Kind: EventDone, Usage: resp.Usage, DoneReason: resp.DoneReason})
	return resp, nil
}

// chatError turns what the client returned into an *Error. The client
// returns nil when the body ends early (including on cancellation), so
// ctx and the done flag are checked too.
func (o *Ollama) chatError(ctx context.Context, model string, err error, done bool) error {
	if cerr := cancelled(ctx, "ollama", o.endpoint, model); cerr != nil {
		return cerr
	}
	if err != nil {
		return o.fail(model, err)
	}
	if !done {
		return &Error{Kind: ErrIncomplete, Provider: "ollama", Endpoint: o.endpoint, Model: model,
			Message: fmt.Sprintf("Ollama at %s closed the stream before %s finished its reply: check the Ollama server log (the model may have crashed or run out of memory)", o.endpoint, model)}
	}
	return nil
}

func (o *Ollama) chatRequest(req Request) (*api.ChatRequest, error) {
	msgs, err := ollamaMessages(req.Messages)
	if err != nil {
		return nil, err
	}
	creq := &api.ChatRequest{
		Model:     cmp.Or(req.Model, o.model.Name),
		Messages:  msgs,
		Stream:    new(true),
		Tools:     ollamaTools(req.Tools),
		Options:   mergeOptions(o.model.Options, req.Options),
		KeepAlive: o.keepAlive,
	}
	if creq.Model == "" {
		return nil, configError("ollama", o.model, "no model to chat with: set model.name in the profile (e.g. \"qwen3:8b\")")
	}
	if req.KeepAlive != "" {
		d, err := parseKeepAlive(req.KeepAlive)
		if err != nil {
			return nil, configError("ollama", o.model, err.Error())
		}
		creq.KeepAlive = &api.Duration{Duration: d}
	}
	switch {
	case req.ThinkLevel != "":
		creq.Think = &api.ThinkValue{Value: req.ThinkLevel}
	case req.Think != nil:
		creq.Think = &api.ThinkValue{Value: *req.Think}
	}
	return creq, nil
}

// fail maps a client error to an *Error that says what to do.
func (o *Ollama) fail(model string, err error) error {
	e := &Error{Provider: "ollama", Endpoint: o.endpoint, Model: model, Err: err}
	var se api.StatusError
	var ae api.AuthorizationError
	switch {
	case isRefused(err):
		e.Kind = ErrUnreachable
		e.Message = fmt.Sprintf("Ollama is not running at %s: start it with `ollama serve` (or set model.endpoint)", o.endpoint)
	case errors.As(err, &ae):
		e.Kind, e.Status = ErrAuth, ae.StatusCode
		e.Message = fmt.Sprintf("Ollama at %s refused the request (%s): sign in with `ollama signin` or use a local model", o.endpoint, cmp.Or(ae.Status, "unauthorized"))
	case errors.As(err, &se):
		e.Status = se.StatusCode
		o.classify(e, se.ErrorMessage)
	default:
		o.classify(e, err.Error())
	}
	return e
}

// classify fills Kind and Message from the server's own message.
func (o *Ollama) classify(e *Error, msg string) {
	lower := strings.ToLower(msg)
	switch {
	case e.Status == http.StatusNotFound || strings.Contains(lower, "not found"):
		e.Kind = ErrModelMissing
		e.Message = fmt.Sprintf("model %s is not installed: run `ollm model pull %s` (or `ollama pull %s`; Ollama at %s said: %s)", e.Model, e.Model, e.Model, o.endpoint, msg)
	case strings.Contains(lower, "context length") || strings.Contains(lower, "context window"):
		e.Kind = ErrContextOverflow
		e.Message = fmt.Sprintf("the conversation does not fit %s's context at %s: compact it or raise num_ctx (Ollama said: %s)", e.Model, o.endpoint, msg)
	case e.Status >= 400 && e.Status < 500:
		e.Kind = ErrRejected
		e.Message = fmt.Sprintf("Ollama at %s rejected the request for %s (HTTP %d): %s", o.endpoint, e.Model, e.Status, msg)
	default:
		e.Kind = ErrServer
		e.Message = fmt.Sprintf("Ollama at %s failed while %s was answering: %s (see the Ollama server log)", o.endpoint, e.Model, msg)
	}
}

// ModelInfo asks /api/show about the model and /api/ps whether it is
// loaded, and works out the context window (see pickContextWindow).
func (o *Ollama) ModelInfo(ctx context.Context, name string) (Info, error) {
	info, err := o.modelInfo(ctx, name)
	return info, scrub(err, o.known)
}

func (o *Ollama) modelInfo(ctx context.Context, name string) (Info, error) {
	name = cmp.Or(name, o.model.Name)
	show, err := o.client.Show(ctx, &api.ShowRequest{Model: name})
	if err != nil {
		if cerr := cancelled(ctx, "ollama", o.endpoint, name); cerr != nil {
			return Info{}, cerr
		}
		return Info{}, o.fail(name, err)
	}
	info := Info{
		Name:           name,
		TrainedContext: contextLength(show.ModelInfo),
		Family:         show.Details.Family,
		ParameterSize:  show.Details.ParameterSize,
		Quantization:   show.Details.QuantizationLevel,
	}
	for _, c := range show.Capabilities {
		info.Capabilities = append(info.Capabilities, string(c))
	}
	running := o.runningContext(ctx, name)
	info.ContextWindow, info.ContextSource = pickContextWindow(o.model.ContextWindow, optionInt(o.model.Options, "num_ctx"), running, info.TrainedContext)
	return info, nil
}

// runningContext is the context length the loaded model runs with, or 0
// when it is not loaded (or /api/ps is not there).
func (o *Ollama) runningContext(ctx context.Context, name string) int {
	ps, err := o.client.ListRunning(ctx)
	if err != nil {
		return 0
	}
	for _, m := range ps.Models {
		if sameModel(m.Name, name) || sameModel(m.Model, name) {
			return m.ContextLength
		}
	}
	return 0
}

// Version asks the server for its version; it is the cheapest way to
// check that Ollama is running.
func (o *Ollama) Version(ctx context.Context) (string, error) {
	v, err := o.client.Version(ctx)
	if err != nil {
		return "", scrub(o.fail(o.model.Name, err), o.known)
	}
	return v, nil
}

// pickContextWindow decides how many tokens the server will keep: the
// profile's override first; then num_ctx, which Ollama caps at the model's
// trained length; then the length the loaded model runs with; then the
// trained length (an upper bound: Ollama may load the model with less);
// then DefaultContextWindow.
func pickContextWindow(profile, numCtx, running, trained int) (int, string) {
	switch {
	case profile > 0:
		return profile, ContextFromProfile
	case numCtx > 0:
		if trained > 0 {
			numCtx = min(numCtx, trained)
		}
		return numCtx, ContextFromNumCtx
	case running > 0:
		return running, ContextFromRunning
	case trained > 0:
		return trained, ContextFromModel
	}
	return DefaultContextWindow, ContextFromDefault
}

// contextLength reads <architecture>.context_length from /api/show's
// model_info, falling back to any *.context_length key.
func contextLength(info map[string]any) int {
	if arch, ok := info["general.architecture"].(string); ok {
		if n := optionInt(info, arch+".context_length"); n > 0 {
			return n
		}
	}
	for k := range info {
		if strings.HasSuffix(k, ".context_length") {
			if n := optionInt(info, k); n > 0 {
				return n
			}
		}
	}
	return 0
}

// sameModel compares Ollama model names, where "qwen3" means "qwen3:latest".
func sameModel(a, b string) bool {
	return withTag(a) == withTag(b)
}

func withTag(name string) string {
	if name == "" || strings.Contains(name[strings.LastIndex(name, "/")+1:], ":") {
		return name
	}
	return name + ":latest"
}

func configError(provider string, m schema.Model, msg string) *Error {
	e := &Error{Kind: ErrConfig, Provider: provider, Endpoint: m.Endpoint, Model: m.Name, Message: msg}
	_ = scrub(e, secrets.FromURL(m.Endpoint))
	return e
}
