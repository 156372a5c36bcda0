package runtime

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ollm/ollm/core/skills"
)

// Claude Code's output styles: the style that `outputStyle` in
// .claude/settings.local.json, .claude/settings.json or the user's
// ~/.claude/settings.json (the first that sets it) selects is added at
// the end of the system prompt. Like Claude Code, every style drops the
// base prompt's instruction to keep answers short, and a style without
// keep-coding-instructions: true drops its coding instructions too. A
// project's styles and its settings' selection change the prompt, so
// they wait for `ollm trust`.

// styleBaseCoding is basePrompt without its instruction on answer length.
const styleBaseCoding = `You are ollm, a coding agent in a terminal, working in the project at %s.
Use the tools to look before you act: read files and search before you edit,
and check the result of a change (build, tests) when you can. Paths are
relative to the project root. Show code changes through the edit tools, not
in prose. When a tool call is refused, say so and suggest what the user can
do instead of retrying the same call.`

// styleBase is what is left of basePrompt without coding instructions.
const styleBase = `You are ollm, an agent in a terminal, working in the project at %s.
When a tool call is refused, say so and suggest what the user can do instead
of retrying the same call.`

// claudeBuiltinStyles are Claude Code's own styles, which ollm does not
// have ("default" is ollm's own prompt).
var claudeBuiltinStyles = []string{"explanatory", "learning", "proactive", "concise"}

// basePromptFor is the base instructions for the style (nil: none).
func basePromptFor(root string, st *skills.OutputStyle) string {
	switch {
	case st == nil:
		return fmt.Sprintf(basePrompt, root)
	case st.KeepCoding:
		return fmt.Sprintf(styleBaseCoding, root)
	default:
		return fmt.Sprintf(styleBase, root)
	}
}

// writeOutputStyle adds the style's instructions, last in the prompt.
func writeOutputStyle(b *strings.Builder, st *skills.OutputStyle) {
	if st != nil {
		fmt.Fprintf(b, "\n\n## Output style: %s\n\n%s", st.Name, st.Body)
	}
}

// outputStyle is the selected style (nil: none) and the notices about
// it: held back, not found, a built-in ollm lacks.
func (rt *Runtime) outputStyle(home string) (*skills.OutputStyle, []string) {
	trusted := rt.wsTrusted.Load()
	claudeDir := skills.ClaudeDir(rt.opts.Getenv, home)
	name, from, notes := selectedStyle(claudeDir, rt.Workspace.Root, trusted)
	if name == "" || strings.EqualFold(name, "default") {
		return nil, notes
	}
	plugins := map[string]string{}
	for _, x := range rt.Ext.List() {
		if x.Active && x.Dir != "" {
			plugins[x.Name] = x.Dir
		}
	}
	list, warnings := skills.ClaudeOutputStyles(claudeDir, rt.Workspace.Root, plugins, trusted)
	notes = append(notes, warnings...)
	if st := skills.FindOutputStyle(list, name); st != nil {
		return st, notes
	}
	for _, b := range claudeBuiltinStyles {
		if strings.EqualFold(b, name) {
			return nil, append(notes, fmt.Sprintf("%s: outputStyle %q is one of Claude Code's built-in styles, which ollm does not have; the default prompt is used (define it in .claude/output-styles/%s.md to use it here)", from, name, b))
		}
	}
	return nil, append(notes, fmt.Sprintf("%s: outputStyle %q: no such output style in %s, .claude/%s or a plugin; the default prompt is used", from, name,
		filepath.Join(claudeDir, skills.OutputStylesDir), skills.OutputStylesDir))
}

// selectedStyle is the outputStyle the settings name and the file that
// names it: the project's settings.local.json, then settings.json (only
// when trusted), then the user's settings.
func selectedStyle(claudeDir, root string, trusted bool) (name, from string, notes []string) {
	var files []string
	if root != "" {
		files = append(files, filepath.Join(root, ".claude", "settings.local.json"), filepath.Join(root, ".claude", "settings.json"))
	}
	if claudeDir != "" {
		files = append(files, filepath.Join(claudeDir, "settings.json"))
	}
	for i, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		var s struct {
			OutputStyle string `json:"outputStyle"`
		}
		if json.Unmarshal(data, &s) != nil || s.OutputStyle == "" {
			continue
		}
		if root != "" && i < 2 && !trusted {
			notes = append(notes, fmt.Sprintf("%s: workspace not approved: outputStyle %q held back (it changes the system prompt); run `ollm trust` to review and approve the workspace", f, s.OutputStyle))
			continue
		}
		return s.OutputStyle, f, notes
	}
	return "", "", notes
}
