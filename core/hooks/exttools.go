package hooks

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/ollm/ollm/core/tool"
	"github.com/ollm/ollm/internal/lazyre"
)

// An extension's persistent hook may register tools the model can call
// (seed 002's register_tool; a call is tool_call -> tool_result over the
// same channel). Such a tool is an ordinary tool.Tool: the session offers
// it after its built-in and MCP tools, never in their place, and every
// call goes through the one gate (before_tool hooks, policy,
// confirmation). Its name is "<extension>__<name>", so it cannot take a
// built-in's name or another extension's tool.

var extToolPattern = lazyre.New(`^[A-Za-z0-9_-]{1,48}$`)

// maxExtTools caps the tools one extension may register: each one is in
// every request to the model.
const maxExtTools = 32

// ExtTool is a tool a persistent hook of an extension registered.
type ExtTool struct {
	name, local string // namespaced name; the name the extension knows
	description string
	schema      *tool.Schema
	validator   *tool.Validator
	extension   string
	proc        *persistentProc
}

// extToolName is the namespaced name of an extension's tool: characters
// that provider tool names do not allow become '_'.
func extToolName(extension, name string) string {
	ext := strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '_'
	}, extension)
	return ext + "__" + name
}

// registerTool records a tool of p's extension, or tells the user why not.
func (e *Engine) registerTool(p *persistentProc, name, desc string, schema json.RawMessage) {
	src := source(p.h)
	if p.h.Extension == "" {
		e.ownNotice(fmt.Sprintf("%s sent register_tool %q, but only an extension's hook may register tools; ignored", src, clean(name)))
		return
	}
	if !extToolPattern.MatchString(name) {
		e.ownNotice(fmt.Sprintf("%s tried to register the tool %q; a tool name is letters, digits, _ and - (at most 48); fix the extension", src, clean(name)))
		return
	}
	full := extToolName(p.h.Extension, name)
	s := &tool.Schema{Type: "object"}
	if len(schema) > 0 && string(schema) != "null" {
		if err := json.Unmarshal(schema, s); err != nil || s.Type != "object" {
			e.ownNotice(fmt.Sprintf("%s tried to register the tool %q with a schema that is not a JSON Schema object (type \"object\"); ignored", src, name))
			return
		}
	}
	v, err := tool.NewValidator(full, s)
	if err != nil {
		e.ownNotice(fmt.Sprintf("%s tried to register the tool %q: %v; ignored", src, name, err))
		return
	}
	e.mu.Lock()
	old, taken := e.tools[full]
	if taken && old.proc != p {
		e.mu.Unlock()
		e.ownNotice(fmt.Sprintf("%s tried to register the tool %s, which %s registered; ignored (disable one of them or rename the tool)", src, full, old.proc.h.QualifiedName()))
		return
	}
	if n := e.countTools(p.h.Extension); !taken && n >= maxExtTools {
		e.mu.Unlock()
		e.ownNotice(fmt.Sprintf("%s tried to register more than %d tools; %q ignored", src, maxExtTools, name))
		return
	}
	e.tools[full] = &ExtTool{name: full, local: name, description: clean(desc), schema: s, validator: v, extension: p.h.Extension, proc: p}
	e.mu.Unlock()
	e.opts.Logger.Info("tool registered", "tool", full, "hook", p.h.QualifiedName())
}

// countTools counts the tools of extension; e.mu is held.
func (e *Engine) countTools(extension string) int {
	n := 0
	for _, t := range e.tools {
		if t.extension == extension {
			n++
		}
	}
	return n
}

