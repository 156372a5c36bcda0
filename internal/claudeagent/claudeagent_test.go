package claudeagent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name, file      string
		agent, tools    string
		model, warnings string
		err             string
	}{
		{name: "claude plugin agent", file: "---\nname: code-reviewer\ndescription: Use this agent when: the user asks for a review. Examples: <example>review it</example>\ntools: Read, Grep, Glob, NotebookEdit, mcp__github__get_pr\nmodel: sonnet\ncolor: red\n---\n\nYou are a reviewer.\n",
			agent: "code-reviewer", tools: "read_file read_many_files grep glob github:get_pr", model: "sonnet",
			warnings: "a.md: tools: NotebookEdit is not a tool ollm has; left out|a.md: color: ollm shows no agent colours; ignored"},
		{name: "yaml list, block description, inherit", file: "---\nname: x\ndescription: |\n  Line one.\n  Line two.\ntools:\n  - Bash\n  - Write\nmodel: inherit\n---\nPrompt\n",
			agent: "x", tools: "shell shell_output shell_kill write_file"},
		{name: "no tools field: all tools", file: "---\ndescription: \"quoted: yes\"\n---\nP", agent: "a"},
		{name: "only unknown tools: none", file: "---\nname: y\ndescription: d\ntools: Frobnicate\n---\nP", agent: "y", tools: "-",
			warnings: "a.md: tools: Frobnicate is not a tool ollm has; left out"},
		{name: "disallowed narrows the built-ins", file: "---\nname: z\ndescription: d\ndisallowedTools: Bash, Write, Edit, WebFetch, WebSearch, Task\n---\nP", agent: "z",
			tools:    "read_file read_many_files grep glob ls memory write_todos activate_skill",
			warnings: "a.md: disallowedTools: the agent gets ollm's built-in tools less these; MCP tools only when its tools field names them"},
		{name: "no description", file: "---\nname: z\n---\nP", err: "no description"},
		{name: "no body", file: "---\nname: z\ndescription: d\n---\n", err: "no system prompt"},
		{name: "no front matter", file: "just text", err: "no front matter"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, warns, err := Parse("a.md", []byte(tc.file))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var ws []string
			for _, w := range warns {
				ws = append(ws, w.String())
			}
			if a.Name != tc.agent || strings.Join(a.Tools, " ") != tc.tools || a.Model != tc.model || strings.Join(ws, "|") != tc.warnings {
				t.Errorf("got name %q tools %q model %q warnings %q", a.Name, strings.Join(a.Tools, " "), a.Model, strings.Join(ws, "|"))
			}
			if a.Prompt == "" || a.Description == "" {
				t.Errorf("prompt %q description %q", a.Prompt, a.Description)
			}
		})
	}
}

// A project's agent file that links out of the project is not read: its
// text would reach the model as a prompt. One inside loads.
func TestReadDirRefusesLinksOut(t *testing.T) {
	root, out := t.TempDir(), t.TempDir()
	secret := filepath.Join(out, "secret.md")
	if err := os.WriteFile(secret, []byte("---\nname: leak\ndescription: d\n---\nTOP-SECRET\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, ".claude", "agents")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(dir, "leak.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "ok.md"), []byte("---\ndescription: fine\n---\nPrompt\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	list, warns := ReadDir(dir, root)
	if len(list) != 1 || list[0].Name != "ok" {
		t.Errorf("loaded: %+v", list)
	}
	if len(warns) != 1 || !strings.Contains(warns[0].String(), "leak.md: skipped: it links out of "+root) {
		t.Errorf("warnings: %v", warns)
	}
	// The user's own folder is not confined.
	if list, _ := ReadDir(dir, ""); len(list) != 2 {
		t.Errorf("unconfined: %+v", list)
	}
}
