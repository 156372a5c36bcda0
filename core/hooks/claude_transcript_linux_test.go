//go:build linux

package hooks

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/ollm/ollm/schema"
)

// transcriptReader is a Claude Code hook reading transcript_path as
// Claude's hooks do: the last user line's message.content. It also tries
// ollm's own transcript (OLLM_TRANSCRIPT) and says whether it could.
const transcriptReader = `#!/usr/bin/env python3
import json, os, sys
data = json.load(sys.stdin)
prompt = "none"
for line in open(data["transcript_path"]):
    rec = json.loads(line)
    if rec["type"] == "user" and isinstance(rec["message"]["content"], str):
        prompt = rec["message"]["content"]
    if rec["type"] == "assistant":
        for b in rec["message"]["content"]:
            if b["type"] == "tool_use":
                prompt += " | " + b["name"] + " " + b["input"].get("old_string", "")
try:
    open(os.environ["OLLM_TRANSCRIPT"]).read()
    own = "ollm transcript readable"
except OSError:
    own = "ollm transcript hidden"
print(json.dumps({"systemMessage": prompt + " | " + own}))
`

// A sandboxed Claude hook reads the user's prompt (and the calls, in
// Claude's names and shapes) from transcript_path, while ollm's own
// transcript in $OLLM_HOME stays out of its reach.
func TestClaudeHookReadsTranscript(t *testing.T) {
	b := newSandboxBox(t)
	sessions := filepath.Join(b.ollmHome, "sessions")
	if err := os.MkdirAll(sessions, 0o700); err != nil {
		t.Fatal(err)
	}
	own := filepath.Join(sessions, "sess-sandbox.jsonl")
	lines := `{"type":"session","time":"2026-01-01T00:00:00Z","id":"sess-sandbox","cwd":"/w","model":"m"}
{"type":"message","time":"2026-01-01T00:00:01Z","message":{"role":"system","content":"you are ollm"}}
{"type":"message","time":"2026-01-01T00:00:02Z","message":{"role":"user","content":"please fix the parser"}}
{"type":"message","time":"2026-01-01T00:00:03Z","message":{"role":"assistant","content":"","toolCalls":[{"id":"c1","name":"edit_file","arguments":{"path":"p.go","edits":[{"oldText":"bug","newText":"fix"}]}}]}}
{"type":"message","time":"2026-01-01T00:00:04Z","message":{"role":"tool","content":"edited","toolCallId":"c1","toolName":"edit_file"}}
`
	if err := os.WriteFile(own, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	path := writeScript(t, filepath.Join(b.root, "scripts", "reader.py"), transcriptReader)
	h := &Hook{Name: "reader", Event: BeforeAgent, Scope: schema.ScopeUser,
		Def: schema.Hook{Name: "reader", Command: path, Dialect: DialectClaude, Env: map[string]string{"OLLM_TRANSCRIPT": own}}}
	e := b.engine(t, Options{Sandbox: b.policy(schema.Sandbox{})}, h)
	ctx := WithSessionInfo(context.Background(), SessionInfo{Transcript: own})
	out, err := e.Emit(ctx, BeforeAgent, map[string]any{"prompt": "please fix the parser"})
	if err != nil {
		t.Fatal(err)
	}
	want := "please fix the parser | Edit bug | ollm transcript hidden"
	if out.SystemMessage() != want || len(out.Results) != 1 || out.Results[0].Failure != "" {
		t.Fatalf("the hook said %q (want %q): %+v", out.SystemMessage(), want, out.Results)
	}
}
