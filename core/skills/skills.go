package skills

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/ollm/ollm/internal/lazyre"
	"github.com/ollm/ollm/schema"
)

// Sources of skills.
const (
	SourceProfile   = "profile"
	SourceExtension = "extension"
	SourceFolder    = "folder"
	SourceMCP       = "mcp"
)

// Kinds of skill: how the prompt is turned into what the model reads.
const (
	// KindTemplate: a prompt template with {placeholder}s (profile and
	// manifest skills, MCP prompts). The zero value.
	KindTemplate = ""
	// KindInstructions: an Agent Skills SKILL.md. The body is
	// instructions, not a template: only the placeholders its front matter
	// declares (arguments) are filled; the model is offered it by name and
	// description and loads the body on demand (activate_skill).
	KindInstructions = "instructions"
	// KindCommand: a Gemini CLI custom command (commands/*.toml): {{args}},
	// !{shell} and @{file} are expanded when it runs (command.go).
	KindCommand = "command"
	// KindClaudeCommand: a Claude Code command (commands/*.md): $ARGUMENTS,
	// $1..., @file, !`shell` and ```! blocks are expanded when it runs
	// (claude_commands.go).
	KindClaudeCommand = "claude-command"
)

// Skill is one registered skill.
type Skill struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Prompt      string `json:"prompt"`
	Source      string `json:"source"`              // profile | extension | folder | mcp
	Extension   string `json:"extension,omitempty"` // the extension (or MCP server) that provides it
	File        string `json:"file,omitempty"`      // SKILL.md it was read from
	Kind        string `json:"kind,omitempty"`      // KindTemplate (""), KindInstructions, KindCommand
	// Title is the name the skill gave itself when that is not a valid
	// command name ("Writing Hookify Rules" is /writing-hookify-rules).
	Title string `json:"title,omitempty"`
	// Arguments are the {placeholder}s an instructions skill declares in
	// its front matter; no other braces in its body are placeholders.
	Arguments []string `json:"arguments,omitempty"`
	// Claude Code front matter (commands and SKILL.md): allowed-tools
	// restricts the tools of the turn the user runs it in, model switches
	// that turn's model, argument-hint is shown after its name, and
	// disable-model-invocation keeps it out of the model's catalog.
	AllowedTools []string `json:"allowedTools,omitempty"`
	Model        string   `json:"model,omitempty"`
	ArgumentHint string   `json:"argumentHint,omitempty"`
	UserOnly     bool     `json:"userOnly,omitempty"`
}

// Qualified is "extension:name" for skills an extension or MCP server
// provides, else the bare name.
func (s Skill) Qualified() string {
	if s.Extension == "" {
		return s.Name
	}
	return s.Extension + ":" + s.Name
}

// Placeholders lists the distinct {placeholder} names of the prompt in
// order of first appearance: for an instructions skill only those it
// declares, for a command none ({{args}} takes the free text).
func (s Skill) Placeholders() []string {
	switch s.Kind {
	case KindInstructions:
		return s.Arguments
	case KindCommand, KindClaudeCommand:
		return nil
	}
	return Placeholders(s.Prompt)
}

// Entry is a skill as listed: the name to invoke it by and the skill.
type Entry struct {
	Name string `json:"name"` // bare when unique, else extension:name
	Skill
	Placeholders []string `json:"placeholders,omitempty"`
}

// Registry holds skills. It is safe for concurrent use.
type Registry struct {
	mu     sync.RWMutex
	skills []Skill
}

// New returns an empty registry.
func New() *Registry { return &Registry{} }

// Add registers s. A skill with the same name from the same owner (the
// same extension, or both from no extension) is replaced: later sources
// win, so a workspace folder skill replaces a user one of the same name.
func (r *Registry) Add(s Skill) error {
	if s.Name == "" {
		return errors.New("skill without a name; give it a name")
	}
	if strings.Contains(s.Name, ":") {
		return fmt.Errorf("skill %q: a name may not contain ':' (it separates extension and skill)", s.Name)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, o := range r.skills {
		if o.Name == s.Name && o.Extension == s.Extension {
			r.skills[i] = s
			return nil
		}
	}
	r.skills = append(r.skills, s)
	return nil
}

// AddProfile registers the profile's skills.
func (r *Registry) AddProfile(list []schema.Skill) []error {
	var errs []error
	for _, s := range list {
		if err := r.Add(Skill{Name: s.Name, Description: s.Description, Prompt: s.Prompt, Source: SourceProfile}); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

// AddExtension registers an extension's manifest skills.
func (r *Registry) AddExtension(ext string, list []schema.Skill) []error {
	var errs []error
	for _, s := range list {
		if err := r.Add(Skill{Name: s.Name, Description: s.Description, Prompt: s.Prompt, Source: SourceExtension, Extension: ext}); err != nil {
			errs = append(errs, fmt.Errorf("extension %s: %w", ext, err))
		}
	}
	return errs
}

// RemoveExtension removes every skill owner (an extension or MCP server)
// provides and reports how many.
func (r *Registry) RemoveExtension(owner string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	kept := r.skills[:0:0]
	for _, s := range r.skills {
		if s.Extension != owner {
			kept = append(kept, s)
		}
	}
	n := len(r.skills) - len(kept)
	r.skills = kept
	return n
}

// List returns every skill under the name that invokes it, sorted by it.
func (r *Registry) List() []Entry {
	r.mu.RLock()
	defer r.mu.RUnlock()
	count := map[string]int{}
	for _, s := range r.skills {
		count[s.Name]++
	}
	out := make([]Entry, 0, len(r.skills))
	for _, s := range r.skills {
		name := s.Name
		if count[s.Name] > 1 {
			name = s.Qualified()
		}
		out = append(out, Entry{Name: name, Skill: s, Placeholders: s.Placeholders()})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// NotFoundError is returned for an unknown or ambiguous skill name.
type NotFoundError struct {
	Name       string
	Candidates []string // set when the bare name is ambiguous
}

func (e *NotFoundError) Error() string {
	if len(e.Candidates) > 0 {
		return fmt.Sprintf("skill %q is ambiguous: use one of %s", e.Name, strings.Join(e.Candidates, ", "))
	}
	return fmt.Sprintf("no skill %q; run `ollm skills list` to see the skills", e.Name)
}

// Get finds a skill by its bare or qualified ("extension:skill") name. A
// bare name shared by several skills resolves to the only one that no
// extension provides, and is ambiguous otherwise.
func (r *Registry) Get(name string) (Skill, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if owner, n, ok := strings.Cut(name, ":"); ok {
		for _, s := range r.skills {
			if s.Extension == owner && s.Name == n {
				return s, nil
			}
		}
		// Gemini CLI's namespaced commands (/git:commit) are registered
		// under a name without the colon (git-commit).
		name = CommandName(name)
	}
	var hits []Skill
	for _, s := range r.skills {
		if s.Name == name {
			hits = append(hits, s)
		}
	}
	if len(hits) == 1 {
		return hits[0], nil
	}
	var own []Skill
	var cands []string
	for _, s := range hits {
		if s.Extension == "" {
			own = append(own, s)
		}
		cands = append(cands, s.Qualified())
	}
	if len(own) == 1 {
		return own[0], nil
	}
	sort.Strings(cands)
	return Skill{}, &NotFoundError{Name: name, Candidates: cands}
}

// Render returns the skill's prompt with its placeholders filled. The
// free text typed after /name is values["args"]. A command whose prompt
// runs shell commands or reads files needs a session: use Expand.
func (r *Registry) Render(name string, values map[string]string) (string, error) {
	return r.Expand(nil, name, values, nil)
}

// Arguments is the key of the free text given after a skill's name.
const Arguments = "args"

// renderSkill fills s's prompt by its kind.
func renderSkill(s Skill, values map[string]string) (string, error) {
	switch s.Kind {
	case KindInstructions:
		return renderInstructions(s, values)
	}
	return Render(s.Prompt, values)
}

// renderInstructions fills the declared arguments of a SKILL.md body and
// passes the free text as Claude Code does: in place of $ARGUMENTS, or
// after the body as "ARGUMENTS: ...". Other braces are prose.
func renderInstructions(s Skill, values map[string]string) (string, error) {
	body := s.Prompt
	if len(s.Arguments) > 0 {
		declared := map[string]bool{}
		for _, a := range s.Arguments {
			declared[a] = true
		}
		var missing []string
		body = placeholder.Re().ReplaceAllStringFunc(body, func(m string) string {
			if m == "{{" || m == "}}" {
				return m
			}
			name := m[1 : len(m)-1]
			if !declared[name] {
				return m
			}
			v, ok := values[name]
			if !ok {
				if !slices.Contains(missing, name) {
					missing = append(missing, name)
				}
				return m
			}
			return v
		})
		if len(missing) > 0 {
			return "", &MissingError{Names: missing}
		}
	}
	args := strings.TrimSpace(values[Arguments])
	if strings.Contains(body, "$ARGUMENTS") {
		return strings.ReplaceAll(body, "$ARGUMENTS", args), nil
	}
	if args != "" && !argsUsed(s, values) {
		body += "\n\nARGUMENTS: " + args
	}
	return body, nil
}

// argsUsed reports whether the free text was taken apart into the
// declared arguments (key=value words), so it need not be repeated.
func argsUsed(s Skill, values map[string]string) bool {
	for _, a := range s.Arguments {
		if _, ok := values[a]; ok {
			return true
		}
	}
	return false
}

// Slug turns a skill's name into a command name: lower case, every run of
// characters other than letters, digits, '_' and '.' one '-'
// ("Writing Hookify Rules" is writing-hookify-rules, git:commit is
// git-commit), as Agent Skills names are written.
func Slug(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(strings.TrimSpace(name)) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '_', r == '.':
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
		default:
			dash = true
		}
	}
	return b.String()
}

var placeholder = lazyre.New(`\{\{|\}\}|\{([A-Za-z_][A-Za-z0-9_.-]*)\}`)

// Placeholders lists the distinct {name}s of a template, in order.
func Placeholders(tmpl string) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range placeholder.FindAllStringSubmatch(tmpl, -1) {
		if m[1] != "" && !seen[m[1]] {
			seen[m[1]] = true
			out = append(out, m[1])
		}
	}
	return out
}

// MissingError names the placeholders that had no value.
type MissingError struct{ Names []string }

func (e *MissingError) Error() string {
	args := make([]string, len(e.Names))
	for i, n := range e.Names {
		args[i] = n + "=..."
	}
	return fmt.Sprintf("missing value for %s; pass %s", plural("placeholder", e.Names), strings.Join(args, " "))
}

func plural(word string, names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "{" + n + "}"
	}
	if len(names) == 1 {
		return word + " " + q[0]
	}
	return word + "s " + strings.Join(q, ", ")
}

// Render substitutes each {name} of tmpl with values[name]. "{{" and "}}"
// stand for literal braces. Text in braces that is not a name (JSON, code)
// is left alone. Every placeholder without a value is reported at once.
func Render(tmpl string, values map[string]string) (string, error) {
	var missing []string
	seen := map[string]bool{}
	out := placeholder.Re().ReplaceAllStringFunc(tmpl, func(m string) string {
		switch m {
		case "{{":
			return "{"
		case "}}":
			return "}"
		}
		name := m[1 : len(m)-1]
		v, ok := values[name]
		if !ok {
			if !seen[name] {
				seen[name] = true
				missing = append(missing, name)
			}
			return m
		}
		return v
	})
	if len(missing) > 0 {
		return "", &MissingError{Names: missing}
	}
	return out, nil
}

// CommandName makes name usable as /name keeping its case: every run of
// characters other than letters, digits, '_', '.' and '-' becomes one '-'
// (an MCP prompt "git:commit" is /git-commit; /git:commit finds it too).
func CommandName(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.TrimSpace(name) {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '.', r == '-':
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
		default:
			dash = true
		}
	}
	return b.String()
}
