package cli

import (
	"context"
	"fmt"
	"os/exec"
	"runtime"
	"time"

	"github.com/spf13/cobra"

	"github.com/ollm/ollm/core/mcp"
	"github.com/ollm/ollm/store"
)

// MCPLoginOptions are the options of `ollm mcp login` and `ollm mcp logout`.
type MCPLoginOptions struct {
	IO      *IOStreams
	Context context.Context
	Home    func() (store.Home, error)
	// Specs lists the servers of the profile.
	Specs   func() ([]mcp.Spec, []string, error)
	Environ func() []string
	// OpenURL shows the authorization page; the default prints it and,
	// with a terminal, starts the system's browser.
	OpenURL func(url string) error
	Name    string
	Timeout time.Duration
	JSON    bool
}

func newMCPLoginOptions(f *Factory) *MCPLoginOptions {
	o := &MCPLoginOptions{IO: f.IO, Context: f.Context, Home: f.Home, Environ: f.Environ}
	o.Specs = func() ([]mcp.Spec, []string, error) {
		r, err := f.LoadProfile()
		if err != nil {
			return nil, nil, err
		}
		var roots []string
		if r.Workspace != "" {
			roots = []string{r.Workspace}
		}
		return mcp.Specs(r), roots, nil
	}
	o.OpenURL = browserOpener(f.IO, startBrowser)
	return o
}

func newCmdMCPLogin(f *Factory) *cobra.Command {
	o := newMCPLoginOptions(f)
	cmd := &cobra.Command{
		Use:   "login <server>",
		Short: "Authorize ollm at an HTTP MCP server that requires OAuth",
		Long: `Log in to an HTTP MCP server that answers 401: ollm finds its authorization
server (the server's WWW-Authenticate challenge, its protected resource
metadata, the authorization server's metadata), registers itself as a client,
and prints the authorization page's URL (opening it in the browser when a
terminal is attached). After you approve, the browser comes back to a
listener on 127.0.0.1 with a code that ollm exchanges, with its PKCE
verifier, for tokens. They are stored with mode 0600 under
$OLLM_HOME/tokens and refreshed when they expire or the server refuses them.
Sessions without a terminal cannot log in; they say to run this command.`,
		Example: `  ollm mcp login github
  ollm mcp login github --timeout 10m`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Name = args[0]
			return mcpLoginRun(o)
		},
	}
	cmd.Flags().DurationVar(&o.Timeout, "timeout", mcp.DefaultLoginTimeout, "how long to wait for the browser")
	return cmd
}

func newCmdMCPLogout(f *Factory) *cobra.Command {
	o := newMCPLoginOptions(f)
	cmd := &cobra.Command{
		Use:   "logout <server>",
		Short: "Delete the OAuth tokens stored for an MCP server",
		Long: `Delete the tokens ` + "`ollm mcp login`" + ` stored for the server under $OLLM_HOME/tokens.
The next connection needs a new login. The server need not be in the profile
any more.`,
		Example: `  ollm mcp logout github`,
		Args:    exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Name = args[0]
			return mcpLogoutRun(o)
		},
	}
	cmd.Flags().BoolVar(&o.JSON, "json", false, "print the result as JSON")
	return cmd
}

func mcpLoginRun(o *MCPLoginOptions) error {
	specs, roots, err := o.Specs()
	if err != nil {
		return err
	}
	spec, err := findSpec(specs, o.Name)
	if err != nil {
		return err
	}
	home, err := o.Home()
	if err != nil {
		return err
	}
	err = mcp.Login(o.Context, spec, mcp.LoginOptions{TokenDir: home.Tokens(), Environ: o.Environ(),
		Roots: roots, OpenURL: o.OpenURL, Timeout: o.Timeout})
	if err != nil {
		return err
	}
	fmt.Fprintf(o.IO.Out, "logged in to MCP server %s; tokens stored in %s\n", o.Name, mcp.TokenPath(home.Tokens(), o.Name))
	return nil
}

// findSpec is the profile's HTTP server called name.
func findSpec(specs []mcp.Spec, name string) (mcp.Spec, error) {
	for _, s := range specs {
		if s.Name != name {
			continue
		}
		if s.Transport() == mcp.TransportStdio {
			return s, &FlagError{Err: fmt.Errorf("MCP server %q runs over stdio; OAuth login is for HTTP servers (--url)", name)}
		}
		return s, nil
	}
	return mcp.Spec{}, &FlagError{Err: fmt.Errorf("no MCP server %q in the profile; `ollm mcp list` shows them", name)}
}

func mcpLogoutRun(o *MCPLoginOptions) error {
	home, err := o.Home()
	if err != nil {
		return err
	}
	had, err := mcp.Logout(home.Tokens(), o.Name)
	if err != nil {
		return err
	}
	if o.JSON {
		return writeJSON(o.IO.Out, map[string]any{"server": o.Name, "removed": had})
	}
	if had {
		fmt.Fprintf(o.IO.Out, "logged out of MCP server %s; its tokens are deleted\n", o.Name)
	} else {
		fmt.Fprintf(o.IO.Out, "no tokens stored for MCP server %s\n", o.Name)
	}
	return nil
}

// browserOpener prints the authorization URL and, when a terminal is
// attached, asks the system to open it (start runs the opener). Failing
// to start a browser is not an error: the URL is on the screen.
func browserOpener(io *IOStreams, start func(url string) error) func(string) error {
	return func(url string) error {
		fmt.Fprintf(io.ErrOut, "To authorize ollm, open this page:\n\n  %s\n\n", url)
		if io.StdinTTY || io.StderrTTY {
			if err := start(url); err != nil {
				fmt.Fprintf(io.ErrOut, "(could not start a browser: %v; open the page yourself)\n", err)
			}
		}
		fmt.Fprintln(io.ErrOut, "Waiting for the browser to come back...")
		return nil
	}
}

// startBrowser opens url with xdg-open (open on macOS).
func startBrowser(url string) error {
	name := "xdg-open"
	if runtime.GOOS == "darwin" {
		name = "open"
	}
	cmd := exec.Command(name, url)
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() { _ = cmd.Wait() }()
	return nil
}

// mcpAuth sets the OAuth options of a Manager: the token directory, and a
// browser login only when the user can be asked; without a terminal a
// server that needs a login fails, naming `ollm mcp login <server>`.
func mcpAuth(o *mcp.Options, home store.Home, io *IOStreams) {
	o.TokenDir = home.Tokens()
	if io.CanPrompt() {
		o.OpenURL = browserOpener(io, startBrowser)
	}
}
