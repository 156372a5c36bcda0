package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/ollm/ollm/cmd/cli/tui"
	"github.com/ollm/ollm/core/agent"
	"github.com/ollm/ollm/core/bus"
	"github.com/ollm/ollm/core/hooks"
	"github.com/ollm/ollm/core/llm"
	"github.com/ollm/ollm/core/mcp"
	"github.com/ollm/ollm/core/runtime"
	"github.com/ollm/ollm/core/skills"
)

// Output formats of `ollm run`.
const (
	formatText       = "text"
	formatJSON       = "json"
	formatStreamJSON = "stream-json"
)

// runStopGrace is the stdio MCP servers' grace between stdin closed and
// SIGTERM when `ollm run` ends: a one-shot command, so at most 100 ms (a
// server that exits on EOF is gone in a few milliseconds), where a
// session gives 1 s.
const runStopGrace = 100 * time.Millisecond

// resumeLatest is what --resume holds when given without an id; it also
// names the latest session explicitly (--resume=latest).
const resumeLatest = "latest"

// RunOptions are the options of `ollm run`.
type RunOptions struct {
	IO       *IOStreams
	F        *Factory
	Prompt   string
	Format   string
	Mode     string
	MaxTurns int
	Resume   string
	Skill    string
	Vars     []string
	Elicit   string
}

func newCmdRun(f *Factory) *cobra.Command {
	opts := &RunOptions{IO: f.IO, F: f}
	cmd := &cobra.Command{
		Use:   "run [-p PROMPT]",
		Short: "Run one prompt through the agent without the TUI",
		Long: `Run one prompt through the same agent loop the TUI uses: hooks fire at
every event, every tool call passes the one gate (before_tool hooks, the
policy on the final arguments, a confirmation) and the session is saved as
a transcript in $OLLM_HOME/sessions that --resume continues.

The prompt comes from -p, or from stdin when stdin is not a terminal; with
both, the piped text comes first and -p's prompt follows after a blank line
(as Gemini CLI does). Piped input beyond 8 MiB is cut with a warning; an
empty stdin leaves -p's prompt alone. With -p, a stdin that sends nothing
(not even its end) within half a second is not waited for.
A prompt that starts with /NAME, where NAME is a skill or command (/skills
lists them) or a command an extension registered, runs it as a session
would, with the rest as its arguments; any other prompt starting with /
(a path) goes to the model as written.
Without a terminal nobody can confirm a call the policy asks about, so it is
denied with a message naming the rule that asked; the model sees the refusal.

Output: text prints the final answer; json prints one object with the
answer, the tool calls and the token use; stream-json prints every event of
the loop as one JSON object a line, then a "result" line.

Exit codes: 0 done; 1 the model or provider failed (Ollama not running, the
model missing, the turn limit); 2 bad flags or profile; 4 a hook or the
policy blocked the prompt; 130 interrupted.`,
		Example: `  ollm run -p "summarise README.md"
  git diff | ollm run -p "review this diff" --output-format json
  ollm run --approval-mode auto_edit -p "fix the failing test"
  ollm run --resume -p "and now the docs"          # continue the latest session
  ollm run --skill review --var file=main.go
  ollm run --skill writing-hookify-rules -p "block force pushes"
  ollm run -p "/review main.go"                    # a skill or an extension's command`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 && opts.Resume == resumeLatest {
				opts.Resume, args = args[0], nil // --resume ID
			}
			if len(args) > 0 {
				return &FlagError{Err: fmt.Errorf("unexpected argument %q; give the prompt with -p", args[0])}
			}
			return runRun(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&opts.Prompt, "prompt", "p", "", "the `PROMPT` (default: read stdin)")
	fl.StringVar(&opts.Format, "output-format", formatText, "`FORMAT` of the output: text, json or stream-json")
	fl.StringVar(&opts.Mode, "approval-mode", "", "policy `MODE`: default, auto_edit (edits run without asking), plan (only read-only tools run; the model plans, nothing changes) or yolo (everything runs but what a deny rule refuses)")
	fl.IntVar(&opts.MaxTurns, "max-turns", 0, "model requests allowed for the prompt (default: agent.maxTurns)")
	fl.StringVar(&opts.Resume, "resume", "", "continue session `ID` (the latest without an id)")
	fl.Lookup("resume").NoOptDefVal = resumeLatest
	fl.StringVar(&opts.Skill, "skill", "", "render skill `NAME` and run it as the prompt; -p (and stdin) give its free-text arguments")
	fl.StringArrayVar(&opts.Vars, "var", nil, "`KEY=VALUE` for a skill placeholder (repeatable)")
	fl.StringVar(&opts.Elicit, "elicit", mcp.ElicitHeadlessDecline, "what an MCP server's request for input gets when nobody can answer: `decline` or defaults (accept a form whose required fields all have defaults, with them)")
	return cmd
}

func runRun(ctx context.Context, o *RunOptions) error {
	switch o.Format {
	case formatText, formatJSON, formatStreamJSON:
	default:
		return &FlagError{Err: fmt.Errorf("--output-format %q: want text, json or stream-json", o.Format)}
	}
	switch o.Mode {
	case "", "default", "auto_edit", "yolo", "plan":
	default:
		return &FlagError{Err: fmt.Errorf("--approval-mode %q: want default, auto_edit, plan or yolo", o.Mode)}
	}
	if o.MaxTurns < 0 {
		return &FlagError{Err: errors.New("--max-turns must be positive")}
	}
	if err := mcp.CheckElicitHeadless(o.Elicit); err != nil {
		return &FlagError{Err: err}
	}
	vars := map[string]string{}
	for _, v := range o.Vars {
		k, val, ok := strings.Cut(v, "=")
		if !ok {
			return &FlagError{Err: fmt.Errorf("--var %q: want KEY=VALUE", v)}
		}
		vars[k] = val
	}
	prompt := o.Prompt
	if !o.IO.StdinTTY && o.IO.In != nil {
		// As Gemini CLI does: piped input comes first, then -p's prompt
		// after a blank line (`git diff | ollm run -p "review this diff"`).
		piped, err := readPiped(o.IO.In, prompt != "" || o.Skill != "", o.IO.ErrOut)
		if err != nil {
			return err
		}
		prompt = joinPiped(piped, prompt)
	}
	if prompt == "" && o.Skill == "" {
		return &FlagError{Err: errors.New("no prompt: give one with -p or on stdin")}
	}
	if o.Skill != "" && prompt != "" {
		// Free text after the skill, as /name text in the TUI: its
		// arguments ($ARGUMENTS, {{args}}, or appended to a SKILL.md body).
		if _, set := vars[skills.Arguments]; !set {
			vars[skills.Arguments] = prompt
		}
	}

	home, err := o.F.Home()
	if err != nil {
		return err
	}
	var (
		tr      *agent.Transcript
		id      string
		history []llm.Message
	)
	if o.Resume != "" {
		want := o.Resume
		if want == resumeLatest {
			want = ""
		}
		tr, id, history, err = agent.Resume(home.Sessions(), want, o.F.Now)
		if err != nil {
			return &FlagError{Err: fmt.Errorf("--resume: %w", err)}
		}
	} else {
		id = agent.NewID(o.F.Now())
	}
	out := &runOutput{o: o}
	// Servers whose tools are cached start once the first request has
	// gone out, which follows at once: no timer (core/runtime/firstrequest.go).
	rt, err := o.F.NewRuntime(ctx, runtime.Options{SessionID: id, Mode: o.Mode, MCPStopGrace: runStopGrace, ElicitHeadless: o.Elicit, StartCachedAfter: -1,
		OnNotice: func(s string) { fmt.Fprintf(o.IO.ErrOut, "notice: %s\n", s) },
		// Extensions' notifications and MCP servers' warnings: a line on
		// stderr, an event in stream-json.
		OnNotify: func(n hooks.Notification) {
			out.event(agent.Event{Type: agent.EvNotification, Time: n.Time, SessionID: id, Text: n.Label(), Notification: &n})
		}})
	if err != nil {
		if tr != nil {
			tr.Close()
		}
		return err
	}
	defer rt.Close()
	// One prompt, no one typing meanwhile: its tools and prompts should be
	// there, so wait for every server at once (the TUI does not wait),
	// up to mcp.connectionTimeout, naming on stderr a server still
	// connecting once the others have settled. One that fails or times
	// out is a warning below, and the prompt goes on without it.
	more, err := rt.WaitServersNotify(ctx, func(s string) { fmt.Fprintf(o.IO.ErrOut, "notice: %s\n", s) })
	if err != nil {
		return ErrCancelled
	}
	for _, w := range append(rt.Warnings, more...) {
		fmt.Fprintf(o.IO.ErrOut, "warning: %s\n", w)
	}
	cfg := rt.AgentConfig()
	if tr == nil {
		if tr, err = agent.Create(home.Sessions(), id, rt.Workspace.Root, cfg.Model, o.F.Now); err != nil {
			return err
		}
	}
	cfg.Transcript, cfg.History = tr, history
	if o.MaxTurns > 0 {
		cfg.MaxTurns = o.MaxTurns
	}
	cfg.OnEvent = out.event
	if o.IO.CanPrompt() {
		stop := answerOnTerminal(ctx, o.IO, rt.Bus)
		defer stop()
	}

	s, err := agent.New(cfg)
	if err != nil {
		return err
	}
	defer s.Close(context.WithoutCancel(ctx))
	var rep agent.Reply
	if err = s.Start(ctx); err == nil {
		if o.Skill != "" {
			rep, err = s.RunSkill(ctx, rt.Skills, o.Skill, vars)
		} else {
			var handled bool
			if rep, handled, err = runSlash(ctx, s, rt, prompt, vars, o.IO.ErrOut); !handled {
				rep, err = s.Run(ctx, attachResources(ctx, o.IO, rt, prompt))
			}
		}
	}
	if werr := out.result(id, rep, err); werr != nil {
		return werr
	}
	return runError(err)
}

// runError maps the loop's error to the command's.
func runError(err error) error {
	var (
		be *agent.BlockedError
		le *llm.Error
	)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, agent.ErrCancelled):
		return ErrCancelled
	case errors.As(err, &be):
		return &BlockedError{Err: err}
	case errors.As(err, &le):
		return err
	}
	return err
}

