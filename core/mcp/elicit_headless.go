package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Headless elicitation: what a session that nobody can answer does when a
// server asks for input (`--elicit`).
const (
	ElicitHeadlessDecline  = "decline"  // decline every elicitation (the default)
	ElicitHeadlessDefaults = "defaults" // accept a form whose required fields all have defaults, with them
)

// CheckElicitHeadless checks a --elicit value.
func CheckElicitHeadless(mode string) error {
	switch mode {
	case "", ElicitHeadlessDecline, ElicitHeadlessDefaults:
		return nil
	}
	return fmt.Errorf("--elicit %q: want %s or %s", mode, ElicitHeadlessDecline, ElicitHeadlessDefaults)
}

// HeadlessReply answers e without a person: with mode "defaults" a form
// is accepted with the defaults its schema gives (the answer is empty;
// the handler fills each field from its default) when every required
// field has one; otherwise, and for a URL elicitation (nobody can open
// it), it is declined. why says what was done, for a notice.
func HeadlessReply(mode string, e Elicitation) (reply ElicitationReply, why string) {
	if mode != ElicitHeadlessDefaults {
		return ElicitationReply{Action: ElicitDecline}, fmt.Sprintf("MCP server %q asked for input (%s); declined: nobody can answer here (--elicit defaults accepts a form's defaults)", e.Server, oneLine(e.Message))
	}
	if e.Mode == "url" {
		return ElicitationReply{Action: ElicitDecline}, fmt.Sprintf("MCP server %q asked to open %s; declined: nobody can open it here", e.Server, e.URL)
	}
	if missing := withoutDefault(e.Schema); len(missing) > 0 {
		return ElicitationReply{Action: ElicitDecline}, fmt.Sprintf("MCP server %q asked for input (%s); declined: required field %s has no default (--elicit defaults can only accept defaults)", e.Server, oneLine(e.Message), strings.Join(missing, ", "))
	}
	return ElicitationReply{Action: ElicitAccept, Content: map[string]any{}}, fmt.Sprintf("MCP server %q asked for input (%s); accepted with the form's defaults (--elicit defaults)", e.Server, oneLine(e.Message))
}

// HeadlessElicitor is an Elicitor for a command with nobody to ask;
// notice (may be nil) is told each answer.
func HeadlessElicitor(mode string, notice func(string)) Elicitor {
	return func(ctx context.Context, e Elicitation) (ElicitationReply, error) {
		r, why := HeadlessReply(mode, e)
		if notice != nil {
			notice(why)
		}
		return r, nil
	}
}

// withoutDefault lists the required fields of a requested schema that
// have no default, sorted.
func withoutDefault(schema json.RawMessage) []string {
	var s struct {
		Properties map[string]struct {
			Default json.RawMessage `json:"default"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if len(schema) > 0 {
		_ = json.Unmarshal(schema, &s)
	}
	var out []string
	for _, name := range s.Required {
		p, ok := s.Properties[name]
		if !ok || len(p.Default) == 0 || string(p.Default) == "null" {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 80 {
		s = string(r[:77]) + "..."
	}
	return s
}
