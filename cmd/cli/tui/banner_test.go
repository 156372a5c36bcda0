package tui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// The first screen names the workspace, the model, the generation, the
// trust state with what it holds back and how to approve it, the counts,
// and every problem found at the start: a profile that does not apply is
// named with its reason and the generation that runs instead.
func TestBannerFirstScreen(t *testing.T) {
	m, _ := newModel(t)
	send(m, Banner{Workspace: "/work/proj", Model: "qwen3:8b", Provider: "ollama", Endpoint: "http://127.0.0.1:11434",
		Generation: 4, Trust: "not approved", Held: []string{"MCP servers fs", "policy.rules[0]"},
		Extensions: 2, Servers: 1, Hooks: 1, Skills: 3,
		Problems: []string{"$OLLM_HOME/profile.cue changed since generation 4 but does not apply (invalid profile: ollm.cue:1:14: model.name: conflicting values \"a\" and \"b\"); fix it and run `ollm profile apply`; running generation 4"}})
	v := plain(m)
	mustContain(t, v, "workspace /work/proj", "model     qwen3:8b via ollama at http://127.0.0.1:11434", "profile   generation 4",
		"holds back MCP servers fs, policy.rules[0]", "`ollm trust` (or /trust)", "2 extensions, 1 MCP server, 1 hook, 3 skills",
		"✗ $OLLM_HOME/profile.cue changed since generation 4 but does not apply", `conflicting values "a" and "b"`, "running generation 4")
	// The banner stays first when events came before it.
	m2, _ := newModel(t)
	send(m2, Notice{Text: "early notice"}, Banner{Workspace: "/w", Model: "x"})
	v = plain(m2)
	if strings.Index(v, "workspace /w") > strings.Index(v, "early notice") {
		t.Fatalf("the banner is not first:\n%s", v)
	}
}

// A model check that finds the model missing adds the problem with the
// pull command, marks the model in the status line and asks whether to
// pull it; an unreachable server is named.
func TestBannerModelCheck(t *testing.T) {
	m, _ := newModel(t)
	m.opt.Models = &fakeModels{}
	send(m, Banner{Workspace: "/w", Model: "test-model"}, ModelChecked{Model: "test-model", CanPull: true})
	v := plain(m)
	mustContain(t, v, "✗ model test-model is not installed: `/model test-model` pulls it (or `ollm model pull",
		"Model test-model is not installed", "Pull it into Ollama at http://fake now?", "[y] pull and switch")
	send(m, runeKey('n'))
	mustContain(t, plain(m), "not pulling test-model", "model test-model ✗ │")

	m2, _ := newModel(t)
	send(m2, Banner{Model: "test-model"}, ModelChecked{Model: "test-model", Err: "Ollama is not running at http://127.0.0.1:9: start it with `ollama serve`"})
	v = plain(m2)
	mustContain(t, v, "✗ Ollama is not running at http://127.0.0.1:9", "model test-model ✗")
	mustNotContain(t, v, "Pull it")
}

// The status line has the model, the generation, the approval mode, the
// sandbox, the MCP states and the context use.
func TestStatusLineFields(t *testing.T) {
	m, f := newModel(t)
	f.status = Status{Model: "gpt-x", Provider: "openai", Generation: 2, Mode: "auto_edit", Sandbox: "workspace-write, no network",
		MCP: []MCPServer{{Name: "fs", State: "ready"}}, Context: ContextUse{Used: 100, Window: 1000}}
	m.status = f.Status()
	send(m, tea.WindowSizeMsg{Width: 160, Height: 30})
	mustContain(t, plain(m), "model gpt-x (openai) │ profile gen 2 │ mode auto_edit │ sandbox workspace-write, no network │ mcp fs:ready │ ctx 100/1000 (10%)")
}