// runOutput writes what the chosen format shows.
type runOutput struct {
	o      *RunOptions
	mu     sync.Mutex
	failed map[string]bool // hooks whose failure was shown
}

func (w *runOutput) event(e agent.Event) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.o.Format == formatStreamJSON {
		b, _ := json.Marshal(e)
		fmt.Fprintf(w.o.IO.Out, "%s\n", b)
		return
	}
	switch e.Type {
	case agent.EvBlocked:
		what := e.Block.Event
		if e.Tool != nil {
			what = e.Tool.Name
		}
		fmt.Fprintf(w.o.IO.ErrOut, "blocked: %s: %s\n", what, joinNonEmpty(": ", e.Block.By, e.Block.Reason))
	case agent.EvNotice:
		fmt.Fprintf(w.o.IO.ErrOut, "notice: %s\n", e.Text)
	case agent.EvNotification:
		fmt.Fprintf(w.o.IO.ErrOut, "%s\n", e.Text)
	case agent.EvHookFailure:
		// Never silent: each hook's first failure is shown; with -v every
		// one. All of them are in $OLLM_HOME/logs/hooks.log.
		if w.failed == nil {
			w.failed = map[string]bool{}
		}
		if f := e.Failure; f != nil && (w.o.F.Global.Verbose || !w.failed[f.Hook]) {
			more := ""
			if !w.o.F.Global.Verbose {
				more = " (later failures of it: -v; all in logs/hooks.log)"
			}
			fmt.Fprintf(w.o.IO.ErrOut, "warning: %s%s\n", e.Text, more)
			w.failed[f.Hook] = true
		}
	case agent.EvToolProgress:
		// A status message (an MCP task's, a server's progress note) is
		// shown; streamed output is not (the model gets it).
		if c := e.Tool.Chunk; c != nil && c.Message != "" {
			fmt.Fprintf(w.o.IO.ErrOut, "progress: %s: %s\n", e.Tool.Name, c.Message)
		}
	case agent.EvToolCall:
		if w.o.F.Global.Verbose {
			fmt.Fprintf(w.o.IO.ErrOut, "tool: %s %s\n", e.Tool.Name, e.Tool.Args)
		}
	}
}

// runResult is the json output and the last stream-json line.
type runResult struct {
	Type      string             `json:"type"`
	SessionID string             `json:"sessionId"`
	Response  string             `json:"response"`
	Turns     int                `json:"turns"`
	ToolCalls []agent.CallRecord `json:"toolCalls"`
	Usage     llm.Usage          `json:"usage"`
	Error     string             `json:"error,omitempty"`
	Blocked   *agent.Block       `json:"blocked,omitempty"`
}

func (w *runOutput) result(id string, rep agent.Reply, err error) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.o.Format == formatText {
		if rep.Text != "" {
			fmt.Fprint(w.o.IO.Out, rep.Text)
			if !strings.HasSuffix(rep.Text, "\n") {
				fmt.Fprintln(w.o.IO.Out)
			}
		}
		return nil
	}
	r := runResult{Type: "result", SessionID: id, Response: rep.Text, Turns: rep.Turns, ToolCalls: rep.ToolCalls, Usage: rep.Usage}
	if r.ToolCalls == nil {
		r.ToolCalls = []agent.CallRecord{}
	}
	if err != nil {
		r.Error = err.Error()
		var be *agent.BlockedError
		if errors.As(err, &be) {
			r.Blocked = &be.Block
		}
	}
	if w.o.Format == formatStreamJSON {
		b, _ := json.Marshal(r)
		_, werr := fmt.Fprintf(w.o.IO.Out, "%s\n", b)
		return werr
	}
	return writeJSON(w.o.IO.Out, r)
}

