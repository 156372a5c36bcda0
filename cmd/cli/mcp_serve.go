package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/spf13/cobra"

	"github.com/ollm/ollm/core/agent"
	"github.com/ollm/ollm/core/runtime"
	"github.com/ollm/ollm/core/skills"
)

func newCmdMCPServe(f *Factory) *cobra.Command {
	var mode string
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve ollm's tools and skills to another agent as an MCP server on stdio",
		Long: `Serve ollm's built-in tools, its extensions' and MCP servers' tools and
its skills (as prompts) over MCP on stdin and stdout, for another agent
(Claude Code, Gemini CLI, Codex) to use. It runs on this workspace as
` + "`ollm run`" + ` would: its current generation, trust boundary and sandbox.

Every call goes through the same gate as the model's: before_tool hooks,
the policy on the final arguments, a confirmation, the sandbox, after_tool.
Nobody can confirm here, so a call the policy asks about is refused with
the rule that asked; a denied call is refused with the policy's reason.
Either way the client gets a tool error it can show.`,
		Example: `  ollm mcp serve                            # started by the other agent
  ollm mcp serve --approval-mode auto_edit  # edits run without asking`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			switch mode {
			case "", "default", "auto_edit", "plan", "yolo":
			default:
				return &FlagError{Err: fmt.Errorf("--approval-mode %q: want default, auto_edit, plan or yolo", mode)}
			}
			return runMCPServe(cmd.Context(), f, mode)
		},
	}
	cmd.Flags().StringVar(&mode, "approval-mode", "", "policy `MODE`: default, auto_edit, plan or yolo")
	return cmd
}

func runMCPServe(ctx context.Context, f *Factory, mode string) error {
	errOut := f.IO.ErrOut
	id := agent.NewID(f.Now())
	rt, err := f.forWorkspace(f.Global.Workspace).NewRuntime(ctx, runtime.Options{SessionID: id, Mode: mode,
		OnNotice: func(s string) { fmt.Fprintf(errOut, "notice: %s\n", s) }})
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
	cfg := rt.AgentConfig()
	cfg.System = ""
	cfg.OnEvent = func(e agent.Event) {
		if e.Type == agent.EvNotice {
			fmt.Fprintf(errOut, "notice: %s\n", e.Text)
		}
	}
	s, err := agent.New(cfg)
	if err != nil {
		return err
	}
	defer s.Close(context.WithoutCancel(ctx))

	srv := server.NewMCPServer("ollm", Version, server.WithToolCapabilities(false), server.WithPromptCapabilities(false))
	var seq atomic.Int64
	for _, t := range rt.AgentTools().List() {
		schema := json.RawMessage(`{"type":"object"}`)
		if t.Schema() != nil {
			if b, err := json.Marshal(t.Schema()); err == nil {
				schema = b
			}
		}
		name := t.Name()
		srv.AddTool(mcp.NewToolWithRawSchema(name, t.Description(), schema), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			args, err := json.Marshal(req.GetRawArguments())
			if err != nil || string(args) == "null" {
				args = json.RawMessage("{}")
			}
			res, _ := s.Call(ctx, fmt.Sprintf("mcp-%d", seq.Add(1)), name, args)
			text := res.ForModel
			if res.Error != nil {
				if text == "" {
					text = res.Error.Message
				}
				return mcp.NewToolResultError(text), nil
			}
			return mcp.NewToolResultText(text), nil
		})
	}
	for _, e := range rt.Skills.List() {
		opts := []mcp.PromptOption{mcp.WithPromptDescription(e.Description)}
		for _, p := range e.Placeholders {
			opts = append(opts, mcp.WithArgument(p, mcp.RequiredArgument()))
		}
		name := e.Name
		srv.AddPrompt(mcp.NewPrompt(name, opts...), func(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return skillPrompt(rt.Skills, name, req.Params.Arguments)
		})
	}
	err = server.NewStdioServer(srv).Listen(ctx, f.IO.In, f.IO.Out)
	if ctx.Err() != nil {
		return nil
	}
	return err
}

func skillPrompt(reg *skills.Registry, name string, args map[string]string) (*mcp.GetPromptResult, error) {
	text, err := reg.Render(name, args)
	if err != nil {
		return nil, err
	}
	return mcp.NewGetPromptResult("", []mcp.PromptMessage{mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent(text))}), nil
}
