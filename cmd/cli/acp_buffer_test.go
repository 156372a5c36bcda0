package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/ollm/ollm/core/llm/llmtest"
)

// edit_file through an editor that can read: an edit of text only the
// unsaved buffer has is planned against the buffer and written into it
// (the disk is not touched); an edit of text in neither fails with the
// built-in tool's reason, and a path out of the workspace stays refused.
func TestACPEditAgainstTheBuffer(t *testing.T) {
	e := newSessionEnv(t)
	path := filepath.Join(e.ws, "notes.txt")
	e.write(path, "one\ntwo\n")
	c := newACPClient()
	c.buffers[path] = "one\ntwo\nthree (unsaved)\n"
	conn := startACP(t, e, c, true, "--approval-mode", "auto_edit")
	ctx := context.Background()
	ns, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: e.ws, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	edit := func(id, p, old string) {
		e.srv.Reply(llmtest.ToolCallWithID(id, "edit_file", map[string]any{"path": p, "edits": []map[string]any{{"oldText": old, "newText": "THREE"}}}))
	}
	edit("e-1", "notes.txt", "three (unsaved)")
	edit("e-2", "notes.txt", "four")
	edit("e-3", "../notes.txt", "three (unsaved)")
	e.srv.Reply(llmtest.Text("Edited."))
	if _, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: ns.SessionId, Prompt: text("shout three")}); err != nil {
		t.Fatal(err)
	}
	if len(c.writes) != 1 || c.writes[0].Path != path || c.writes[0].Content != "one\ntwo\nTHREE\n" {
		t.Fatalf("writes through the editor: %+v", c.writes)
	}
	if b, _ := os.ReadFile(path); string(b) != "one\ntwo\n" {
		t.Fatalf("the file on disk changed: %q", b)
	}
	var results []string
	for _, m := range e.srv.LastRequest().Messages {
		if m.Role == "tool" {
			results = append(results, m.Content)
		}
	}
	if len(results) != 3 || !strings.Contains(results[0], "Applied 1 edits to notes.txt in the editor") ||
		!strings.Contains(results[1], "oldText was not found") || !strings.Contains(results[2], "climbs out of the workspace") {
		t.Fatalf("results: %q", results)
	}
	if st := lastStatus(c.take(), "e-1"); st != sdk.ToolCallStatusCompleted {
		t.Fatalf("edit status %s", st)
	}
}
