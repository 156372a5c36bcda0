package cli

import (
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ollm/ollm/core/runtime"
	"github.com/ollm/ollm/core/sandbox"
	"github.com/ollm/ollm/schema"
	"github.com/ollm/ollm/store"
)

// sandboxEnv is where this invocation's policies resolve: the workspace
// (the directory the tools work in), OLLM_HOME, the user's home and the
// profile's denyRead. In the home directory or OLLM_HOME there is no
// workspace, and nothing sandboxed runs there (a *store.NotWorkspaceError).
func sandboxEnv(f *Factory, r *schema.Resolved, home store.Home) (sandbox.Env, error) {
	ws, err := f.Workspace()
	if err != nil {
		return sandbox.Env{}, err
	}
	return newSandboxEnv(f.Getenv, ws.Root, r, home), nil
}

func newSandboxEnv(getenv func(string) string, root string, r *schema.Resolved, home store.Home) sandbox.Env {
	return runtime.SandboxEnv(getenv, root, r, home)
}

// shellPolicy is the shell tool's sandbox under the profile.
func shellPolicy(f *Factory, r *schema.Resolved, home store.Home) (*sandbox.Policy, error) {
	env, err := sandboxEnv(f, r, home)
	if err != nil {
		return nil, err
	}
	p := sandbox.Resolve(r.Profile.Sandbox.Shell, sandbox.ShellDefault, env)
	return &p, nil
}

// SandboxOptions are the options of `ollm sandbox`.
type SandboxOptions struct {
	IO      *IOStreams
	Factory *Factory
	Preset  string
	Network bool
	Read    []string
	Write   []string
	JSON    bool
	Explain string
	Argv    []string
}

