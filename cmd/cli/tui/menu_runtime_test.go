package tui

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/ollm/ollm/core/hooks"
	"github.com/ollm/ollm/core/skills"
)

type extCmds []hooks.Command

func (e extCmds) Commands() []hooks.Command { return e }
func (e extCmds) InvokeCommand(context.Context, string, string) (hooks.CommandResponse, error) {
	return hooks.CommandResponse{}, nil
}

// The "/" menu lists what the session can run: a profile skill with its
// placeholder (Enter completes it), a Gemini CLI command read from a
// commands/*.toml, an MCP server's prompt, an extension's command; a skill
// and an extension command of the same name are listed once (the skill
// runs).
func TestAgentRuntimeCommands(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "review.toml"), []byte("description = \"Review the diff\"\nprompt = \"Review {{args}}\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmds, errs := skills.LoadCommands(dir, "")
	if len(errs) > 0 || len(cmds) != 1 {
		t.Fatal(cmds, errs)
	}
	reg := skills.New()
	for _, s := range append(cmds,
		skills.Skill{Name: "changelog", Description: "Write a changelog entry", Prompt: "Entry for {change}.", Source: skills.SourceProfile},
		skills.Skill{Name: "simple", Description: "A prompt", Prompt: "hi", Source: skills.SourceMCP, Extension: "everything"},
	) {
		if err := reg.Add(s); err != nil {
			t.Fatal(err)
		}
	}
	r := NewAgentRuntime(context.Background(), AgentOptions{Skills: reg, ExtCommands: extCmds{
		{Name: "hello", Description: "greet", Source: "greeter"},
		{Name: "changelog", Description: "shadowed", Source: "greeter"},
	}})
	defer r.Close()
	got := map[string]MenuItem{}
	for _, it := range r.Commands() {
		if _, dup := got[it.Name]; dup {
			t.Errorf("%s listed twice", it.Name)
		}
		got[it.Name] = it
	}
	want := map[string]MenuItem{
		"changelog": {Name: "changelog", Args: "<change>", Description: "Write a changelog entry", Source: "skill", NeedsArgs: true},
		"review":    {Name: "review", Args: "[args]", Description: "Review the diff", Source: "Gemini command"},
		"simple":    {Name: "simple", Description: "A prompt", Source: "MCP prompt (everything)"},
		"hello":     {Name: "hello", Args: "[args]", Description: "greet", Source: "extension greeter"},
	}
	if len(got) != len(want) {
		t.Errorf("got %d commands: %+v", len(got), got)
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s: got %+v, want %+v", name, got[name], w)
		}
	}
}
