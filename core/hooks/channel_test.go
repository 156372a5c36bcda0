package hooks

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollm/ollm/core/tool"
	"github.com/ollm/ollm/schema"
)

// notes collects notifications.
type notes struct {
	mu sync.Mutex
	ns []Notification
}

func (n *notes) add(x Notification) { n.mu.Lock(); n.ns = append(n.ns, x); n.mu.Unlock() }

// wait returns the notifications once one satisfies ok (or fails).
func (n *notes) wait(t *testing.T, what string, ok func(Notification) bool) Notification {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		n.mu.Lock()
		for _, x := range n.ns {
			if ok(x) {
				n.mu.Unlock()
				return x
			}
		}
		n.mu.Unlock()
		time.Sleep(10 * time.Millisecond)
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	t.Fatalf("no notification %s; got %+v", what, n.ns)
	return Notification{}
}

// greeters are the example extension process written with the Python
// helper (examples/extensions/greeter) and the same one written with the
// Go package sdk/hook (examples/greeter-go, built here).
func greeters(t *testing.T) map[string]schema.Hook {
	t.Helper()
	py, err := filepath.Abs("../../examples/extensions/greeter/greeter.py")
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "greeter-go")
	cmd := exec.Command("go", "build", "-o", bin, "../../examples/greeter-go")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build examples/greeter-go: %v\n%s", err, out)
	}
	return map[string]schema.Hook{
		"python": {Name: "commands", Command: "python3", Args: []string{py}, Persistent: true},
		"go":     {Name: "commands", Command: bin, Persistent: true},
	}
}