func newCmdSandbox(f *Factory) *cobra.Command {
	o := &SandboxOptions{IO: f.IO, Factory: f}
	cmd := &cobra.Command{
		Use:   "sandbox [--preset P] [--network] [--read PATH] [--write PATH] [--explain PATH | -- CMD ARGS...]",
		Short: "Run a command in the sandbox ollm gives shell commands, or show that sandbox",
		Long: `Sandbox runs CMD exactly as the shell tool would: under the profile's
sandbox.shell (default workspace-write without network) with the flags on
top, through the same kernel sandbox (Landlock, and user, mount and network
namespaces where the kernel allows them). Its exit status is the command's.

Without a command it prints the sandbox: what this machine supports, the
preset, the network, and every path the command may read or write and the
trust files kept read-only.

With --explain PATH it says whether a sandboxed command may write PATH,
only read it, or not see it at all, and which rule decides: the
workspace, the private build cache, a trust file, an entry of the home
allow-list, a secret location, $OLLM_HOME, or "in your home and not on
the allow-list" (sandbox.allowRead in the profile adds a path).

Presets: read-only (read everything outside your home but secret
locations, plus the home allow-list: toolchains and git's settings; write
nothing), workspace-write (also write the workspace, temporary
directories and a private build cache per workspace that GOCACHE,
GOMODCACHE, npm_config_cache, CARGO_HOME, ... point at; ollm.cue,
ollm.lock, .ollm/, .mcp.json, .claude/ and every git directory's hooks,
config and info stay read-only), off (no sandbox). All of $OLLM_HOME is
hidden.`,
		Example: `  ollm sandbox                          # show the shell's sandbox here
  ollm sandbox -- go test ./...         # run as the model's shell commands run
  ollm sandbox --explain ~/.pgpass      # hidden: in your home, not on the allow-list
  ollm sandbox --explain ~/go/bin/gopls # read-only: on the allow-list (Go's GOPATH)
  ollm sandbox --explain .git/config --json
  ollm sandbox --preset read-only -- sh -c 'echo x > f'
  ollm sandbox --network -- curl -sI http://127.0.0.1:8080/
  ollm sandbox --json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Argv = args
			return sandboxRun(cmd, o)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.Preset, "preset", "", "`PRESET`: read-only, workspace-write or off (default: the profile's sandbox.shell)")
	fl.BoolVar(&o.Network, "network", false, "allow the network")
	fl.StringArrayVar(&o.Read, "read", nil, "also allow reading `PATH`")
	fl.StringArrayVar(&o.Write, "write", nil, "also allow writing `PATH`")
	fl.BoolVar(&o.JSON, "json", false, "print the sandbox (or the --explain verdict) as JSON")
	fl.StringVar(&o.Explain, "explain", "", "say whether a sandboxed command may read or write `PATH`, and why")
	return cmd
}

type sandboxReport struct {
	Support sandbox.Support `json:"support"`
	Policy  sandbox.Policy  `json:"policy"`
}

func sandboxRun(cmd *cobra.Command, o *SandboxOptions) error {
	f := o.Factory
	r, err := f.LoadProfile()
	if err != nil {
		return err
	}
	home, err := f.Home()
	if err != nil {
		return err
	}
	decl := r.Profile.Sandbox.Shell
	switch o.Preset {
	case "", schema.SandboxReadOnly, schema.SandboxWorkspaceWrite, schema.SandboxOff:
		if o.Preset != "" {
			decl.Preset = o.Preset
		}
	default:
		return &FlagError{Err: fmt.Errorf("--preset %q: use read-only, workspace-write or off", o.Preset)}
	}
	if cmd.Flags().Changed("network") {
		decl.Network = &o.Network
	}
	decl.Read = append(append([]string(nil), decl.Read...), o.Read...)
	decl.Write = append(append([]string(nil), decl.Write...), o.Write...)
	env, err := sandboxEnv(f, r, home)
	if err != nil {
		return err
	}
	p := sandbox.Resolve(decl, sandbox.ShellDefault, env)
	if o.Explain != "" {
		if len(o.Argv) > 0 {
			return &FlagError{Err: errors.New("--explain takes no command: ollm sandbox --explain PATH")}
		}
		path := o.Explain
		if strings.HasPrefix(path, "~/") || path == "~" {
			path = filepath.Join(env.Home, strings.TrimPrefix(path, "~"))
		} else if !filepath.IsAbs(path) {
			if wd, err := f.Getwd(); err == nil {
				path = filepath.Join(wd, path)
			}
		}
		v := sandbox.Explain(p, env, path)
		if o.JSON {
			return writeJSON(o.IO.Out, v)
		}
		fmt.Fprintf(o.IO.Out, "%s: %s\n", v.Path, v.Access)
		if v.Resolved != "" {
			fmt.Fprintf(o.IO.Out, "  a link to %s (the kernel decides on where it leads)\n", v.Resolved)
		}
		fmt.Fprintf(o.IO.Out, "  %s\n", v.Why)
		if v.Rule != "" {
			fmt.Fprintf(o.IO.Out, "  rule: %s\n", v.Rule)
		}
		return nil
	}
	if len(o.Argv) == 0 {
		rep := sandboxReport{Support: sandbox.Probe(), Policy: p}
		if o.JSON {
			return writeJSON(o.IO.Out, rep)
		}
		printSandbox(o.IO.Out, rep)
		return nil
	}
	return sandboxExec(o, r, p)
}

// sandboxExec runs the command in the workspace (or here) under p, with the
// shell's environment, and exits with its status.
func sandboxExec(o *SandboxOptions, r *schema.Resolved, p sandbox.Policy) error {
	c := exec.Command(o.Argv[0], o.Argv[1:]...)
	if wd, err := o.Factory.Getwd(); err == nil {
		c.Dir = wd
	}
	c.Env = sandbox.Environ(o.Factory.Environ(), r.Profile.Tools.Shell.AllowEnv)
	c.Stdin, c.Stdout, c.Stderr = o.IO.In, o.IO.Out, o.IO.ErrOut
	if err := sandbox.Wrap(c, p); err != nil {
		if !errors.Is(err, sandbox.ErrUnavailable) || r.Profile.Sandbox.Required {
			return &SecurityError{Err: fmt.Errorf("%v; nothing ran (sandbox.required is %t)", err, r.Profile.Sandbox.Required)}
		}
		fmt.Fprintf(o.IO.ErrOut, "warning: running without a sandbox: %v (set sandbox.required: true to refuse instead)\n", err)
	}
	var before []string
	root := ""
	if ws, werr := o.Factory.Workspace(); werr == nil && ws.Root != "" && p.Preset == schema.SandboxWorkspaceWrite {
		root = ws.Root
		before, _ = sandbox.GitDirsUnder(root, gitScanLimit)
	}
	err := runStarted(c)
	if root != "" {
		after, _ := sandbox.GitDirsUnder(root, gitScanLimit)
		for _, h := range sandbox.HoldNewGitDirs(root, before, after) {
			fmt.Fprintf(o.IO.ErrOut, "warning: %s\n", h)
		}
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return &SilentError{Code: ExitCode(ee.ExitCode())}
	}
	if err != nil {
		return fmt.Errorf("run %s: %w", o.Argv[0], err)
	}
	return nil
}

// gitScanLimit bounds the directories looked at for a new .git.
const gitScanLimit = 20000

func printSandbox(w io.Writer, rep sandboxReport) {
	p := rep.Policy
	fmt.Fprintf(w, "kernel:   %s\n", rep.Support.Describe())
	fmt.Fprintf(w, "sandbox:  %s\n", p)
	if p.Off() {
		return
	}
	fmt.Fprintf(w, "write:    %s\n", strings.Join(p.Write, "\n          "))
	if len(p.Protect) > 0 {
		fmt.Fprintf(w, "readonly: %s\n", strings.Join(p.Protect, "\n          "))
	}
	fmt.Fprintf(w, "read:     %s\n", strings.Join(p.Read, "\n          "))
	if p.Cache != "" {
		fmt.Fprintf(w, "cache:    %s (GOCACHE, GOMODCACHE, npm_config_cache, CARGO_HOME, ... point here)\n", p.Cache)
	}
	fmt.Fprintf(w, "hidden:   the rest of your home; all of $OLLM_HOME (ollm sandbox --explain PATH says why)\n")
}

// runStarted runs c as ollm starts its sandboxed processes (sandbox.Start).
func runStarted(c *exec.Cmd) error {
	p, err := sandbox.Start(c)
	if err != nil {
		return err
	}
	return p.Wait()
}
