package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/ollm/ollm/schema"
)

// Elicitation is a server's request for input from the user.
type Elicitation struct {
	Server  string          `json:"server"`
	Message string          `json:"message"`
	Mode    string          `json:"mode,omitempty"` // "form" (default) or "url"
	URL     string          `json:"url,omitempty"`
	Schema  json.RawMessage `json:"schema,omitempty"` // requested form fields
}

// Elicitation actions.
const (
	ElicitAccept  = "accept"
	ElicitDecline = "decline"
	ElicitCancel  = "cancel"
)

// ElicitationReply is the user's answer.
type ElicitationReply struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content,omitempty"`
}

// Elicitor asks the user (through the confirmation bus); with no terminal
// it should decline.
type Elicitor func(ctx context.Context, e Elicitation) (ElicitationReply, error)

type elicitHandler struct {
	server string
	elicit Elicitor
}

// Elicit declines when no Elicitor is set: without a terminal nobody can
// answer.
func (h elicitHandler) Elicit(ctx context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	reply := ElicitationReply{Action: ElicitDecline}
	if h.elicit != nil {
		schema, _ := json.Marshal(req.Params.RequestedSchema)
		var err error
		reply, err = h.elicit(ctx, Elicitation{
			Server: h.server, Message: req.Params.Message, Mode: req.Params.Mode,
			URL: req.Params.URL, Schema: schema,
		})
		if err != nil {
			return nil, err
		}
	}
	res := &mcp.ElicitationResult{}
	res.Action = mcp.ElicitationResponseAction(reply.Action)
	if reply.Action == ElicitAccept {
		res.Content = withDefaults(reply.Content, req.Params.RequestedSchema)
	}
	return res, nil
}

// withDefaults fills the fields an accepted answer leaves out with the
// defaults the requested schema gives them (SEP-1034: every primitive
// field may carry a default, which the form starts from). The answer's
// own values win; content is not changed.
func withDefaults(content map[string]any, schema any) map[string]any {
	b, err := json.Marshal(schema)
	if err != nil {
		return content
	}
	var s struct {
		Properties map[string]struct {
			Default json.RawMessage `json:"default"`
		} `json:"properties"`
	}
	if json.Unmarshal(b, &s) != nil {
		return content
	}
	out := make(map[string]any, len(content)+len(s.Properties))
	for k, v := range content {
		out[k] = v
	}
	for name, p := range s.Properties {
		if _, given := out[name]; given || len(p.Default) == 0 || string(p.Default) == "null" {
			continue
		}
		var v any
		if json.Unmarshal(p.Default, &v) == nil {
			out[name] = v
		}
	}
	return out
}

// SamplingMessage is one message of a sampling request.
type SamplingMessage struct {
	Role string `json:"role"` // "user" | "assistant"
	Text string `json:"text"`
}

// SamplingRequest is a server asking the session's model for a completion.
type SamplingRequest struct {
	Server       string            `json:"server"`
	SystemPrompt string            `json:"systemPrompt,omitempty"`
	Messages     []SamplingMessage `json:"messages"`
	MaxTokens    int               `json:"maxTokens"`
	Temperature  float64           `json:"temperature,omitempty"`
}

// SamplingReply is the model's answer.
type SamplingReply struct {
	Model      string `json:"model"`
	Text       string `json:"text"`
	StopReason string `json:"stopReason,omitempty"`
}

// Sampler runs a sampling request on the session's model. It must ask the
// user first and return an error when the user refuses. With no Sampler
// the client does not offer sampling at all.
type Sampler func(ctx context.Context, r SamplingRequest) (SamplingReply, error)

type sampleHandler struct {
	server string
	sample Sampler
}

func (h sampleHandler) CreateMessage(ctx context.Context, req mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	r := SamplingRequest{
		Server: h.server, SystemPrompt: req.CreateMessageParams.SystemPrompt,
		MaxTokens: req.CreateMessageParams.MaxTokens, Temperature: req.CreateMessageParams.Temperature,
	}
	for _, m := range req.CreateMessageParams.Messages {
		r.Messages = append(r.Messages, SamplingMessage{Role: string(m.Role), Text: samplingText(m.Content)})
	}
	reply, err := h.sample(ctx, r)
	if err != nil {
		return nil, &refusedError{fmt.Sprintf("sampling request from MCP server %q refused: %v", h.server, err)}
	}
	res := &mcp.CreateMessageResult{Model: reply.Model, StopReason: reply.StopReason}
	res.Role = mcp.RoleAssistant
	res.Content = mcp.NewTextContent(reply.Text)
	return res, nil
}

func samplingText(c any) string {
	switch v := c.(type) {
	case mcp.TextContent:
		return v.Text
	case *mcp.TextContent:
		return v.Text
	case []mcp.Content:
		var parts []string
		for _, p := range v {
			parts = append(parts, samplingText(p))
		}
		return strings.Join(parts, "\n")
	case mcp.Content:
		text, _ := describeContent(v)
		return text
	default:
		b, _ := json.Marshal(v)
		return string(b)
	}
}

// refusedError is a server request the user (or the lack of a terminal)
// refused. It is answered with the error code the spec gives a rejected
// sampling request, -1, instead of an internal error (see wire).
type refusedError struct{ msg string }

func (e *refusedError) Error() string { return e.msg }

// codeUserRejected is the JSON-RPC error code of a request the user
// rejected (MCP sampling: "User rejected sampling request").
const codeUserRejected = -1

// rootsHandler reports a server's roots (conn.roots).
type rootsHandler struct{ roots []string }

func (h rootsHandler) ListRoots(ctx context.Context, _ mcp.ListRootsRequest) (*mcp.ListRootsResult, error) {
	res := &mcp.ListRootsResult{Roots: []mcp.Root{}}
	for _, dir := range h.roots {
		res.Roots = append(res.Roots, mcp.Root{URI: FileURI(dir), Name: filepath.Base(dir)})
	}
	return res, nil
}

// FileURI turns an absolute path into a file:// URI.
func FileURI(path string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(path)}).String()
}

// roots are the directories offered to the server: its own Roots when
// set, else the workspace roots and the extra directories its declared
// sandbox lets it read or write, so a server confined to a directory
// outside the workspace is told about it. Relative and "~/" paths of the
// sandbox are resolved the way the sandbox resolves them; a path that is
// not a directory is left out.
func (c *conn) roots() []string {
	if len(c.spec.Roots) > 0 {
		return c.spec.Roots
	}
	out := slices.Clone(c.opts.Roots)
	d := c.spec.DeclaredSandbox()
	if d == nil || d.Preset == schema.SandboxOff {
		return out
	}
	base := ""
	if len(c.opts.Roots) > 0 {
		base = c.opts.Roots[0]
	}
	home, _ := os.UserHomeDir()
	for _, p := range append(slices.Clone(d.Write), d.Read...) {
		switch {
		case p == "~" || strings.HasPrefix(p, "~/"):
			p = filepath.Join(home, strings.TrimPrefix(p, "~"))
		case !filepath.IsAbs(p) && base != "":
			p = filepath.Join(base, p)
		}
		p = filepath.Clean(p)
		if fi, err := os.Stat(p); err != nil || !fi.IsDir() || slices.Contains(out, p) {
			continue
		}
		out = append(out, p)
	}
	return out
}