// TestExtensionCommandsAndNotifications runs the greeter extension (a
// real persistent process, once written with examples' ollm_hook.py, once
// with sdk/hook): its session_start answer is preceded by a notification
// labelled with the extension; it registered four commands, one per
// action; invoking them returns what the user will see; /ship raises a
// custom event that a recording hook (a real bash process) receives with
// source set by ollm.
func TestExtensionCommandsAndNotifications(t *testing.T) {
	for lang, def := range greeters(t) {
		t.Run(lang, func(t *testing.T) {
			logPath := filepath.Join(t.TempDir(), "custom.jsonl")
			t.Setenv("EVENT_LOG", logPath)
			var got notes
			ext := &Hook{Name: def.Name, Event: SessionStart, Scope: schema.ScopeUser, Extension: "greeter", Def: def}
			rec := userHook(t, "record-custom", Custom, "input_log.sh")
			e := newEngine(t, Options{OnNotify: got.add,
				Session: Session{ID: "s1", Cwd: t.TempDir(), User: "me", Started: time.Date(2026, 1, 16, 10, 0, 0, 0, time.UTC)}}, ext, rec)

			out, err := e.Emit(t.Context(), SessionStart, map[string]any{"source": "startup"})
			if err != nil || out.Blocked || out.Results[0].Failure != "" {
				t.Fatalf("session_start: %+v, %v", out, err)
			}
			n := got.wait(t, "greeter ready", func(n Notification) bool { return strings.Contains(n.Message, "greeter ready") })
			if n.Source != "greeter" || n.Level != "info" || n.Label() != "[greeter] info: greeter ready: try /hello" {
				t.Errorf("notification = %+v (%s)", n, n.Label())
			}

			var names []string
			for _, c := range e.Commands() {
				names = append(names, c.Name)
				if c.Source != "greeter" || c.Description == "" {
					t.Errorf("command %+v", c)
				}
			}
			if !slices.Equal(names, []string{"about", "hello", "ship", "sig"}) {
				t.Fatalf("commands = %v", names)
			}
			for _, tc := range []struct {
				cmd, args string
				want      CommandResponse
			}{
				{"hello", "  Ann ", CommandResponse{Action: ActionPrompt, Prompt: "Greet Ann very briefly."}},
				{"sig", "", CommandResponse{Action: ActionInsert, Insert: "-- sent with ollm"}},
				{"/about", "", CommandResponse{Action: ActionDisplay, Display: "greeter: /hello /sig /about /ship"}},
				{"ship", "", CommandResponse{Action: ActionNoop, Error: "usage: /ship ENV"}},
				{"ship", "staging", CommandResponse{Action: ActionNoop}},
			} {
				r, err := e.InvokeCommand(t.Context(), tc.cmd, tc.args)
				if err != nil || r != tc.want {
					t.Errorf("/%s %q = %+v, %v; want %+v", tc.cmd, tc.args, r, err, tc.want)
				}
			}
			got.wait(t, "ship requested", func(n Notification) bool {
				return n.Source == "greeter" && n.Level == "success" && n.Message == "ship staging requested"
			})
			if _, err := e.InvokeCommand(t.Context(), "nope", ""); err == nil || !strings.Contains(err.Error(), "no extension registered /nope") {
				t.Errorf("unknown command: %v", err)
			}

			// The custom event reached the recording hook.
			var in Input
			deadline := time.Now().Add(10 * time.Second)
			for time.Now().Before(deadline) {
				if b, err := os.ReadFile(logPath); err == nil && len(b) > 0 {
					sc := bufio.NewScanner(strings.NewReader(string(b)))
					sc.Scan()
					if err := json.Unmarshal(sc.Bytes(), &in); err != nil {
						t.Fatal(err)
					}
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
			sess, _ := in.Data["session"].(map[string]any)
			if in.Event != Custom || in.Data["eventName"] != "ship" || in.Data["source"] != "greeter" ||
				in.Data["data"].(map[string]any)["env"] != "staging" || in.Data["session_id"] != "s1" ||
				sess["id"] != "s1" || sess["user"] != "me" || sess["startTime"] != "2026-01-16T10:00:00Z" {
				t.Errorf("custom input = %+v", in)
			}
		})
	}
}

// TestStartPersistentRegistersCommands: after a reload no session_start
// is sent; StartPersistent starts the greeter so its commands are back.
func TestStartPersistentRegistersCommands(t *testing.T) {
	def := greeters(t)["python"]
	ext := &Hook{Name: def.Name, Event: SessionStart, Scope: schema.ScopeUser, Extension: "greeter", Def: def}
	e := newEngine(t, Options{}, ext)
	e.StartPersistent(t.Context())
	deadline := time.Now().Add(10 * time.Second)
	for len(e.Commands()) < 4 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if r, err := e.InvokeCommand(t.Context(), "about", ""); err != nil || r.Display != "greeter: /hello /sig /about /ship" {
		t.Fatalf("/about after StartPersistent: %+v, %v (commands %v)", r, err, e.Commands())
	}
}

// TestHostileExtensionCannotSpoof: an extension cannot take another's
// command or ollm's own, its notifications are labelled with its name and
// cannot carry escape sequences or extra lines, and an unknown action is
// an error naming it.
func TestHostileExtensionCannotSpoof(t *testing.T) {
	def := greeters(t)["python"]
	var got notes
	good := &Hook{Name: "commands", Event: SessionStart, Scope: schema.ScopeUser, Extension: "greeter", Def: def}
	evil := &Hook{Name: "evil", Event: SessionStart, Scope: schema.ScopeUser, Extension: "evil",
		Def: schema.Hook{Name: "evil", Command: script(t, "hostile.py"), Persistent: true}}
	e := newEngine(t, Options{OnNotify: got.add, ReservedCommand: func(n string) bool { return n == "help" }}, good, evil)
	if _, err := e.Emit(t.Context(), SessionStart, map[string]any{}); err != nil {
		t.Fatal(err)
	}
	got.wait(t, "about /hello", func(n Notification) bool {
		return n.Source == "ollm" && n.Message == "evil tried to register /hello, which greeter owns; ignored (disable one of them or rename the command)"
	})
	got.wait(t, "about /help", func(n Notification) bool {
		return n.Source == "ollm" && strings.HasPrefix(n.Message, "evil tried to register /help, a command of ollm's own")
	})
	got.wait(t, "about the bad name", func(n Notification) bool {
		return n.Source == "ollm" && strings.HasPrefix(n.Message, `evil tried to register the command "Bad Name"`)
	})
	spoof := got.wait(t, "from evil", func(n Notification) bool { return n.Source == "evil" })
	if strings.ContainsAny(spoof.Label(), "\x1b\n") || !strings.HasPrefix(spoof.Label(), "[evil] error: ") {
		t.Errorf("spoofed notification shown as %q", spoof.Label())
	}
	// The first registration holds; the hostile one got only its own name.
	owners := map[string]string{}
	for _, c := range e.Commands() {
		owners[c.Name] = c.Source
		if strings.ContainsRune(c.Description, '\x1b') {
			t.Errorf("description %q", c.Description)
		}
	}
	if owners["hello"] != "greeter" || owners["evil"] != "evil" || owners["help"] != "" {
		t.Errorf("owners = %v", owners)
	}
	for name, want := range map[string]string{"ollm": "ext:ollm", "OLLM": "ext:OLLM", "mcp:github": "ext:mcp:github", "greeter": "greeter"} {
		if got := source(&Hook{Name: "h", Extension: name}); got != want {
			t.Errorf("an extension named %q is labelled %q, want %q", name, got, want)
		}
	}
	if _, err := e.InvokeCommand(t.Context(), "evil", ""); err == nil || err.Error() != `/evil: evil answered the unknown action "explode"; send one of prompt, insert, display, noop` {
		t.Errorf("unknown action: %v", err)
	}
}

// TestExtensionTools: a seed-002 extension registers a tool over the
// channel; it is offered as "<extension>__<name>", checked against its
// schema, called with tool_call and answered with tool_result; a bad name
// and a profile hook's registration are refused with ollm's own notice.
func TestExtensionTools(t *testing.T) {
	var got notes
	h := &Hook{Name: "tools", Event: SessionStart, Scope: schema.ScopeUser, Extension: "weather.x",
		Def: schema.Hook{Name: "tools", Command: script(t, "register_tool.py"), Persistent: true},
		Env: map[string]string{"LOGIN": "sk-tool-secret-42"}, Secrets: []string{"sk-tool-secret-42"}}
	loose := &Hook{Name: "loose", Event: SessionStart, Scope: schema.ScopeUser,
		Def: schema.Hook{Name: "loose", Command: script(t, "register_tool.py"), Persistent: true}}
	// Another extension whose name gives the same namespace.
	twin := &Hook{Name: "twin", Event: SessionStart, Scope: schema.ScopeUser, Extension: "weather_x",
		Def: schema.Hook{Name: "twin", Command: script(t, "register_tool.py"), Persistent: true}}
	e := newEngine(t, Options{OnNotify: got.add}, h, loose, twin)
	if out := emit(t, e, SessionStart, map[string]any{}); out.Results[0].Failure != "" || out.Results[1].Failure != "" {
		t.Fatalf("results = %+v", out.Results)
	}
	got.wait(t, "about the twin", func(n Notification) bool {
		return n.Source == "ollm" && strings.HasPrefix(n.Message, "weather_x tried to register the tool weather_x__forecast, which weather.x/tools registered; ignored")
	})
	got.wait(t, "about the bad name", func(n Notification) bool {
		return n.Source == "ollm" && strings.HasPrefix(n.Message, `weather.x tried to register the tool "bad name!"`)
	})
	got.wait(t, "about the profile hook", func(n Notification) bool {
		return n.Source == "ollm" && n.Message == `loose sent register_tool "forecast", but only an extension's hook may register tools; ignored`
	})
	var tl tool.Tool
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if x, ok := e.Tool("weather_x__forecast"); ok {
			tl = x
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if tl == nil || len(e.Tools()) != 1 {
		t.Fatalf("tools = %v", e.Tools())
	}
	if a := tl.(tool.Annotated).Annotations(); a.Extension != "weather.x" || tl.Description() != "weather for a city" {
		t.Errorf("annotations %+v, description %q", a, tl.Description())
	}
	if _, err := tl.Build(json.RawMessage(`{"town": 3}`)); err == nil || !strings.Contains(err.Error(), "city") {
		t.Errorf("args without city: %v", err)
	}
	call := func(args string) tool.Result {
		t.Helper()
		inv, err := tl.Build(json.RawMessage(args))
		if err != nil {
			t.Fatal(err)
		}
		res, err := inv.Execute(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if r := call(`{"city": "Berlin"}`); r.Error != nil || r.ForModel != "Berlin: 16C, fog (key [redacted])" {
		t.Errorf("Berlin: %+v", r)
	}
	if r := call(`{"city": "nowhere"}`); r.Error == nil || r.ForModel != "weather_x__forecast: no such city" {
		t.Errorf("nowhere: %+v", r)
	}
}
