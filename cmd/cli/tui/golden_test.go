package tui

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/ollm/ollm/core/llm"
	"github.com/ollm/ollm/core/policy"
)

var update = flag.Bool("update", false, "rewrite the golden views and docs/tui-tour.md")

// A scene is a screen a user meets, as a sequence of messages.
type scene struct {
	name, caption string
	play          func(m *Model)
}

var sceneList = []scene{
	{"first-screen", "Starting `ollm` in a project: where you are, what runs, what is held back, and what is wrong, before the first prompt.", func(m *Model) {
		send(m, Banner{Workspace: "/home/you/src/shop", Model: "qwen3:8b", Provider: "ollama", Endpoint: "http://127.0.0.1:11434",
			Generation: 4, Trust: "not approved", Held: []string{"MCP servers github", "hooks.allowEnv"},
			Extensions: 2, Servers: 3, Hooks: 1, Skills: 4,
			Problems: []string{"MCP server github: needs approval (workspace not approved): run `ollm trust`"}})
	}},
	{"tool-cards", "A turn: the model reads a file, runs the tests, and answers. Each call is one readable line; long output is folded.", func(m *Model) {
		send(m, Banner{Workspace: "/home/you/src/shop", Model: "qwen3:8b", Provider: "ollama", Generation: 4, Trust: "approved"})
		m.entries = append(m.entries, &entry{kind: "user", text: "why does the cart test fail?"})
		var out strings.Builder
		for i := range 30 {
			fmt.Fprintf(&out, "=== RUN   TestCart/case_%02d\n", i)
		}
		out.WriteString("--- FAIL: TestCart/case_29 (0.00s)\n    cart_test.go:41: total = 99, want 100\nFAIL\n")
		send(m,
			ToolStarted{ID: "c1", Name: "read_file", Args: raw(`{"path":"cart/cart.go"}`)},
			ToolFinished{ID: "c1", Status: ToolOK, Display: "Read cart/cart.go (212 lines)."},
			ToolStarted{ID: "c2", Name: "shell", Args: raw(`{"command":"go test ./cart/..."}`)},
			ToolFinished{ID: "c2", Status: ToolError, Display: out.String(), Error: "exit status 1", Sandbox: "workspace-write, no network"},
			ContentDelta{Text: "The discount is applied after rounding: `Total` rounds each line, then subtracts the coupon.\n\nRound once, at the end."},
			AssistantDone{}, TurnDone{})
	}},
	{"approval-dialog", "A write the policy asks about: the diff scrolls, every line can be read before answering.", func(m *Model) {
		var b strings.Builder
		b.WriteString("--- a/cart/cart.go\n+++ b/cart/cart.go\n@@ -10,6 +10,9 @@\n")
		for i := range 40 {
			fmt.Fprintf(&b, "+\tline %02d\n", i)
		}
		c := ConfirmRequested{ID: "r1", CallID: "c1", Details: policy.Details{Tool: "edit_file", Description: "Edit cart/cart.go",
			Kind: "edit", Risk: "medium", Diff: b.String(), Reason: "approval mode default asks before edits", Locations: []string{"cart/cart.go"}}}
		send(m, ToolStarted{ID: "c1", Name: "edit_file", Args: raw(`{"path":"cart/cart.go","edits":[{}]}`)}, c)
	}},
	{"slash-menu", "Typing `/` opens every command with what it does; typing more narrows it, Tab completes.", func(m *Model) {
		send(m, Banner{Workspace: "/home/you/src/shop", Model: "qwen3:8b", Provider: "ollama", Generation: 4, Trust: "approved"})
		typeText(m, "/")
	}},
	{"model-picker", "`/model` lists the installed models to pick from; one that is not installed is pulled with a progress bar.", func(m *Model) {
		m.opt.Models = &fakeModels{list: []llm.InstalledModel{
			{Name: "llama3.2:3b", Size: 2019393189, ParameterSize: "3.2B", Quantization: "Q4_K_M"},
			{Name: "qwen3:8b", Size: 5225373568, ParameterSize: "8.2B", Quantization: "Q4_K_M"},
			{Name: "test-model:latest", Size: 4920753328, ParameterSize: "8.0B", Quantization: "Q4_K_M"}}}
		typeText(m, "/model")
		pressed(m, key(tea.KeyEnter))
	}},
}

var sizes = []struct{ w, h int }{{80, 24}, {120, 40}}

var trailing = regexp.MustCompile(`[ \t]+\n`)

// golden is the view as plain text, trailing blanks cut.
func golden(m *Model) string {
	return strings.TrimRight(trailing.ReplaceAllString(plain(m)+"\n", "\n"), "\n") + "\n"
}

// Each scene's view at each size is what testdata/golden holds: a change
// to what the user sees shows up here, and `go test ./cmd/cli/tui -run
// TestGoldenViews -update` records it (then review the diff).
func TestGoldenViews(t *testing.T) {
	atClock(t)
	for _, sc := range sceneList {
		for _, sz := range sizes {
			name := fmt.Sprintf("%s-%dx%d", sc.name, sz.w, sz.h)
			t.Run(name, func(t *testing.T) {
				m, _ := newModel(t)
				send(m, tea.WindowSizeMsg{Width: sz.w, Height: sz.h})
				sc.play(m)
				got := golden(m)
				path := filepath.Join("testdata", "golden", name+".txt")
				if *update {
					if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
						t.Fatal(err)
					}
					return
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%v (record it: go test ./cmd/cli/tui -run TestGoldenViews -update)", err)
				}
				if got != string(want) {
					t.Errorf("the %s view changed; review it and record it with -update:\n--- want\n%s\n--- got\n%s", name, want, got)
				}
			})
		}
	}
}

// docs/tui-tour.md shows each scene at 120x40 from the golden files:
// the tour is what the tests check, never a stale capture.
func TestScreenTour(t *testing.T) {
	var b strings.Builder
	b.WriteString("# A tour of the TUI\n\n<!-- Generated by TestScreenTour (cmd/cli/tui/golden_test.go) from the golden views; do not edit by hand: `go test ./cmd/cli/tui -run 'TestGoldenViews|TestScreenTour' -update`. -->\n\n")
	b.WriteString("Text captures of `ollm` at 120x40 columns, colours left out. [tui.md](tui.md) has the keys.\n")
	for _, sc := range sceneList {
		data, err := os.ReadFile(filepath.Join("testdata", "golden", sc.name+"-120x40.txt"))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "\n## %s\n\n%s\n\n```text\n%s```\n", strings.ReplaceAll(sc.name, "-", " "), sc.caption, data)
	}
	path := filepath.Join("..", "..", "..", "docs", "tui-tour.md")
	if *update {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	have, err := os.ReadFile(path)
	if err != nil || string(have) != b.String() {
		t.Fatalf("docs/tui-tour.md is not the golden views (%v); run: go test ./cmd/cli/tui -run 'TestGoldenViews|TestScreenTour' -update", err)
	}
}
