package ext

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/ollm/ollm/core/mcp"
	"github.com/ollm/ollm/core/skills"
)

// everythingScript is server-everything under OLLM_NPM_DIR, else where
// `make deps` put it.
func everythingScript(t *testing.T) string {
	t.Helper()
	if d := os.Getenv("OLLM_NPM_DIR"); d != "" {
		p := filepath.Join(d, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("OLLM_NPM_DIR=%s holds no server-everything (%v); run make deps", d, err)
		}
		return p
	}
	return everything(t)
}

func skillByQualified(r *skills.Registry, q string) (skills.Entry, bool) {
	for _, e := range r.List() {
		if e.Qualified() == q {
			return e, true
		}
	}
	return skills.Entry{}, false
}

// Issue 5: the prompts of an extension's own MCP servers become skills
// of the extension (alpha:prompt) when its servers start, and go when they
// stop; the extension's own skills stay.
func TestExtensionServerPromptsAreSkills(t *testing.T) {
	reg := skills.New()
	if err := reg.Add(skills.Skill{Name: "own", Prompt: "mine", Source: skills.SourceExtension, Extension: "alpha"}); err != nil {
		t.Fatal(err)
	}
	s := &MCPServers{Options: mcp.Options{LogDir: t.TempDir(), Restart: mcp.Backoff{Max: -1}}, Skills: reg}
	t.Cleanup(func() { s.Stop("alpha") })
	spec := mcp.Spec{Name: "alpha:every", Extension: "alpha", Config: mcp.Config{Command: "node", Args: []string{everythingScript(t), "stdio"}, Enabled: true}}
	if _, err := s.Start(context.Background(), "alpha", []mcp.Spec{spec}, nil); err != nil {
		t.Fatal(err)
	}
	e, ok := skillByQualified(reg, "alpha:args-prompt")
	if !ok || e.Source != skills.SourceMCP || e.Extension != "alpha" {
		t.Fatalf("args-prompt is not an MCP skill of alpha: %+v in %+v", e, reg.List())
	}
	got, err := reg.Render("alpha:args-prompt", map[string]string{"city": "Lyon", "state": "Rhone"})
	if err != nil || got != "What's weather in Lyon, Rhone?" {
		t.Fatalf("render = %q, %v", got, err)
	}
	if _, ok := skillByQualified(reg, "alpha:simple-prompt"); !ok {
		t.Fatalf("simple-prompt missing: %+v", reg.List())
	}

	if err := s.Stop("alpha"); err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, e := range reg.List() {
		left = append(left, e.Qualified()+"/"+e.Source)
	}
	if len(left) != 1 || left[0] != "alpha:own/extension" {
		t.Fatalf("skills after Stop = %v, want only alpha:own/extension", left)
	}
}
