package agent

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/ollm/ollm/core/bus"
	"github.com/ollm/ollm/core/hooks"
	"github.com/ollm/ollm/core/llm"
	"github.com/ollm/ollm/core/llm/llmtest"
	"github.com/ollm/ollm/core/mcp"
	"github.com/ollm/ollm/core/policy"
	"github.com/ollm/ollm/core/tool"
	"github.com/ollm/ollm/schema"
	"github.com/ollm/ollm/store"
	"github.com/ollm/ollm/tools"
)

// script is the absolute path of a testdata hook script.
func script(t testing.TB, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// hook is a trusted (user-scope) hook running a testdata script.
func hook(t testing.TB, name string, ev hooks.Event, file string, args ...string) *hooks.Hook {
	return &hooks.Hook{Name: name, Event: ev, Scope: schema.ScopeUser,
		Def: schema.Hook{Name: name, Command: script(t, file), Args: args}}
}

// logHooks attaches log.sh to every canonical event but custom.
func logHooks(t testing.TB) []*hooks.Hook {
	var hs []*hooks.Hook
	for _, ev := range hooks.Events {
		if ev != hooks.Custom {
			hs = append(hs, hook(t, "log-"+string(ev), ev, "log.sh"))
		}
	}
	return hs
}

func engine(t testing.TB, sessionID, cwd string, hs ...*hooks.Hook) *hooks.Engine {
	t.Helper()
	// Hooks get ollm's environment by allow-list (docs/security.md, "The
	// environment"): the fixtures' variables pass by name, as a user's
	// hooks.allowEnv passes them.
	e := hooks.New(hooks.NewRegistry(hs...), hooks.Options{Enabled: true, LogDir: t.TempDir(),
		Session: hooks.Session{ID: sessionID, Cwd: cwd}, AllowEnv: []string{"EVENT_LOG", "SYSTEM_MESSAGE"}})
	t.Cleanup(func() { _ = e.Close() })
	return e
}

// builtins are the built-in tools confined to root.
func builtins(t testing.TB, root string) []tool.Tool {
	return tools.Builtin(tools.Config{Root: root, Home: store.Home{Dir: t.TempDir()}, Workspace: store.Workspace{Root: root}})
}

// npmDir finds the npm reference servers that `make deps` installs.
func npmDir(t testing.TB) string {
	t.Helper()
	if d := os.Getenv("OLLM_NPM_DIR"); d != "" {
		return d
	}
	wd, _ := os.Getwd()
	for d := wd; ; d = filepath.Dir(d) {
		cand := filepath.Join(d, ".deps", "npm")
		if _, err := os.Stat(filepath.Join(cand, "node_modules")); err == nil {
			return cand
		}
		if filepath.Dir(d) == d {
			t.Fatal("the MCP reference servers are not installed; run make deps")
		}
	}
}

// everything starts server-everything over stdio and returns its manager.
func everything(t testing.TB, name string) *mcp.Manager {
	t.Helper()
	p := everythingPath(t)
	m := mcp.New([]mcp.Spec{{Name: name, Config: schema.MCPServer{Command: "node", Args: []string{p, "stdio"}, Enabled: true}}},
		mcp.Options{LogDir: t.TempDir()})
	m.Start()
	t.Cleanup(func() { m.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := m.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	return m
}

func mustPolicy(t testing.TB, def string, rules ...schema.PolicyRule) *policy.Policy {
	t.Helper()
	p, err := policy.Compile(schema.Policy{DefaultAction: def, Rules: rules}, policy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// recorder collects the loop's events.
type recorder struct {
	mu  sync.Mutex
	evs []Event
}

func (r *recorder) on(e Event) { r.mu.Lock(); r.evs = append(r.evs, e); r.mu.Unlock() }

func (r *recorder) of(t EventType) []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Event
	for _, e := range r.evs {
		if e.Type == t {
			out = append(out, e)
		}
	}
	return out
}

// fixture is a session against the fake Ollama.
type fixture struct {
	srv  *llmtest.Ollama
	root string
	rec  *recorder
	cfg  Config
}

func newFixture(t *testing.T) *fixture {
	srv := llmtest.NewOllama(t)
	prov, err := llm.New(srv.ModelConfig(), llm.Config{})
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	f := &fixture{srv: srv, root: root, rec: &recorder{}}
	f.cfg = Config{Provider: prov, Model: llmtest.DefaultModel, Tools: tool.NewRegistry(builtins(t, root)...),
		Policy: mustPolicy(t, "allow"), SessionID: "s1", Cwd: root, ContextWindow: 100000, OnEvent: f.rec.on}
	return f
}

func (f *fixture) session(t *testing.T) *Session {
	t.Helper()
	s, err := New(f.cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close(context.Background()) })
	return s
}

// answer answers every confirmation on b with a, recording the details.
func answer(t *testing.T, b *bus.Bus, a bus.Answer) *[]policy.Details {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	ch := b.Subscribe(ctx, bus.Answerer)
	var mu sync.Mutex
	seen := &[]policy.Details{}
	go func() {
		for e := range ch {
			if e.Kind == bus.Requested {
				mu.Lock()
				*seen = append(*seen, e.Request.Details)
				mu.Unlock()
				_ = b.Respond(bus.Response{ID: e.Request.ID, Answer: a})
			}
		}
	}()
	return seen
}

// hookLog reads the inputs log.sh appended, in order.
func hookLog(t *testing.T, path string) []hooks.Input {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []hooks.Input
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var in hooks.Input
		if err := json.Unmarshal(sc.Bytes(), &in); err != nil {
			t.Fatalf("hook log line %q: %v", sc.Text(), err)
		}
		out = append(out, in)
	}
	return out
}

func toolMessages(req llmtest.ChatRequest) []llmtest.Message {
	var out []llmtest.Message
	for _, m := range req.Messages {
		if m.Role == "tool" {
			out = append(out, m)
		}
	}
	return out
}

func everythingPath(t testing.TB) string {
	t.Helper()
	p := filepath.Join(npmDir(t), "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("%v; run make deps", err)
	}
	return p
}
