package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/ollm/ollm/core/llm/llmtest"
)

// The fake model for scripts: `fake-ollama replies.json` starts a scripted
// fake Ollama (core/llm/llmtest, the real /api/chat wire format) in the test
// process and points OLLAMA_HOST at it, so ollm.cue needs no endpoint.
// `fake-ollama-check [requests.json]` fails when a reply was left unused or
// the server saw a request it had no reply for, and writes every request
// it received to the file for later greps.
//
// replies.json is a list of replies, each a list of steps:
//
//	{"text": ["chunk", ...]}          content chunks
//	{"thinking": ["chunk", ...]}
//	{"tool": "name", "args": {...}}   a tool call
//	{"tokens": [prompt, completion]}
//	{"error": [status, "message"]}    an HTTP error (alone in its reply)
var _ = registerFakeOllama()

func registerFakeOllama() bool {
	scriptCmds["fake-ollama"] = fakeOllamaCmd
	scriptCmds["fake-ollama-check"] = fakeOllamaCheckCmd
	scriptCmds["link-everything"] = linkEverythingCmd
	return true
}

// linkEverythingCmd links the npm reference server-everything (installed by
// `make deps`, or under OLLM_NPM_DIR) to the given path in the script's
// work directory, so a profile can start it as "node PATH stdio".
func linkEverythingCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: link-everything PATH")
	}
	dir := npmDir()
	p := filepath.Join(dir, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
	if _, err := os.Stat(p); err != nil {
		ts.Fatalf("server-everything is not installed (%v); run make deps", err)
	}
	ts.Check(os.Symlink(p, ts.MkAbs(args[0])))
}

// scriptTB is the part of testing.TB llmtest uses, over a script: errors
// are collected for fake-ollama-check and cleanups run when the script ends.
type scriptTB struct {
	testing.TB // nil: llmtest calls only the methods below
	ts         *testscript.TestScript
	mu         sync.Mutex
	errs       []string
}

func (s *scriptTB) Helper() {}
func (s *scriptTB) Errorf(format string, args ...any) {
	s.mu.Lock()
	s.errs = append(s.errs, fmt.Sprintf(format, args...))
	s.mu.Unlock()
}
func (s *scriptTB) Fatalf(format string, args ...any) { s.Errorf(format, args...) }
func (s *scriptTB) Cleanup(f func())                  { s.ts.Defer(f) }

type fakeStep struct {
	Text     []string       `json:"text"`
	Thinking []string       `json:"thinking"`
	Tool     string         `json:"tool"`
	Args     map[string]any `json:"args"`
	Tokens   []int          `json:"tokens"`
	Error    []any          `json:"error"`
}

var fakes sync.Map // *testscript.TestScript -> *fakeServer

type fakeServer struct {
	srv *llmtest.Ollama
	tb  *scriptTB
}

func fakeOllamaCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: fake-ollama replies.json")
	}
	var replies [][]fakeStep
	ts.Check(json.Unmarshal([]byte(ts.ReadFile(args[0])), &replies))
	tb := &scriptTB{ts: ts}
	srv := llmtest.NewOllama(tb)
	for i, r := range replies {
		var steps []llmtest.Step
		for _, st := range r {
			switch {
			case st.Text != nil:
				steps = append(steps, llmtest.Text(st.Text...))
			case st.Thinking != nil:
				steps = append(steps, llmtest.Thinking(st.Thinking...))
			case st.Tool != "":
				steps = append(steps, llmtest.ToolCall(st.Tool, st.Args))
			case len(st.Tokens) == 2:
				steps = append(steps, llmtest.Tokens(st.Tokens[0], st.Tokens[1]))
			case len(st.Error) == 2:
				status, _ := st.Error[0].(float64)
				msg, _ := st.Error[1].(string)
				steps = append(steps, llmtest.HTTPError(int(status), msg))
			default:
				ts.Fatalf("%s: reply %d: unknown step %+v", args[0], i+1, st)
			}
		}
		srv.Reply(steps...)
	}
	fakes.Store(ts, &fakeServer{srv: srv, tb: tb})
	ts.Setenv("OLLAMA_HOST", srv.URL)
}

func fakeOllamaCheckCmd(ts *testscript.TestScript, neg bool, args []string) {
	v, ok := fakes.Load(ts)
	if !ok {
		ts.Fatalf("fake-ollama-check: no fake-ollama started")
	}
	f := v.(*fakeServer)
	if len(args) == 1 {
		b, err := json.MarshalIndent(f.srv.Requests(), "", "  ")
		ts.Check(err)
		ts.Check(os.WriteFile(ts.MkAbs(args[0]), b, 0o644))
	}
	f.tb.mu.Lock()
	errs := append([]string(nil), f.tb.errs...)
	f.tb.mu.Unlock()
	if n := f.srv.Pending(); n > 0 {
		errs = append(errs, fmt.Sprintf("%d queued replies were never requested", n))
	}
	if (len(errs) > 0) != neg {
		if neg {
			ts.Fatalf("fake-ollama-check: expected problems, got none")
		}
		ts.Fatalf("fake-ollama-check: %s", strings.Join(errs, "; "))
	}
}