// answerOnTerminal answers confirmations by asking on the terminal:
// y runs the call once, a always, anything else denies.
func answerOnTerminal(ctx context.Context, s *IOStreams, b *bus.Bus) func() {
	ctx, cancel := context.WithCancel(ctx)
	ch := b.Subscribe(ctx, bus.Answerer)
	in := bufio.NewReader(s.In)
	go func() {
		for e := range ch {
			if e.Kind != bus.Requested {
				continue
			}
			writeConfirmation(s.ErrOut, e.Request.Details)
			if e.Request.Details.Tool == tui.ElicitTool {
				_ = b.Respond(answerElicitation(s.ErrOut, in, e.Request.ID, func() { s.DropTypeAhead(in) }))
				continue
			}
			d := e.Request.Details
			if d.Always != "" {
				fmt.Fprintf(s.ErrOut, "  [a]lways saves: %s\n", d.Always)
			}
			prompt := "Run it? [y]es, [a]lways, [N]o: "
			if d.AlwaysNarrow != "" {
				fmt.Fprintf(s.ErrOut, "  [s]ub-command only saves: %s\n", d.AlwaysNarrow)
				prompt = "Run it? [y]es, [a]lways, [s]ub-command only, [N]o: "
			}
			if d.Trust != "" { // a file that decides what runs: this call only
				prompt = "Write this file that decides what runs? [y]es, this once, [N]o: "
			}
			fmt.Fprint(s.ErrOut, prompt)
			s.DropTypeAhead(in)
			line, _ := in.ReadString('\n')
			a := bus.Deny
			switch strings.ToLower(strings.TrimSpace(line)) {
			case "y", "yes":
				a = bus.AllowOnce
			case "a", "always":
				if d.Trust == "" {
					a = bus.AllowAlways
				}
			case "s":
				if d.AlwaysNarrow != "" {
					a = bus.AllowAlwaysNarrow
				}
			}
			_ = b.Respond(bus.Response{ID: e.Request.ID, Answer: a})
		}
	}()
	return cancel
}

// answerElicitation reads an MCP server's requested input from the
// terminal: a JSON object, or the value of its one field; an empty line
// declines.
func answerElicitation(w io.Writer, in *bufio.Reader, id string, dropTypeAhead func()) bus.Response {
	fmt.Fprint(w, "Answer (JSON object, or the value of a single field; empty declines): ")
	if dropTypeAhead != nil {
		dropTypeAhead()
	}
	line, _ := in.ReadString('\n')
	if line = strings.TrimSpace(line); line == "" {
		return bus.Response{ID: id, Answer: bus.Deny}
	}
	return bus.Response{ID: id, Answer: bus.AllowOnce, Feedback: line}
}

func joinNonEmpty(sep string, parts ...string) string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, sep)
}

// hookRoot makes the root command accept --resume [ID] (the TUI's way in)
// and, without a terminal, say how to run ollm instead.
func hookRoot(f *Factory, root *cobra.Command) {
	root.Flags().String("resume", "", "continue session `ID` (the latest without an id)")
	root.Flags().Lookup("resume").NoOptDefVal = resumeLatest
	root.Args = maxArgs(1)
	root.RunE = func(cmd *cobra.Command, args []string) error {
		resuming, id, err := rootResume(cmd, args)
		if err != nil {
			return err
		}
		hint := `ollm run -p "PROMPT"`
		if resuming {
			hint = `ollm run --resume`
			if id != "" {
				hint += " " + id
			}
			hint += ` -p "PROMPT"`
		}
		return &FlagError{Err: fmt.Errorf("the interactive session needs a terminal (stdin and stdout); without one, run %s, or pipe the prompt on stdin", hint)}
	}
}

// rootResume reads --resume at the root: `--resume ID`, `--resume=ID`
// and `--resume` alone (the latest session, id ""). The root has
// subcommands, so cobra cannot know that the word after a bare --resume
// is its value: it arrives as the one positional argument, which is taken
// as the id only after --resume; anything else is an unknown command.
func rootResume(cmd *cobra.Command, args []string) (resuming bool, id string, err error) {
	fl := cmd.Flags().Lookup("resume")
	if fl == nil || !fl.Changed {
		if len(args) > 0 {
			return false, "", &FlagError{Err: fmt.Errorf("unknown command %q for \"ollm\"", args[0])}
		}
		return false, "", nil
	}
	id = fl.Value.String()
	switch {
	case id == resumeLatest && len(args) == 1:
		id = args[0]
	case id == resumeLatest:
		id = ""
	case len(args) > 0:
		return false, "", &FlagError{Err: fmt.Errorf("unexpected argument %q after --resume=%s", args[0], id)}
	}
	return true, id, nil
}
