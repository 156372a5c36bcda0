package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/ollm/ollm/core/acp"
	"github.com/ollm/ollm/core/runtime"
)

func newCmdACP(f *Factory) *cobra.Command {
	var mode string
	cmd := &cobra.Command{
		Use:   "acp",
		Short: "Serve the Agent Client Protocol on stdio, for editors (Zed, Neovim, Emacs)",
		Long: `Run ollm as an Agent Client Protocol (ACP) agent: an editor starts it and
talks JSON-RPC on stdin and stdout (stderr carries diagnostics). Each
session runs on the workspace the editor names (session/new's cwd) exactly
as ` + "`ollm run`" + ` would there: its current generation, the trust boundary, the
sandbox, hooks, extensions, MCP servers and the policy.

Prompts stream the answer, thoughts, tool calls (kind, status, locations
and the diff of an edit) and write_todos's list as the plan. A call the
policy asks about becomes the editor's permission prompt: allow once, allow
always (saved to the user profile like the TUI's "always"; for a shell
command also its sub-command only) or reject. Extensions' notifications
appear as lines of the agent's message, labelled with the extension.
Unapproved workspace hooks and servers are asked about the same way before
the first prompt, and so are the MCP servers the editor passes (once per
configuration when allowed always). Session modes are the approval modes
(default, auto_edit, plan, yolo); the session's config options are the
model (the ones the provider lists; as /model NAME) and the same approval
mode. Skills are slash commands; session/list, session/load,
session/resume and session/fork reach any saved session in
$OLLM_HOME/sessions. The editor's additionalDirectories are granted to the
file tools and the shell's sandbox (secret paths and $OLLM_HOME refused).
An MCP server's request for a completion of the model, or for input that
fits the permission prompt's options, is asked in the editor. Images in a
prompt go to a model that sees. When the
editor offers file access, read_file, write_file and edit_file go through
it (unsaved buffers are seen, edits land in them), still through the
policy. When the editor offers terminals, shell commands run in one (the
editor shows it live) but still inside ollm's sandbox: the editor is given
ollm's own executable with the shell's policy, which enters the sandbox
before the command runs. Where ollm cannot sandbox, commands run in ollm as
in a terminal session, never unsandboxed in the editor.

docs/editors.md has the configuration for Zed, Neovim and Emacs.`,
		Example: `  ollm acp                          # started by the editor, not by hand
  ollm acp --approval-mode auto_edit # sessions start with edits allowed
  ollm --model qwen3:8b acp         # another model for editor sessions`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			switch mode {
			case "", "default", "auto_edit", "plan", "yolo":
			default:
				return &FlagError{Err: fmt.Errorf("--approval-mode %q: want default, auto_edit, plan or yolo", mode)}
			}
			return runACP(cmd.Context(), f, mode)
		},
	}
	cmd.Flags().StringVar(&mode, "approval-mode", "", "`MODE` sessions start in: default, auto_edit, plan or yolo (the editor can switch it)")
	cmd.AddCommand(newCmdACPTerminalExec())
	return cmd
}

// newCmdACPTerminalExec is the command line ollm gives an editor's
// terminal (sandbox.External): the sandbox trampoline, which runs before
// Go starts, takes over when the policy is in the environment. Reaching
// this command means the editor dropped the environment, so the policy is
// missing: nothing runs.
func newCmdACPTerminalExec() *cobra.Command {
	return &cobra.Command{
		Use:                "terminal-exec -- COMMAND [ARG...]",
		Short:              "Run a shell command in ollm's sandbox for an editor's terminal (internal)",
		Hidden:             true,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			return fmt.Errorf("ollm sandbox: the editor started this command without the environment ollm gave it, so the sandbox policy is missing; nothing ran")
		},
	}
}

func runACP(ctx context.Context, f *Factory, mode string) error {
	home, err := f.Home()
	if err != nil {
		return err
	}
	return acp.Serve(ctx, acp.Options{
		Home: home, Mode: mode, Version: Version, Now: f.Now, Log: f.IO.ErrOut, SwitchModel: switchModel,
		NewRuntime: func(ctx context.Context, cwd string, o runtime.Options) (*runtime.Runtime, error) {
			return f.forWorkspace(cwd).NewRuntime(ctx, o)
		},
	}, f.IO.In, f.IO.Out)
}

// forWorkspace is the factory of an editor's session: the workspace the
// editor named, and stdout kept for the protocol (whatever a command
// would print goes to stderr).
func (f *Factory) forWorkspace(dir string) *Factory {
	g := f.Global
	g.Workspace = dir
	return &Factory{IO: &IOStreams{In: eofReader{}, Out: f.IO.ErrOut, ErrOut: f.IO.ErrOut},
		Getenv: f.Getenv, Environ: f.Environ, Getwd: f.Getwd, Now: f.Now, Context: f.Context, Global: g}
}

type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }
