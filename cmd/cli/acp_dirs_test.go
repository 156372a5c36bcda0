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

// The editor's additionalDirectories: a directory named through a symlink
// is granted as its real path and the editor is told so; the file tools
// read and write it, the sandboxed shell writes it but not its .git/hooks,
// and what lies outside stays refused. As an attacker: a relative path, a
// symlink to /, a file, a missing path, ~/.ssh, the home that holds it and
// $OLLM_HOME are refused with the reason, and no session starts.
func TestACPAdditionalDirectories(t *testing.T) {
	e, b := boxSession(t, nil)
	other := filepath.Join(b.Root, "other")
	e.write(filepath.Join(other, "notes.txt"), "other notes\n")
	if err := os.MkdirAll(filepath.Join(other, ".git", "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(b.Root, "link-to-other")
	rootLink := filepath.Join(b.Root, "link-to-root")
	for l, target := range map[string]string{link: other, rootLink: "/"} {
		if err := os.Symlink(target, l); err != nil {
			t.Fatal(err)
		}
	}
	file := filepath.Join(b.Root, "file.txt")
	e.write(file, "x\n")

	ctx := context.Background()
	c := newACPClient()
	conn := connectACP(t, e.f, c, false, "--approval-mode", "yolo")
	if conn.init.AgentCapabilities.SessionCapabilities.AdditionalDirectories == nil {
		t.Errorf("additionalDirectories not advertised: %+v", conn.init.AgentCapabilities.SessionCapabilities)
	}
	for dir, want := range map[string]string{
		"other":                          "additionalDirectories: other is not an absolute path",
		rootLink:                         "additional directory / holds or lies in",
		file:                             file + " is not a directory",
		filepath.Join(b.Root, "missing"): "no such file or directory",
		filepath.Join(b.Home, ".ssh"):    "is, holds or lies in a secret path",
		b.Home:                           "is, holds or lies in a secret path",
		b.OllmHome:                       "holds or lies in ollm's home",
	} {
		_, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: b.WS, McpServers: []sdk.McpServer{}, AdditionalDirectories: []string{dir}})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("additional directory %s: %v, want %q", dir, err, want)
		}
	}

	ns, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: b.WS, McpServers: []sdk.McpServer{}, AdditionalDirectories: []string{link}})
	if err != nil {
		t.Fatal(err)
	}
	c.waitFor(func(ups []sdk.SessionNotification, _ []sdk.RequestPermissionRequest) bool {
		return strings.Contains(thoughtText(ups), "additional directories for this session")
	})
	if th := thoughtText(c.take()); !strings.Contains(th, "may read and write them, their .git/hooks and ollm files excepted): "+other+"\n") {
		t.Errorf("the editor was not told what was granted: %q", th)
	}
	outside := filepath.Join(b.Outside, "x.txt")
	e.srv.Reply(llmtest.ToolCall("read_file", map[string]any{"path": filepath.Join(other, "notes.txt")}))
	e.srv.Reply(llmtest.ToolCall("write_file", map[string]any{"path": filepath.Join(other, "new.txt"), "content": "written\n"}))
	e.srv.Reply(llmtest.ToolCall("write_file", map[string]any{"path": outside, "content": "no\n"}))
	e.srv.Reply(llmtest.ToolCall("shell", map[string]any{"command": strings.Join([]string{
		"echo sh > " + filepath.Join(other, "sh.txt") + " && echo shell-wrote",
		"(echo x > " + filepath.Join(other, ".git", "hooks", "pre-commit") + ") 2>/dev/null || echo hooks-refused",
		"(echo y > " + filepath.Join(outsideTemp(t, b), "sh.txt") + ") 2>/dev/null || echo outside-refused",
	}, "; ")}))
	e.srv.Reply(llmtest.Text("Done."))
	if pr, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: ns.SessionId, Prompt: text("use the other directory")}); err != nil || pr.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt: %+v %v", pr, err)
	}
	if sys := e.srv.LastRequest().Messages[0]; sys.Role != "system" || !strings.Contains(sys.Content, "the user gave this session these directories; the tools may read and write them (use absolute paths): "+other+".") {
		t.Errorf("the model was not told of the directory: %q", sys.Content)
	}
	var results []string
	for _, m := range e.srv.LastRequest().Messages {
		if m.Role == "tool" {
			results = append(results, m.Content)
		}
	}
	if len(results) != 4 {
		t.Fatalf("tool results: %q", results)
	}
	if !strings.Contains(results[0], "other notes") {
		t.Errorf("read_file in the granted directory: %q", results[0])
	}
	if data, err := os.ReadFile(filepath.Join(other, "new.txt")); err != nil || string(data) != "written\n" {
		t.Errorf("write_file in the granted directory: %q %v (%q)", data, err, results[1])
	}
	if _, err := os.Stat(outside); err == nil || !strings.Contains(results[2], "outside") {
		t.Errorf("write_file outside: %q (exists: %v)", results[2], err == nil)
	}
	if !strings.Contains(results[3], "shell-wrote\nhooks-refused\noutside-refused") {
		t.Errorf("shell: %q", results[3])
	}
	if _, err := os.Stat(filepath.Join(other, ".git", "hooks", "pre-commit")); err == nil {
		t.Errorf("the shell wrote a git hook in the granted directory")
	}
}
