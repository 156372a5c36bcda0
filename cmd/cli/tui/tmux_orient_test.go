package tui_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ollm/ollm/core/llm/llmtest"
)

// flat is the pane's text with box borders taken off and wrapped lines
// joined, so a sentence the banner wraps can be searched whole.
func flat(pane string) string {
	var words []string
	for _, l := range strings.Split(pane, "\n") {
		l = strings.Trim(l, " │║╭╮╰╯═─╔╗╚╝")
		words = append(words, strings.Fields(l)...)
	}
	return strings.Join(words, " ")
}

// waitFlat polls until the flattened pane holds every want.
func (s *tmuxSession) waitFlat(want ...string) string {
	s.t.Helper()
	for i := 1; ; i++ {
		pane := s.capture()
		f := flat(pane)
		if i%100 == 0 {
			s.t.Logf("still waiting for %q; the pane:\n%s", want, pane)
		}
		ok := true
		for _, w := range want {
			ok = ok && strings.Contains(f, w)
		}
		if ok {
			return f
		}
		s.waitFor() // fails when ollm exited
		time.Sleep(50 * time.Millisecond)
	}
}

// TestTmuxBannerNamesProfileConflict: with a user profile that conflicts
// with the workspace's, the first screen names the conflict (the files
// and values), says generation 1 keeps running (as `ollm run` does), and
// shows the workspace, the model, the trust state and the counts; nothing
// of it is lost behind the full screen.
func TestTmuxBannerNamesProfileConflict(t *testing.T) {
	tmp, bin := tmuxSetup(t)
	ws, home := filepath.Join(tmp, "ws"), filepath.Join(tmp, "home")
	for _, d := range []string{ws, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(ws, "ollm.cue"), "model: name: \"test-model\"\n")
	apply := exec.Command(bin, "profile", "apply")
	apply.Dir, apply.Env = ws, append(os.Environ(), "OLLM_HOME="+home, "CI=true")
	if out, err := apply.CombinedOutput(); err != nil {
		t.Fatalf("profile apply: %v\n%s", err, out)
	}
	write(t, filepath.Join(home, "profile.cue"), "model: name: \"other-model\"\n")

	srv := llmtest.NewOllama(t)
	s := startTmux(t, tmp, bin, ws, home, srv.URL, 140, 40)
	s.waitFlat("workspace "+ws, "model test-model via ollama at "+srv.URL, "profile generation 1",
		"$OLLM_HOME/profile.cue changed since generation 1 but does not apply",
		`model.name: conflicting values "test-model" and "other-model"`,
		"fix it and run `ollm profile apply`; running generation 1",
		"loaded no extensions, no MCP servers, no hooks, no skills",
		"model test-model │ profile gen 1 │ mode default │ sandbox")
	if strings.Contains(flat(s.capture()), "not running") {
		t.Fatalf("the banner blames the server:\n%s", s.capture())
	}
	s.tmux("send-keys", "-t", s.name, "-l", "/quit")
	s.tmux("send-keys", "-t", s.name, "Enter")
	s.waitFor("[exited 0]")
}

// TestTmuxModelPull: a session whose model is not installed says so in
// the banner and offers the pull; "y" pulls it from the stand-in Ollama's
// /api/pull with a progress bar (held at 40% until the test saw it), then
// switches to it. /model lists the installed models with size and
// parameters; Enter on one switches.
func TestTmuxModelPull(t *testing.T) {
	tmp, bin := tmuxSetup(t)
	ws, home := filepath.Join(tmp, "ws"), filepath.Join(tmp, "home")
	for _, d := range []string{ws, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(home, "profile.cue"), "model: name: \"qwen3:0.6b\"\n")
	srv := llmtest.NewOllama(t)
	pull := srv.Pullable(llmtest.Model{Name: "qwen3:0.6b", ParameterSize: "751.63M", Quantization: "Q4_K_M"}, 522_000_000, true)

	s := startTmux(t, tmp, bin, ws, home, srv.URL, 140, 40)
	s.waitFlat("✗ model qwen3:0.6b is not installed: `/model qwen3:0.6b` pulls it (or `ollm model pull qwen3:0.6b`)",
		"Model qwen3:0.6b is not installed", "Pull it into Ollama at "+srv.URL+" now?", "[y] pull and switch")
	s.tmux("send-keys", "-t", s.name, "y")
	s.waitFlat("⇣ pull qwen3:0.6b [████████████░░░░░░░░░░░░░░░░░░] 40% 209 MB/522 MB pulling ", "pulling qwen3:0.6b")
	if got := srv.Pulled(); len(got) != 1 || got[0] != "qwen3:0.6b" {
		t.Fatalf("pulled %v", got)
	}
	pull.Release()
	s.waitFlat("⇣ pull qwen3:0.6b [██████████████████████████████] 100%", "success", "model qwen3:0.6b for the rest of the session", "model qwen3:0.6b │")

	s.tmux("send-keys", "-t", s.name, "-l", "/model")
	s.tmux("send-keys", "-t", s.name, "Enter")
	s.waitFlat("Models Ollama at "+srv.URL, "qwen3:0.6b 522 MB 751.63M Q4_K_M (current)", "(current)", "test-model:latest 4.9 GB 8.0B Q4_K_M", "[enter] switch")
	s.tmux("send-keys", "-t", s.name, "Down")
	s.tmux("send-keys", "-t", s.name, "Enter")
	s.waitFlat("model test-model:latest for the rest of the session", "model test-model:latest │")
	s.tmux("send-keys", "-t", s.name, "-l", "/quit")
	s.tmux("send-keys", "-t", s.name, "Enter")
	s.waitFor("[exited 0]")
}
