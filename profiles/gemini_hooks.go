package profiles

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ollm/ollm/schema"
)

// A Gemini CLI extension ships hooks in hooks/hooks.json (Gemini CLI's
// extension-manager.ts, loadExtensionHooks): {"hooks": {<Event>:
// [{matcher, sequential, hooks: [{type: "command", command, name,
// timeout}]}]}}, with ${extensionPath}, ${workspacePath} and ${/} in its
// strings (ollm substitutes them in every manifest string). They become
// gemini-dialect hooks of the extension, which run in the project
// directory as Gemini CLI runs them, and need an approval like any
// downloaded or workspace extension's hook.

// GeminiHooksFile is where a Gemini CLI extension keeps its hooks.
const GeminiHooksFile = "hooks/hooks.json"

// geminiDefaultTimeout is Gemini CLI's hook timeout, in milliseconds (its
// hooks' timeout field is milliseconds too; Claude Code's is seconds).
const geminiDefaultTimeout = 60000

// geminiEvents are Gemini CLI's hook events and their ollm events.
var geminiEvents = map[string]string{
	"BeforeTool": "before_tool", "AfterTool": "after_tool",
	"BeforeAgent": "before_agent", "AfterAgent": "after_agent",
	"BeforeModel": "before_model", "AfterModel": "after_model",
	"BeforeToolSelection": "before_tool_selection",
	"SessionStart":        "session_start", "SessionEnd": "session_end",
	"PreCompress": "on_context_overflow", "Notification": "on_approval_request",
}

// geminiExtHooks adds the hooks of the Gemini CLI extension in dir to m
// and reports what was imported and skipped; nil when it has no
// hooks/hooks.json. A hooks file that is not JSON is a diagnostic (the
// extension does not load), as a broken manifest is.
func geminiExtHooks(dir string, m *schema.Manifest) (*schema.ImportReport, []Diagnostic) {
	file := filepath.Join(dir, filepath.FromSlash(GeminiHooksFile))
	data, err := os.ReadFile(file)
	if os.IsNotExist(err) {
		return nil, nil
	}
	rep := &schema.ImportReport{Format: "gemini-extension"}
	if err != nil {
		return nil, []Diagnostic{{Pos: file, Message: "cannot read the hooks file: " + err.Error()}}
	}
	doc, err := parseJSONDoc(file, data)
	if err != nil {
		return nil, []Diagnostic{{Pos: doc.errPos(err), Message: "hooks/hooks.json is not valid JSON: " + err.Error()}}
	}
	var top struct {
		Hooks map[string]json.RawMessage `json:"hooks"`
	}
	if err := json.Unmarshal(data, &top); err != nil || top.Hooks == nil {
		rep.Skipped = append(rep.Skipped, schema.ImportItem{What: "hooks", Pos: GeminiHooksFile,
			Why: `"hooks" must be an object of events, as Gemini CLI requires; no hook of this file runs`})
		return rep, nil
	}
	rel := func(pos string) string { return strings.TrimPrefix(pos, dir+string(filepath.Separator)) }
	events := make([]string, 0, len(top.Hooks))
	for k := range top.Hooks {
		events = append(events, k)
	}
	sort.Strings(events)
	for _, ev := range events {
		if _, ok := geminiEvents[ev]; !ok {
			rep.Skipped = append(rep.Skipped, schema.ImportItem{What: "hook event " + ev, Pos: rel(doc.pos("hooks", ev)),
				Why: "not a Gemini CLI hook event ollm knows; its hooks do not run"})
			continue
		}
		geminiEventHooks(doc, ev, top.Hooks[ev], m, rep, rel)
	}
	return rep, nil
}

// geminiEventHooks converts the groups of one event.
func geminiEventHooks(doc jsonDoc, ev string, raw json.RawMessage, m *schema.Manifest, rep *schema.ImportReport, rel func(string) string) {
	var groups []struct {
		Matcher string `json:"matcher"`
		Hooks   []struct {
			Type    string   `json:"type"`
			Command string   `json:"command"`
			Name    string   `json:"name"`
			Timeout *float64 `json:"timeout"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(raw, &groups); err != nil {
		rep.Skipped = append(rep.Skipped, schema.ImportItem{What: "hook event " + ev, Pos: rel(doc.pos("hooks", ev)),
			Why: fmt.Sprintf("not a list of {matcher, hooks}: %v", err)})
		return
	}
	n := len(m.Hooks[ev])
	for gi, g := range groups {
		for hi, hk := range g.Hooks {
			pos := rel(doc.pos("hooks", ev, gi, "hooks", hi))
			if hk.Type != "command" || strings.TrimSpace(hk.Command) == "" {
				rep.Skipped = append(rep.Skipped, schema.ImportItem{What: fmt.Sprintf("hook %s of type %q", ev, hk.Type), Pos: pos,
					Why: "ollm runs command hooks with a command only"})
				continue
			}
			n++
			timeout := geminiDefaultTimeout
			if hk.Timeout != nil && *hk.Timeout > 0 {
				timeout = int(*hk.Timeout) // milliseconds, as in Gemini CLI
			}
			matcher := g.Matcher
			if matcher == "*" {
				matcher = ""
			}
			def := schema.Hook{Name: fmt.Sprintf("%s.%d", ev, n), Event: ev, Command: hk.Command,
				Timeout: timeout, Matcher: matcher, Dialect: "gemini"}
			if m.Hooks == nil {
				m.Hooks = map[string][]schema.Hook{}
			}
			m.Hooks[ev] = append(m.Hooks[ev], def)
			what := "hook " + ev
			if hk.Name != "" {
				what += " " + hk.Name
			}
			if matcher != "" {
				what += fmt.Sprintf(" (matcher %q)", matcher)
			}
			rep.Imported = append(rep.Imported, schema.ImportItem{What: what, As: fmt.Sprintf("%s hook %s", geminiEvents[ev], def.Name), Pos: pos})
		}
	}
}
