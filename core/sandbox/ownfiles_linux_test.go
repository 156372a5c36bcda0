package sandbox_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ollm/ollm/core/sandbox"
	"github.com/ollm/ollm/core/sandbox/sandboxtest"
	"github.com/ollm/ollm/schema"
)

// A hook of the user's own that runs a script from $OLLM_HOME (hidden
// from every sandboxed process) reads that script's directory, and
// nothing else of $OLLM_HOME: not the profile, not the tokens, not the
// secrets, not a sibling directory; with $OLLM_HOME outside the workspace
// and inside it (a writable path, where hiding is a mount).
func TestAllowOwnFilesGrantsOnlyTheScriptsDirectory(t *testing.T) {
	for _, inside := range []bool{false, true} {
		b := sandboxtest.New(t)
		home := b.OllmHome
		if inside {
			home = filepath.Join(b.WS, ".ollm-home")
		}
		files := map[string]string{
			"hooks/guard.sh":   "cat \"$READ\" 2>/dev/null; echo ran-guard\n",
			"hooks/lib.txt":    "LIB-IS-READABLE\n",
			"profile.cue":      "SECRET-PROFILE\n",
			"tokens/srv.json":  "SECRET-TOKEN\n",
			"secrets/abc":      "SECRET-SEALED\n",
			"history/ws.jsonl": "\"SECRET-TYPED-PROMPT\"\n",
			"other/notes.txt":  "SECRET-SIBLING\n",
			"top.sh":           "echo ran-top; cat \"$READ\" 2>/dev/null\n",
		}
		for name, body := range files {
			p := filepath.Join(home, name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		env := b.Env()
		env.OllmHome = home
		// What the script reads comes in its environment: a path named on
		// the command line is one the user's hook runs from, and granted.
		run := func(read string, argv ...string) string {
			t.Helper()
			p := sandbox.Resolve(schema.Sandbox{}, sandbox.ProcessDefault, env)
			p.AllowOwnFiles(env, argv)
			cmd := exec.Command(argv[0], argv[1:]...)
			cmd.Dir = b.WS
			cmd.Env = append(os.Environ(), "READ="+read, "HOME="+b.Home)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := sandbox.Wrap(cmd, p); err != nil {
				t.Fatal(err)
			}
			_ = sandbox.RunForTest(cmd)
			return out.String()
		}
		guard := filepath.Join(home, "hooks", "guard.sh")
		if out := run(filepath.Join(home, "hooks", "lib.txt"), "sh", guard); !strings.Contains(out, "ran-guard") || !strings.Contains(out, "LIB-IS-READABLE") {
			t.Errorf("inside=%v: the hook cannot read its own directory: %q", inside, out)
		}
		for _, secret := range []string{"profile.cue", "tokens/srv.json", "secrets/abc", "other/notes.txt"} {
			out := run(filepath.Join(home, secret), "sh", guard)
			if !strings.Contains(out, "ran-guard") || strings.Contains(out, "SECRET") {
				t.Errorf("inside=%v: the hook read %s: %q", inside, secret, out)
			}
		}
		// A script right in $OLLM_HOME is readable alone.
		if out := run(filepath.Join(home, "profile.cue"), "sh", filepath.Join(home, "top.sh")); !strings.Contains(out, "ran-top") || strings.Contains(out, "SECRET") {
			t.Errorf("inside=%v: a script in $OLLM_HOME itself: %q", inside, out)
		}
		// In $HOME: Claude Code's user hooks in ~/.claude/hooks read their
		// directory; the credentials beside it and ~/.ssh stay hidden, even
		// named on the command line.
		for name, body := range map[string]string{
			".claude/hooks/no-force.sh": "cat \"$READ\" 2>/dev/null; echo ran-claude\n",
			".claude/hooks/lib.txt":     "CLAUDE-LIB-READABLE\n",
			".claude/.credentials.json": "SECRET-CLAUDE-CREDENTIALS\n",
			".ssh/id_ed25519":           "SECRET-SSH-KEY\n",
		} {
			p := filepath.Join(b.Home, name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if out := run(filepath.Join(b.Home, ".claude", "hooks", "lib.txt"), "sh", "-c", "sh ~/.claude/hooks/no-force.sh"); !strings.Contains(out, "ran-claude") || !strings.Contains(out, "CLAUDE-LIB-READABLE") {
			t.Errorf("inside=%v: a Claude user hook cannot read its directory: %q", inside, out)
		}
		for _, secret := range []string{".claude/.credentials.json", ".ssh/id_ed25519"} {
			full := filepath.Join(b.Home, secret)
			if out := run(full, "sh", "-c", "sh ~/.claude/hooks/no-force.sh "+full); !strings.Contains(out, "ran-claude") || strings.Contains(out, "SECRET") {
				t.Errorf("inside=%v: named on the command line, %s was read: %q", inside, secret, out)
			}
		}
		// Naming a secret does not grant it.
		if out := run("", "sh", "-c", "cat "+filepath.Join(home, "tokens", "srv.json")+"; echo done"); strings.Contains(out, "SECRET") {
			t.Errorf("inside=%v: a command line naming the tokens read them: %q", inside, out)
		}
		// Nor the prompts typed in the TUI (issue 27's input history).
		if out := run("", "sh", "-c", "cat "+filepath.Join(home, "history", "ws.jsonl")+"; echo done"); strings.Contains(out, "SECRET") {
			t.Errorf("inside=%v: a command line naming the input history read it: %q", inside, out)
		}
	}
}
