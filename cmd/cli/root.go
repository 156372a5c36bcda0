package cli

import (
	"context"
	"errors"
	"fmt"
	"github.com/ollm/ollm/internal/secrets"
	"os"
	"os/signal"
	"strconv"
	"syscall"

	"github.com/spf13/cobra"
)

// Main runs ollm with the process's arguments and returns its exit code.
func Main() ExitCode {
	resolveVersion()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	f := NewFactory(ctx)
	return Run(f, os.Args[1:])
}

// Run executes the command line args against f and maps the result to an
// exit code. Errors are printed once, here.
func Run(f *Factory, args []string) ExitCode {
	root := NewCmdRoot(f)
	root.SetArgs(args)
	root.SetIn(f.IO.In)
	root.SetOut(f.IO.Out)
	root.SetErr(f.IO.ErrOut)
	cmd, err := root.ExecuteContextC(f.Context)
	if err == nil {
		return ExitOK
	}
	var si *SilentError
	if !errors.As(err, &si) {
		fmt.Fprintf(f.IO.ErrOut, "ollm: %s\n", scrubError(f, err))
		var fe *FlagError
		if errors.As(err, &fe) && cmd != nil {
			fmt.Fprintf(f.IO.ErrOut, "Run '%s --help' for usage.\n", cmd.CommandPath())
		}
	}
	if f.Context.Err() != nil {
		return ExitCancelled
	}
	return exitCodeFor(err)
}

// scrubError is err's message as the user sees it: the values of the
// environment's secret-looking variables cut out and every URL's
// credentials hidden (internal/secrets.Scrub), whatever part of ollm
// wrote the message.
func scrubError(f *Factory, err error) string {
	var env []string
	if f.Environ != nil {
		env = f.Environ()
	}
	return secrets.Scrub(err.Error(), secrets.FromEnv(env))
}

// NewCmdRoot builds the command tree.
func NewCmdRoot(f *Factory) *cobra.Command {
	root := &cobra.Command{
		Use:   "ollm",
		Short: "A terminal agent for local models, configured by one CUE profile",
		Long: `ollm is a terminal agent for local models (Ollama first, OpenAI-compatible
servers second). Its whole configuration - model, hooks, extensions, MCP
servers, policy rules, settings and skills - is one CUE-validated profile:
the builtin defaults, your user profile ($OLLM_HOME/profile.cue) and the
workspace's ollm.cue, unified and pinned by ollm.lock.`,
		Example: `  ollm profile init          # write a starter ollm.cue in this directory
  ollm profile show          # print the resolved profile
  ollm profile validate      # check every layer and extension manifest`,
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return &FlagError{Err: err} })
	pf := root.PersistentFlags()
	pf.StringVarP(&f.Global.Workspace, "workspace", "C", "", "run as if started in `DIR`")
	pf.StringArrayVar(&f.Global.Ext, "ext", nil, "load the extension at `PATH` for this run (wins over an installed copy)")
	pf.StringVar(&f.Global.Model, "model", "", "use `NAME` as the model for this run")
	pf.VarP(verboseFlag{f}, "verbose", "v", "log more detail to stderr (each value an unapproved workspace holds back, too)")
	pf.Lookup("verbose").NoOptDefVal = "true"

	for _, newCmd := range commands {
		root.AddCommand(newCmd(f))
	}
	hookRoot(f, root)
	attachSession(root, f)       // `ollm` alone opens the TUI in a terminal (session.go)
	registerCompletions(f, root) // names for shell completion (complete.go)
	return root
}

// verboseFlag is -v: it sets Global.Verbose and IOStreams.Verbose, which
// the commands that print problems read.
type verboseFlag struct{ f *Factory }

func (v verboseFlag) String() string {
	if v.f == nil {
		return "false"
	}
	return strconv.FormatBool(v.f.Global.Verbose)
}

func (v verboseFlag) Set(s string) error {
	b, err := strconv.ParseBool(s)
	if err != nil {
		return err
	}
	v.f.Global.Verbose = b
	if v.f.IO != nil {
		v.f.IO.Verbose = b
	}
	return nil
}

func (verboseFlag) Type() string     { return "bool" }
func (verboseFlag) IsBoolFlag() bool { return true }

// commands lists the top-level command constructors. Add one line per
// command group (each lives in its own file).
var commands = []func(*Factory) *cobra.Command{
	newCmdVersion,
	newCmdProfile,
	newCmdHooks,
	newCmdTrust,
	newCmdTools,
	newCmdExt,
	newCmdSkills,
	newCmdStore,
	newCmdMCP,
	newCmdRun,
	newCmdPolicy,
	newCmdDoctor,
	newCmdModel,
	newCmdSandbox,
	newCmdACP,
}
