package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/spf13/cobra"

	"github.com/ollm/ollm/core/agent"
	"github.com/ollm/ollm/core/bus"
	"github.com/ollm/ollm/core/runtime"
	"github.com/ollm/ollm/core/skills"
	"github.com/ollm/ollm/core/tool"
)

type mcpServeOptions struct {
	Mode      string
	HTTP      string // loopback address; "" serves on stdio
	TokenFile string
	Origins   []string // browser origins allowed besides loopback ones (--http)
}

func newCmdMCPServe(f *Factory) *cobra.Command {
	var o mcpServeOptions
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve ollm's tools and skills to another agent as an MCP server (stdio, or HTTP on loopback)",
		Long: `Serve ollm's built-in tools, its extensions' and MCP servers' tools and
its skills (as prompts) over MCP, for another agent (Claude Code, Gemini
CLI, Codex) to use. It runs on this workspace as ` + "`ollm run`" + ` would: its
current generation, trust boundary and sandbox.

By default it speaks on stdin and stdout. With --http it is a streamable
HTTP server on a loopback address only, at /mcp, and every request needs
the header "Authorization: Bearer TOKEN": the token is read from
--token-file or OLLM_MCP_TOKEN, or else generated and printed once (a
--token-file that does not exist gets a new one, written 0600). A
request from a browser page elsewhere than on this machine (its Origin
header) gets 403 unless --allow-origin or mcp.serve.allowedOrigins
names it.

Up to mcp.serve.maxConcurrent calls (default 32) run at once; a
cancelled call stops and gets no response; a call with a progressToken
gets progress (its command's output lines); logging/setLevel and
completion/complete (skill arguments, workspace paths) are offered.

Every call goes through the same gate as the model's: before_tool hooks,
the policy on the final arguments, a confirmation, the sandbox, after_tool.
A call the policy asks about is asked through the client (MCP
elicitation: allow once or deny) when the client offers it; otherwise it
is refused naming the rule that asked. A denied call is refused with the
policy's reason. Either way the client gets a tool error it can show.`,
		Example: `  ollm mcp serve                            # started by the other agent, on stdio
  ollm mcp serve --approval-mode auto_edit  # edits run without asking
  ollm mcp serve --http 127.0.0.1:8765      # HTTP at http://127.0.0.1:8765/mcp; prints the token
  ollm mcp serve --http :8765 --token-file ~/.ollm/mcp-token`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			switch o.Mode {
			case "", "default", "auto_edit", "plan", "yolo":
			default:
				return &FlagError{Err: fmt.Errorf("--approval-mode %q: want default, auto_edit, plan or yolo", o.Mode)}
			}
			if o.TokenFile != "" && o.HTTP == "" {
				return &FlagError{Err: fmt.Errorf("--token-file is for --http")}
			}
			if len(o.Origins) > 0 && o.HTTP == "" {
				return &FlagError{Err: fmt.Errorf("--allow-origin is for --http")}
			}
			for _, origin := range o.Origins {
				if err := checkOrigin(origin); err != nil {
					return &FlagError{Err: fmt.Errorf("--allow-origin: %w", err)}
				}
			}
			return runMCPServe(cmd.Context(), f, o)
		},
	}
	cmd.Flags().StringVar(&o.Mode, "approval-mode", "", "policy `MODE`: default, auto_edit, plan or yolo")
	cmd.Flags().StringVar(&o.HTTP, "http", "", "serve streamable HTTP on this loopback `ADDRESS` (127.0.0.1:PORT, [::1]:PORT, localhost:PORT or :PORT) instead of stdio")
	cmd.Flags().StringVar(&o.TokenFile, "token-file", "", "read the bearer token from `FILE`, made 0600 (a missing FILE gets a new token; without the flag OLLM_MCP_TOKEN, else a generated one is printed)")
	cmd.Flags().StringSliceVar(&o.Origins, "allow-origin", nil, "also accept requests from this browser `ORIGIN` (scheme://host[:port]; loopback origins always are; also mcp.serve.allowedOrigins)")
	return cmd
}

func runMCPServe(ctx context.Context, f *Factory, o mcpServeOptions) error {
	var hs *httpServe
	if o.HTTP != "" {
		var err error
		// Address and token first: a mistake there costs no runtime.
		if hs, err = listenHTTP(o.HTTP, o.TokenFile, f.Getenv); err != nil {
			return err
		}
		defer hs.ln.Close()
	}
	errOut := f.IO.ErrOut
	id := agent.NewID(f.Now())
	rt, err := f.forWorkspace(f.Global.Workspace).NewRuntime(ctx, runtime.Options{SessionID: id, Mode: o.Mode,
		StartCachedNow: true, // no model request would start them
		OnNotice:       func(s string) { fmt.Fprintf(errOut, "notice: %s\n", s) }})
	if err != nil {
		return err
	}
	defer rt.Close()
	more, err := rt.WaitServers(ctx)
	if err != nil {
		return ErrCancelled
	}
	for _, w := range append(rt.Warnings, more...) {
		fmt.Fprintf(errOut, "warning: %s\n", w)
	}
	conf := rt.Resolved().Profile.MCP.Serve
	maxCalls := conf.MaxConcurrent
	if maxCalls <= 0 {
		maxCalls = defaultServeConcurrency
	}
	var wire *stdioWire
	if hs == nil {
		wire = newStdioWire(f.IO.Out)
	}
	srv := server.NewMCPServer("ollm", Version, server.WithToolCapabilities(false), server.WithPromptCapabilities(false),
		server.WithLogging(), server.WithCompletions(),
		server.WithPromptCompletionProvider(newSkillArgCompleter(rt.Workspace.Root, rt.Skills, rt.Policy, rt.AgentTools())),
		server.WithToolHandlerMiddleware(limitCalls(maxCalls)))
	notify := notifier(func(ctx context.Context, method string, params map[string]any) {
		_ = srv.SendNotificationToClient(ctx, method, params)
	})
	if wire != nil {
		notify = wire.notify
	}
	asker := newServeAsker(ctx, srv, rt.Bus)
	cfg := rt.AgentConfig()
	cfg.System = ""
	cfg.Subagents = nil // a client calls tools itself; no Task tool to delegate with
	cfg.OnEvent = func(e agent.Event) {
		asker.event(e)
		asker.route(e)
		if e.Type == agent.EvNotice {
			fmt.Fprintf(errOut, "notice: %s\n", e.Text)
		}
	}
	s, err := agent.New(cfg)
	if err != nil {
		return err
	}
	defer s.Close(context.WithoutCancel(ctx))
	bctx, stopBus := context.WithCancel(ctx)
	defer stopBus()
	go asker.answer(rt.Bus.Subscribe(bctx, bus.Answerer))

	addTools(srv, rt, s, asker, notify)
	addSkillPrompts(srv, rt.Skills)
	if hs != nil {
		return hs.serve(ctx, srv, f.IO.Out, append(conf.AllowedOrigins, o.Origins...))
	}
	in, stop := wire.reader(f.IO.In)
	defer stop.Close()
	// Every call gets a worker (mcp-go's most); limitCalls bounds how many
	// run, so a read is never queued behind slow calls it did not wait for.
	stdio := server.NewStdioServer(srv)
	stdio.SetErrorLogger(log.New(errOut, "ollm mcp serve: ", 0))
	server.WithWorkerPoolSize(maxServeWorkers)(stdio)
	server.WithQueueSize(10000)(stdio)
	err = stdio.Listen(ctx, in, wire)
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// defaultServeConcurrency is mcp.serve.maxConcurrent's default (the
// profile schema's); maxServeWorkers the most mcp-go's stdio transport
// runs at once, the setting's upper bound.
const (
	defaultServeConcurrency = 32
	maxServeWorkers         = 100
)

// addTools offers every tool the model would see, each call through the
// session's gate (agent.Session.Call).
func addTools(srv *server.MCPServer, rt *runtime.Runtime, s *agent.Session, asker *serveAsker, notify notifier) {
	var seq atomic.Int64
	for _, t := range rt.AgentTools().List() {
		schema := json.RawMessage(`{"type":"object"}`)
		if r, ok := t.(interface{ RawSchema() json.RawMessage }); ok && len(r.RawSchema()) > 0 {
			// An MCP server's tool is offered with its own schema.
			schema = r.RawSchema()
		} else if t.Schema() != nil {
			if b, err := json.Marshal(t.Schema()); err == nil {
				schema = b
			}
		}
		name := t.Name()
		def := mcp.NewToolWithRawSchema(name, t.Description(), schema)
		def.Annotations = toolAnnotations(t)
		srv.AddTool(def, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			args, err := json.Marshal(req.GetRawArguments())
			if err != nil || string(args) == "null" {
				args = json.RawMessage("{}")
			}
			if req.Params.RequestState != "" {
				return asker.resume(ctx, req) // the client's answer to the gate's question
			}
			id := fmt.Sprintf("mcp-%d", seq.Add(1))
			return asker.run(ctx, id, newProgress(ctx, req, notify), func(ctx context.Context) tool.Result {
				res, _ := s.Call(ctx, id, name, args)
				return res
			})
		})
	}
}

func addSkillPrompts(srv *server.MCPServer, reg *skills.Registry) {
	for _, e := range reg.List() {
		opts := []mcp.PromptOption{mcp.WithPromptDescription(e.Description)}
		for _, p := range e.Placeholders {
			opts = append(opts, mcp.WithArgument(p, mcp.RequiredArgument()))
		}
		name := e.Name
		srv.AddPrompt(mcp.NewPrompt(name, opts...), func(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return skillPrompt(reg, name, req.Params.Arguments)
		})
	}
}

func skillPrompt(reg *skills.Registry, name string, args map[string]string) (*mcp.GetPromptResult, error) {
	text, err := reg.Render(name, args)
	if err != nil {
		return nil, err
	}
	return mcp.NewGetPromptResult("", []mcp.PromptMessage{mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent(text))}), nil
}
