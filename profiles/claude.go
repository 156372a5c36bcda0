package profiles

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"cuelang.org/go/cue/ast"
	cuejson "cuelang.org/go/encoding/json"

	"github.com/ollm/ollm/schema"
	"github.com/ollm/ollm/store"
)

// Claude Code settings files (.claude/settings.json and
// .claude/settings.local.json in the workspace, ~/.claude/settings.json
// when the user profile sets hooks.claudeUserSettings) bring hooks in
// Claude's shape:
//
//	{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "...", "timeout": 30}]}]}}
//
// They become profile hook definitions of the claude dialect, scoped like
// the file's place: the workspace's are workspace hooks (held back until
// the workspace is approved, then each hook approved like any workspace
// hook), the user's are user hooks. Events without an ollm equivalent, and
// hook types other than "command", are skipped with one warning each.

// claudeEvents maps Claude Code's hook events to ollm's canonical events;
// "" is an event ollm has no equivalent for (core/hooks knows why).
var claudeEvents = map[string]string{
	"PreToolUse": "before_tool", "PostToolUse": "after_tool",
	"UserPromptSubmit": "before_agent", "Stop": "after_agent",
	"SessionStart": "session_start", "SessionEnd": "session_end",
	"PreCompact": "on_context_overflow", "Notification": "on_approval_request",
	"PermissionRequest": "on_approval_request", "PostToolUseFailure": "after_tool",
	"StopFailure": "on_error", "SubagentStart": "subagent_start", "SubagentStop": "subagent_stop",

	"Setup": "", "PostToolBatch": "", "PermissionDenied": "", "UserPromptExpansion": "",
	"TaskCreated": "", "TaskCompleted": "", "TeammateIdle": "", "InstructionsLoaded": "",
	"ConfigChange": "", "CwdChanged": "", "FileChanged": "", "WorktreeCreate": "",
	"WorktreeRemove": "", "PostCompact": "", "Elicitation": "", "ElicitationResult": "",
}

// claudeDefaultTimeout is Claude Code's timeout of a command hook,
// claudePromptTimeout of a prompt hook (ms).
const (
	claudeDefaultTimeout = 60000
	claudePromptTimeout  = 30000
)

// ClaudeSettingsFiles are the workspace's Claude Code settings files.
func ClaudeSettingsFiles(ws store.Workspace) []string {
	return []string{filepath.Join(ws.Root, ".claude", "settings.json"), filepath.Join(ws.Root, ".claude", "settings.local.json")}
}

// ClaudeUserSettings is the user's Claude Code settings file:
// $CLAUDE_CONFIG_DIR/settings.json, else ~/.claude/settings.json.
func ClaudeUserSettings() string {
	if d := os.Getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return filepath.Join(d, "settings.json")
	}
	h, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(h, ".claude", "settings.json")
}

// claudeFile is a Claude Code settings file read with the layers.
type claudeFile struct {
	scope schema.Scope
	path  string
	data  []byte
}

// readClaudeSettings reads the workspace's settings files and the user's
// (used only when the profile opts in, but always part of the cache key).
func readClaudeSettings(opts Options) []claudeFile {
	var out []claudeFile
	if p := ClaudeUserSettings(); p != "" {
		if data, err := os.ReadFile(p); err == nil {
			out = append(out, claudeFile{schema.ScopeUser, p, data})
		}
	}
	if opts.Workspace.Root != "" {
		for _, p := range ClaudeSettingsFiles(opts.Workspace) {
			if data, err := os.ReadFile(p); err == nil {
				out = append(out, claudeFile{schema.ScopeWorkspace, p, data})
			}
		}
	}
	return out
}

// claudeKey adds the settings files to the resolution cache key.
func claudeKey(w interface{ Write([]byte) (int, error) }, files []claudeFile) {
	for _, f := range files {
		fmt.Fprintf(w, "claude\x00%s\x00%s\x00%d\x00", f.scope, f.path, len(f.data))
		w.Write(f.data)
	}
}