// Tools lists the tools extensions registered, by name.
func (e *Engine) Tools() []tool.Tool {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make([]tool.Tool, 0, len(e.tools))
	for _, t := range e.tools {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out
}

// Tool returns the registered tool called name.
func (e *Engine) Tool(name string) (tool.Tool, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	t, ok := e.tools[name]
	return t, ok
}

func (t *ExtTool) Name() string        { return t.name }
func (t *ExtTool) Description() string { return t.description }
func (t *ExtTool) Schema() *tool.Schema {
	return t.schema
}
func (t *ExtTool) Kind() tool.Kind { return tool.KindOther }

// Annotations name the extension the tool comes from.
func (t *ExtTool) Annotations() tool.Annotations { return tool.Annotations{Extension: t.extension} }

// Build checks the parameters against the schema the extension gave.
func (t *ExtTool) Build(params json.RawMessage) (tool.Invocation, error) {
	params, err := t.validator.Validate(params)
	if err != nil {
		return nil, err
	}
	return &extCall{t: t, params: params}, nil
}

type extCall struct {
	t      *ExtTool
	params json.RawMessage
}

func (c *extCall) Params() json.RawMessage { return c.params }
func (c *extCall) Description() string {
	return fmt.Sprintf("Call %s's tool %s", c.t.extension, c.t.local)
}
func (c *extCall) Locations() []string { return nil }

func (c *extCall) Confirmation() *tool.Confirmation {
	return &tool.Confirmation{Title: c.Description(), Kind: tool.KindOther, Risk: tool.RiskMedium, Params: c.params}
}

// toolResult is seed 002's answer to a tool_call.
type toolResult struct {
	Type    string `json:"type"`
	Content []struct {
		Type      string `json:"type"`
		Text      string `json:"text"`
		MIMEType  string `json:"mime_type"` // image (seed 002)
		MIMEType2 string `json:"mimeType"`  // image, as MCP spells it
		Data      string `json:"data"`      // image: base64
	} `json:"content"`
	IsError bool   `json:"is_error"`
	Error   string `json:"error"`
}

// Execute sends tool_call and waits, for the hook's timeout, for the
// tool_result with its id. Every failure is a result the model sees.
func (c *extCall) Execute(ctx context.Context, _ func(tool.Chunk)) (tool.Result, error) {
	p, e := c.t.proc, c.t.proc.e
	out := p.request(ctx, func(id uint64) ([]byte, error) {
		return json.Marshal(map[string]any{"type": "tool_call", "id": id, "name": c.t.local, "args": c.params})
	})
	fail := func(kind tool.ErrorKind, format string, args ...any) (tool.Result, error) {
		msg := fmt.Sprintf("%s: ", c.t.name) + fmt.Sprintf(format, args...)
		return tool.Result{ForModel: msg, Display: msg, Error: &tool.Error{Kind: kind, Message: msg}}, nil
	}
	switch {
	case out.TimedOut:
		return fail(tool.ErrTimeout, "extension %s did not answer within %s (its log: logs/%s)", c.t.extension, p.h.timeout(e.opts.Timeout), logName(p.h.Extension))
	case out.StartErr != nil:
		return fail(tool.ErrUnavailable, "%v", out.StartErr)
	case out.Err != nil:
		return fail(tool.ErrExec, "extension %s: %v", c.t.extension, out.Err)
	}
	var r toolResult
	if err := json.Unmarshal(out.Stdout, &r); err != nil {
		return fail(tool.ErrExec, "extension %s answered with a line that is not a tool_result: %v", c.t.extension, err)
	}
	var texts []string
	var images [][]byte
	for _, b := range r.Content {
		switch b.Type {
		case "text", "":
			texts = append(texts, b.Text)
		case "image":
			img, note := extImage(b.MIMEType+b.MIMEType2, b.Data)
			if img != nil {
				images = append(images, img)
			}
			texts = append(texts, note)
		}
	}
	text := e.redact(p.h, strings.Join(texts, "\n"))
	if r.IsError || r.Error != "" {
		if text == "" {
			text = e.redact(p.h, r.Error)
		}
		return fail(tool.ErrExec, "%s", text)
	}
	return tool.Result{ForModel: text, Display: text, Images: images}, nil
}
