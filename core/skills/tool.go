package skills

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ollm/ollm/core/tool"
)

// ToolName is the tool the model loads a skill with (Gemini CLI's name).
const ToolName = "activate_skill"

type activateParams struct {
	Name string `json:"name"`
	File string `json:"file"`
}

// Catalog lists the skills the model is offered (Agent Skills, SKILL.md):
// only their name and description are in the system prompt; the body is
// loaded with activate_skill when the model decides it applies.
func (r *Registry) Catalog() []Entry {
	var out []Entry
	for _, e := range r.List() {
		if e.Kind == KindInstructions && !e.UserOnly {
			out = append(out, e)
		}
	}
	return out
}

// NewTool returns activate_skill over r: the model passes a skill's name
// and gets its instructions and the files beside its SKILL.md, or passes
// file as well and gets that file (progressive disclosure).
func NewTool(r *Registry) tool.Tool {
	return &tool.Func[activateParams]{
		Spec: tool.Spec{ToolName: ToolName, ToolKind: tool.KindRead,
			Desc: "Load a skill listed under \"Skills\" in the system prompt: its full instructions and the files that come with it. " +
				"Call it with the skill's name when the task matches its description, before doing the task; " +
				"call it again with file set to read one of the skill's files.",
			Params: &tool.Schema{Type: "object", Required: []string{"name"}, Properties: map[string]*tool.Schema{
				"name": {Type: "string", Description: "the skill's name as listed"},
				"file": {Type: "string", Description: "a file of the skill, relative to its folder (optional)"},
			}}},
		New: func(p activateParams) (*tool.Call, error) {
			return &tool.Call{Desc: strings.TrimSpace("Load skill " + p.Name + " " + p.File),
				Run: func(ctx context.Context, _ func(tool.Chunk)) (tool.Result, error) {
					return r.activate(p), nil
				}}, nil
		},
	}
}

func (r *Registry) activate(p activateParams) tool.Result {
	s, err := r.Get(p.Name)
	if err == nil && (s.Kind != KindInstructions || s.UserOnly) {
		err = fmt.Errorf("%s is not a skill the model can load", p.Name)
	}
	if err != nil {
		names := []string{}
		for _, e := range r.Catalog() {
			names = append(names, e.Name)
		}
		return tool.Fail(tool.ErrNotFound, "%v; the skills are: %s", err, strings.Join(names, ", "))
	}
	dir := filepath.Dir(s.File)
	if p.File != "" {
		if s.File == "" {
			return tool.Fail(tool.ErrNotFound, "skill %s has no files", p.Name)
		}
		text, err := ReadInWorkspace(dir, p.File)
		if err != nil {
			return tool.Fail(tool.ErrNotFound, "skill %s: %v", p.Name, err)
		}
		return tool.Result{ForModel: text, Display: fmt.Sprintf("read %s of skill %s", p.File, p.Name)}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "<skill name=%q>\n%s\n", s.Name, s.Prompt)
	if files := skillFiles(dir, s.File); len(files) > 0 {
		fmt.Fprintf(&b, "\nFiles of this skill (read one with %s name=%q file=<path>):\n", ToolName, s.Name)
		for _, f := range files {
			fmt.Fprintf(&b, "- %s\n", f)
		}
	}
	b.WriteString("</skill>")
	return tool.Result{ForModel: b.String(), Display: "loaded skill " + s.Name,
		Data: Activation{Name: s.Name, AllowedTools: s.AllowedTools, skill: s}}
}

// Activation is what activate_skill's result carries: the skill loaded,
// whose allowed-tools then narrow the rest of the prompt (core/agent).
type Activation struct {
	Name         string   `json:"skill"`
	AllowedTools []string `json:"allowedTools,omitempty"`
	skill        Skill
}

// Skill is the skill activated.
func (a Activation) Skill() Skill { return a.skill }

// skillFiles lists the files beside a SKILL.md (at most 100), relative.
func skillFiles(dir, skillFile string) []string {
	if skillFile == "" || filepath.Base(skillFile) != FileName {
		return nil
	}
	var out []string
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || len(out) >= 100 {
			return filepath.SkipDir
		}
		if p != dir && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() && p != skillFile {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(out)
	return out
}
