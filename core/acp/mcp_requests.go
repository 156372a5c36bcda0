package acp

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/ollm/ollm/core/bus"
)

// An MCP server of ollm's (the profile's, an extension's, the editor's)
// asking the user for input (elicitation) or for a completion of the
// session's model (sampling) is asked in the editor's permission prompt,
// the only question ACP has. Sampling is allowed once or refused. An
// elicitation whose answer fits options is asked: a URL to open
// (accept/decline), a form with no field (accept/decline), one field that
// is a boolean (yes/no) or an enum (one option per value). A form that
// needs typed text has no ACP form: it is declined with the fields named.

// requestAnswerPrefix marks an option that carries an elicitation's value.
const requestAnswerPrefix = "value:"

// mcpParams is what runtime.elicit and runtime.sample put in the
// confirmation's parameters.
type mcpParams struct {
	Server       string          `json:"server"`
	Message      string          `json:"message"`
	URL          string          `json:"url,omitempty"`
	Schema       json.RawMessage `json:"schema,omitempty"`
	SystemPrompt string          `json:"systemPrompt,omitempty"`
	Messages     []struct {
		Role string `json:"role"`
		Text string `json:"text"`
	} `json:"messages,omitempty"`
	MaxTokens int `json:"maxTokens,omitempty"`
}

// elicitOptions are the permission options for an elicitation, or why it
// cannot be asked in the editor.
func elicitOptions(p mcpParams) ([]sdk.PermissionOption, string) {
	decline := sdk.PermissionOption{OptionId: sdk.PermissionOptionId(bus.Deny), Name: "Decline", Kind: sdk.PermissionOptionKindRejectOnce}
	accept := func(name, value string) sdk.PermissionOption {
		return sdk.PermissionOption{OptionId: sdk.PermissionOptionId(requestAnswerPrefix + value), Name: name, Kind: sdk.PermissionOptionKindAllowOnce}
	}
	if p.URL != "" {
		return []sdk.PermissionOption{accept("Accept (open the link yourself)", ""), decline}, ""
	}
	var s struct {
		Properties map[string]struct {
			Type string `json:"type"`
			Enum []any  `json:"enum"`
		} `json:"properties"`
	}
	if len(p.Schema) > 0 {
		if err := json.Unmarshal(p.Schema, &s); err != nil {
			return nil, "its form is not a JSON schema ollm reads"
		}
	}
	switch len(s.Properties) {
	case 0:
		return []sdk.PermissionOption{accept("Accept", ""), decline}, ""
	case 1:
		for _, f := range s.Properties {
			switch {
			case len(f.Enum) > 0 && len(f.Enum) <= 10:
				var out []sdk.PermissionOption
				for _, v := range f.Enum {
					out = append(out, accept(fmt.Sprint(v), fmt.Sprint(v)))
				}
				return append(out, decline), ""
			case f.Type == "boolean":
				return []sdk.PermissionOption{accept("Yes", "true"), accept("No", "false"), decline}, ""
			}
		}
	}
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	sort.Strings(names)
	return nil, "it asks for typed answers (" + strings.Join(names, ", ") + ") and ACP has no form; use ollm in a terminal for this server"
}

// mcpRequest asks the editor about an elicitation or a sampling request
// and answers the bus; it reports whether req was one.
func (s *session) mcpRequest(req bus.Request) bool {
	d := req.Details
	if d.Tool != bus.ElicitTool && d.Tool != bus.SampleTool {
		return false
	}
	var p mcpParams
	_ = json.Unmarshal(d.Params, &p)
	var (
		options []sdk.PermissionOption
		detail  strings.Builder
	)
	title := d.Description
	if d.Tool == bus.SampleTool {
		options = []sdk.PermissionOption{
			{OptionId: sdk.PermissionOptionId(bus.AllowOnce), Name: "Allow this completion", Kind: sdk.PermissionOptionKindAllowOnce},
			{OptionId: sdk.PermissionOptionId(bus.Deny), Name: "Refuse", Kind: sdk.PermissionOptionKindRejectOnce},
		}
		if p.SystemPrompt != "" {
			fmt.Fprintf(&detail, "System prompt: %s\n\n", p.SystemPrompt)
		}
		for _, m := range p.Messages {
			fmt.Fprintf(&detail, "%s: %s\n", m.Role, m.Text)
		}
	} else {
		title = fmt.Sprintf("MCP server %s asks: %s", p.Server, firstLine(p.Message))
		detail.WriteString(p.Message)
		if p.URL != "" {
			fmt.Fprintf(&detail, "\n\nOpen: %s", p.URL)
		}
		var why string
		if options, why = elicitOptions(p); options == nil {
			s.notice(fmt.Sprintf("MCP server %s asked for input; declined: %s", p.Server, why))
			_ = s.rt.Bus.Respond(bus.Response{ID: req.ID, Answer: bus.Deny, Feedback: "declined in the editor: " + why})
			return true
		}
	}
	ctx := s.a.ctx
	s.mu.Lock()
	if s.promptCtx != nil {
		ctx = s.promptCtx
	}
	s.mu.Unlock()
	chosen := s.ask(ctx, "mcp-request-"+req.ID, title, strings.TrimSpace(detail.String()), options)
	r := bus.Response{ID: req.ID, Answer: bus.Deny}
	switch {
	case chosen == string(bus.AllowOnce) && d.Tool == bus.SampleTool:
		r.Answer = bus.AllowOnce
	case strings.HasPrefix(chosen, requestAnswerPrefix) && d.Tool == bus.ElicitTool:
		r.Answer, r.Feedback = bus.AllowOnce, strings.TrimPrefix(chosen, requestAnswerPrefix)
	}
	_ = s.rt.Bus.Respond(r)
	return true
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	if r := []rune(line); len(r) > 100 {
		line = string(r[:99]) + "…"
	}
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, line)
}