// mergeClaudeSettings adds the hooks of the Claude Code settings files to
// the resolved profile. An unapproved workspace's are held back.
func mergeClaudeSettings(files []claudeFile, r *schema.Resolved, gated bool) []schema.Problem {
	var probs []schema.Problem
	for _, f := range files {
		if f.scope == schema.ScopeUser && !r.Profile.Hooks.ClaudeUserSettings {
			continue
		}
		doc, err := parseJSONDoc(f.path, f.data)
		if err != nil {
			probs = append(probs, schema.Problem{Severity: "error", File: f.path, Pos: doc.errPos(err),
				Message: fmt.Sprintf("Claude Code settings are not valid JSON, their hooks are not loaded: %v", err),
				Fix:     "fix " + f.path + ", then run `ollm profile validate`"})
			continue
		}
		var s struct {
			Hooks           map[string]json.RawMessage `json:"hooks"`
			DisableAllHooks bool                       `json:"disableAllHooks"`
		}
		if err := json.Unmarshal(f.data, &s); err != nil {
			probs = append(probs, schema.Problem{Severity: "error", File: f.path, Pos: doc.pos("hooks"),
				Message: fmt.Sprintf("Claude Code settings: hooks: %v; they are not loaded", err),
				Fix:     "make hooks an object of event names to lists of {matcher, hooks}, as Claude Code documents"})
			continue
		}
		if len(s.Hooks) == 0 {
			continue
		}
		if s.DisableAllHooks {
			probs = append(probs, schema.Problem{Severity: "warning", File: f.path, Pos: doc.pos("disableAllHooks"),
				Message: "disableAllHooks is set: the hooks of this file are not loaded"})
			continue
		}
		prefix := "claude"
		switch {
		case f.scope == schema.ScopeUser:
			prefix = "claude-user"
		case strings.HasSuffix(f.path, "settings.local.json"):
			prefix = "claude-local"
		}
		conv := convertClaudeHooks(doc, []any{"hooks"}, s.Hooks, prefix, nil)
		for _, sk := range conv.skipped {
			probs = append(probs, schema.Problem{Severity: "warning", File: f.path, Pos: sk.Pos,
				Message: fmt.Sprintf("Claude Code %s skipped: %s", sk.What, sk.Why),
				Fix:     "nothing to do: the rest of the file's hooks load; remove it to silence this"})
		}
		if len(conv.hooks) == 0 {
			continue
		}
		if gated && f.scope == schema.ScopeWorkspace {
			events := map[string]bool{}
			for _, h := range conv.hooks {
				events[h.def.Event] = true
			}
			r.Trust.Held = append(r.Trust.Held, schema.HeldValue{
				Field: "hooks (Claude Code settings)", File: f.path, Pos: doc.pos("hooks"),
				Value:  fmt.Sprintf("%d hooks: %s", len(conv.hooks), strings.Join(sortedKeys(events), ", ")),
				Reason: "hooks run commands",
			})
			continue
		}
		for _, h := range conv.hooks {
			r.Profile.Hooks.Definitions = append(r.Profile.Hooks.Definitions, h.def)
			r.HookScopes = append(r.HookScopes, f.scope)
		}
	}
	return probs
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// claudeHook is one converted Claude Code command hook.
type claudeHook struct {
	def schema.Hook
	pos string
}

type claudeConversion struct {
	hooks   []claudeHook
	skipped []schema.ImportItem
}

// convertClaudeHooks converts a Claude Code "hooks" object (event -> list
// of {matcher, hooks}) found at path base of doc. Hook names are
// <prefix>.<Event>.<n>, n counting the event's command hooks from 1
// (<prefix>.<Event>.prompt<n> for prompt hooks), so
// an approval keeps its id while the file is not reordered. env is given
// to every hook (a plugin's CLAUDE_PLUGIN_ROOT).
func convertClaudeHooks(doc jsonDoc, base []any, raw map[string]json.RawMessage, prefix string, env map[string]string) claudeConversion {
	var out claudeConversion
	events := make([]string, 0, len(raw))
	for k := range raw {
		events = append(events, k)
	}
	sort.Strings(events)
	at := func(p ...any) string { return doc.pos(append(append([]any{}, base...), p...)...) }
	for _, ev := range events {
		canon, known := claudeEvents[ev]
		switch {
		case !known:
			out.skipped = append(out.skipped, schema.ImportItem{What: "hook event " + ev, Pos: at(ev),
				Why: "not a hook event ollm knows (neither Claude Code's nor ollm's)"})
			continue
		case canon == "":
			out.skipped = append(out.skipped, schema.ImportItem{What: "hook event " + ev, Pos: at(ev),
				Why: "ollm has no equivalent of this event; its hooks do not run"})
			continue
		}
		var groups []struct {
			Matcher *string `json:"matcher"`
			Hooks   []struct {
				Type    string   `json:"type"`
				Command string   `json:"command"`
				Prompt  string   `json:"prompt"`
				Model   string   `json:"model"`
				Timeout *float64 `json:"timeout"`
				Async   bool     `json:"async"`
				If      string   `json:"if"`
				Shell   string   `json:"shell"`
			} `json:"hooks"`
		}
		if err := json.Unmarshal(raw[ev], &groups); err != nil {
			out.skipped = append(out.skipped, schema.ImportItem{What: "hook event " + ev, Pos: at(ev),
				Why: fmt.Sprintf("not a list of {matcher, hooks}: %v", err)})
			continue
		}
		n, np := 0, 0
		for gi, g := range groups {
			matcher := ""
			if g.Matcher != nil {
				matcher = *g.Matcher
			}
			if ev == "Notification" && !notifiesPermission(matcher) {
				out.skipped = append(out.skipped, schema.ImportItem{What: fmt.Sprintf("hook %s matcher %q", ev, matcher), Pos: at(ev, gi, "matcher"),
					Why: "ollm notifies only for permission prompts (permission_prompt)"})
				continue
			}
			if ev == "Notification" {
				matcher = "" // it was about the notification type, which is always permission_prompt
			}
			for hi, hk := range g.Hooks {
				pos := at(ev, gi, "hooks", hi)
				if hk.Type != "command" && hk.Type != "prompt" {
					out.skipped = append(out.skipped, schema.ImportItem{What: fmt.Sprintf("hook %s of type %q", ev, hk.Type), Pos: pos,
						Why: "ollm runs command and prompt hooks only"})
					continue
				}
				if hk.Type == "command" && strings.TrimSpace(hk.Command) == "" {
					out.skipped = append(out.skipped, schema.ImportItem{What: "hook " + ev + " without a command", Pos: pos,
						Why: "a command hook needs a command"})
					continue
				}
				if hk.Type == "prompt" && strings.TrimSpace(hk.Prompt) == "" {
					out.skipped = append(out.skipped, schema.ImportItem{What: "hook " + ev + " without a prompt", Pos: pos,
						Why: "a prompt hook needs a prompt"})
					continue
				}
				// command hooks keep their numbers when prompt hooks join
				name := ""
				if hk.Type == "prompt" {
					np++
					name = fmt.Sprintf("%s.%s.prompt%d", prefix, ev, np)
				} else {
					n++
					name = fmt.Sprintf("%s.%s.%d", prefix, ev, n)
				}
				def := schema.Hook{Name: name, Event: ev, Matcher: matcher, Async: hk.Async, Dialect: "claude"}
				def.Timeout = claudeDefaultTimeout
				if hk.Type == "prompt" {
					def.Prompt, def.Timeout = hk.Prompt, claudePromptTimeout
				} else {
					def.Command = hk.Command
				}
				if hk.Timeout != nil && *hk.Timeout > 0 {
					def.Timeout = int(*hk.Timeout * 1000) // Claude's timeouts are seconds
				}
				hookFields(&def, ev, canon, hk.Type, hk.If, hk.Shell, hk.Model, func(field, what, why string) {
					out.skipped = append(out.skipped, schema.ImportItem{What: fmt.Sprintf("hook %s field %s %q", ev, field, what),
						Pos: at(ev, gi, "hooks", hi, field), Why: why})
				})
				if len(env) > 0 {
					def.Env = map[string]string{}
					for k, v := range env {
						def.Env[k] = v
					}
				}
				out.hooks = append(out.hooks, claudeHook{def: def, pos: pos})
			}
		}
	}
	return out
}

// notifiesPermission: a Notification matcher that selects the
// permission_prompt notification type.
func notifiesPermission(m string) bool {
	if m == "" || m == "*" {
		return true
	}
	for _, alt := range strings.Split(m, "|") {
		if alt == "permission_prompt" || alt == ".*" {
			return true
		}
	}
	return false
}

// jsonDoc is a JSON file with the positions of its values, so problems
// can name file:line:col.
type jsonDoc struct {
	file string
	data []byte
	root ast.Expr
}

func parseJSONDoc(file string, data []byte) (jsonDoc, error) {
	d := jsonDoc{file: file, data: data}
	expr, err := cuejson.Extract(file, data)
	if err != nil {
		return d, err
	}
	d.root = expr
	return d, nil
}

// errPos is the position of a parse error, else the file.
func (d jsonDoc) errPos(err error) string {
	if diags := diagnostics(err, nil); len(diags) > 0 && diags[0].Pos != "" {
		return diags[0].Pos
	}
	return d.file
}

// pos is the file:line:col of the value at path (object keys as strings,
// list indices as ints), or of the deepest part of it that exists.
func (d jsonDoc) pos(path ...any) string {
	best := d.file
	var n ast.Node = d.root
	if n == nil {
		return best
	}
	for _, p := range path {
		var next ast.Node
		switch x := n.(type) {
		case *ast.StructLit:
			key, ok := p.(string)
			if !ok {
				return best
			}
			for _, el := range x.Elts {
				f, ok := el.(*ast.Field)
				if !ok {
					continue
				}
				if name, _, err := ast.LabelName(f.Label); err == nil && name == key {
					if s := d.labelPos(f.Label); s != "" {
						best = s
					}
					next = f.Value
					break
				}
			}
		case *ast.ListLit:
			i, ok := p.(int)
			if !ok || i < 0 || i >= len(x.Elts) {
				return best
			}
			next = x.Elts[i]
			if s := next.Pos().String(); s != "" && s != "-" {
				best = s
			}
		}
		if next == nil {
			return best
		}
		n = next
	}
	return best
}

// dropWorkspaceClaudeUser removes hooks.claudeUserSettings from workspace
// layers: only the user decides that their own Claude Code hooks run.
func dropWorkspaceClaudeUser(layers []*layer) []schema.Problem {
	return dropWorkspaceField(layers, []string{"hooks", "claudeUserSettings"},
		"hooks.claudeUserSettings is ignored in a workspace profile: only you decide whether your ~/.claude/settings.json hooks run",
		"set it in your user profile ($OLLM_HOME/profile.cue)")
}

// labelPos is the position of an object key's opening quote (CUE places a
// quoted label one column in).
func (d jsonDoc) labelPos(l ast.Label) string {
	p := l.Pos().Position()
	if !p.IsValid() {
		return ""
	}
	if p.Offset > 0 && p.Offset <= len(d.data) && d.data[p.Offset-1] == '"' && p.Column > 1 {
		p.Column--
	}
	return p.String()
}
