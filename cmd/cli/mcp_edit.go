package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"mvdan.cc/sh/v3/shell"

	"github.com/ollm/ollm/core/mcp"
	"github.com/ollm/ollm/internal/lazyre"
	"github.com/ollm/ollm/profiles"
	"github.com/ollm/ollm/schema"
	"github.com/ollm/ollm/store"
)

// MCPEditOptions are the options of `ollm mcp add` and `ollm mcp remove`.
type MCPEditOptions struct {
	IO        *IOStreams
	Home      func() (store.Home, error)
	Workspace func() (store.Workspace, error)
	// Validate loads the whole profile; an edit that breaks it is undone.
	Validate func() error
	// Getwd is where relative paths in --command were typed.
	Getwd func() (string, error)
	// Appears says when an added server shows in `ollm mcp list`
	// (mcpServerAppears); nil says nothing.
	Appears func(name string) string

	Name      string
	Command   string
	URL       string
	Transport string
	Env       []string
	Headers   []string
	User      bool
	JSON      bool
	Verb      string      // the subcommand an approval names; "" : add or remove
	OwnEdit   ownEditFunc // approves what a workspace edit writes (trust_apply.go)
}

func newMCPEditOptions(f *Factory) *MCPEditOptions {
	return &MCPEditOptions{IO: f.IO, Home: f.Home, Workspace: f.Workspace, Getwd: f.Getwd, OwnEdit: newOwnEdit(f),
		Validate: func() error { _, err := f.LoadFiles(); return err },
		Appears:  func(name string) string { return mcpServerAppears(f, name) }}
}

func newCmdMCPAdd(f *Factory) *cobra.Command {
	o := newMCPEditOptions(f)
	cmd := &cobra.Command{
		Use:   `add <name> (--command "CMD ARGS" | --url URL [--transport sse|http])`,
		Short: "Declare an MCP server in the workspace or user profile",
		Long: `Add mcp.servers.<name> to the workspace ollm.cue (with --user, to
$OLLM_HOME/profile.cue). The file is edited through CUE's syntax tree, so its
comments and layout stay as they were. --command is split as a shell would;
--url talks streamable HTTP, or SSE when the path ends in /sse or
--transport sse says so. Values may use ${VAR} and ${VAR:-default}, expanded
when the server starts. A name that is already declared is refused (exit 2)
with the file:line of the existing declaration. In an approved workspace the
edit is approved with the command (it shows what it adds); in one with
changes nobody approved yet, its servers start after ` + "`ollm trust`" + `.`,
		Example: `  ollm mcp add fs --command "npx -y @modelcontextprotocol/server-filesystem ."
  ollm mcp add github --url https://api.example.com/mcp --header 'Authorization=Bearer ${GITHUB_TOKEN}'
  ollm mcp add notes --command "notes-mcp --stdio" --env NOTES_DIR=~/notes --user`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Name = args[0]
			return mcpAddRun(o)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.Command, "command", "", "the stdio server's `\"CMD ARGS\"`")
	fl.StringVar(&o.URL, "url", "", "the HTTP server's `URL`")
	fl.StringVar(&o.Transport, "transport", "", "`sse` or `http` for --url (default: sse when the path ends in /sse, else http)")
	fl.StringArrayVar(&o.Env, "env", nil, "environment variable `K=V` for the server (repeatable)")
	fl.StringArrayVar(&o.Headers, "header", nil, "HTTP header `K=V` for --url (repeatable)")
	fl.BoolVar(&o.User, "user", false, "edit the user profile ($OLLM_HOME/profile.cue) instead of the workspace's ollm.cue")
	fl.BoolVar(&o.JSON, "json", false, "print what was written as JSON")
	return cmd
}

func newCmdMCPRemove(f *Factory) *cobra.Command {
	o := newMCPEditOptions(f)
	cmd := &cobra.Command{
		Use:   "remove <name>",
		Short: "Remove an MCP server from the workspace or user profile",
		Long: `Remove mcp.servers.<name> from the workspace ollm.cue (with --user, from
$OLLM_HOME/profile.cue), keeping the rest of the file as it was. Servers from
extensions or .mcp.json are not declared there: turn those off with
mcp.overrides.<name>.enabled: false, or edit .mcp.json.`,
		Example: `  ollm mcp remove fs
  ollm mcp remove notes --user`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Name = args[0]
			return mcpRemoveRun(o)
		},
	}
	cmd.Flags().BoolVar(&o.User, "user", false, "edit the user profile ($OLLM_HOME/profile.cue) instead of the workspace's ollm.cue")
	cmd.Flags().BoolVar(&o.JSON, "json", false, "print what was removed as JSON")
	return cmd
}

// mcpEditResult is what --json prints.
type mcpEditResult struct {
	Action string            `json:"action"` // added | removed
	Name   string            `json:"name"`
	File   string            `json:"file"`
	Server *schema.MCPServer `json:"server,omitempty"`
}

func mcpAddRun(o *MCPEditOptions) error {
	cfg, err := mcpServerFromFlags(o.Name, o.Command, o.URL, o.Transport, o.Env, o.Headers)
	if err != nil {
		return &FlagError{Err: err}
	}
	if o.User && o.Getwd != nil {
		// A relative path in the user profile resolves against
		// $OLLM_HOME; the user typed it relative to here.
		if wd, err := o.Getwd(); err == nil {
			cfg.Command, cfg.Args = absTyped(wd, cfg.Command, cfg.Args)
		}
	}
	pf, err := o.files()
	if err != nil {
		return err
	}
	path := pf.path
	if pos, err := declaredIn(pf.other, o.Name); err != nil || pos != "" {
		if err == nil {
			err = fmt.Errorf("MCP server %q is already declared at %s; the two profiles would conflict. Pick another name, or remove it there first: ollm mcp remove %s%s",
				o.Name, pos, o.Name, userFlag(!o.User))
		}
		return &ConfigError{Err: err}
	}
	if err := o.edit(pf, func(data []byte) ([]byte, error) {
		return profiles.AddMCPServer(path, data, o.Name, cfg)
	}); err != nil {
		return err
	}
	if o.JSON {
		return writeJSON(o.IO.Out, mcpEditResult{Action: "added", Name: o.Name, File: path, Server: &cfg})
	}
	fmt.Fprintf(o.IO.Out, "added MCP server %s to %s\n", o.Name, path)
	if o.Appears != nil {
		fmt.Fprintln(o.IO.Out, o.Appears(o.Name))
	}
	return nil
}

func mcpRemoveRun(o *MCPEditOptions) error {
	pf, err := o.files()
	if err != nil {
		return err
	}
	path := pf.path
	err = o.edit(pf, func(data []byte) ([]byte, error) {
		return profiles.RemoveMCPServer(path, data, o.Name)
	})
	if errors.Is(err, profiles.ErrMCPServerNotFound) {
		return &FlagError{Err: notDeclaredError(o.Name, path, pf.other, !o.User)}
	}
	if err != nil {
		return err
	}
	if o.JSON {
		return writeJSON(o.IO.Out, mcpEditResult{Action: "removed", Name: o.Name, File: path})
	}
	fmt.Fprintf(o.IO.Out, "removed MCP server %s from %s\n", o.Name, path)
	return nil
}

// notDeclaredError says where the server is, if it is in the other profile.
func notDeclaredError(name, path, other string, otherIsUser bool) error {
	if pos, err := declaredIn(other, name); err == nil && pos != "" {
		return fmt.Errorf("MCP server %q is not declared in %s but at %s; run: ollm mcp remove %s%s", name, path, pos, name, userFlag(otherIsUser))
	}
	return fmt.Errorf("MCP server %q is not declared in %s; `ollm mcp list` shows every server and where it comes from (extension servers are named ext:server and turned off with mcp.overrides)", name, path)
}

func userFlag(on bool) string {
	if on {
		return " --user"
	}
	return ""
}

// profileFiles are the profile file to edit, the other layer's, and the
// lock that serialises edits of the first (for the workspace, the one
// profile apply takes, kept under OLLM_HOME so nothing is left in the
// project).
type profileFiles struct{ path, other, lock string }

func (o *MCPEditOptions) files() (profileFiles, error) {
	home, err := o.Home()
	if err != nil {
		return profileFiles{}, err
	}
	ws, err := o.Workspace()
	var none *store.NotWorkspaceError
	if o.User && errors.As(err, &none) {
		// In the home directory: the user profile alone.
		return profileFiles{path: home.Profile(), lock: home.Profile()}, nil
	}
	if err != nil {
		return profileFiles{}, err
	}
	if o.User {
		return profileFiles{path: home.Profile(), other: ws.Profile(), lock: home.Profile()}, nil
	}
	return profileFiles{path: ws.Profile(), other: home.Profile(), lock: home.WorkspaceLock(ws.Root)}, nil
}

// declaredIn is the file:line where path declares the server, "" when it
// does not (or does not exist).
func declaredIn(path, name string) (string, error) {
	if path == "" {
		return "", nil
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return profiles.FindMCPServer(path, data, name)
}

// edit rewrites the file (atomically, under its lock) with what edit makes
// of its bytes, then loads the whole profile; an edit that breaks a
// profile that loaded before is undone.
func (o *MCPEditOptions) edit(pf profileFiles, edit func([]byte) ([]byte, error)) error {
	path := pf.path
	unlock, err := store.Lock(pf.lock)
	if err != nil {
		return err
	}
	defer unlock()
	old, err := os.ReadFile(path)
	existed := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	data, err := edit(old)
	if err != nil {
		var pe *profiles.Error
		if errors.As(err, &pe) {
			return &ConfigError{Err: err}
		}
		return err
	}
	loadedBefore := o.Validate() == nil
	var own ownEdit
	if !o.User && o.OwnEdit != nil {
		own = o.OwnEdit(filepath.Dir(path))
	}
	if err := store.WriteFile(path, data, store.PermShared); err != nil {
		return err
	}
	verr := o.Validate()
	if verr == nil {
		verb := o.Verb
		if verb == "" {
			verb = map[bool]string{true: "add", false: "remove"}[o.Command != "" || o.URL != ""]
		}
		return own.approve(notesTo(o.IO, o.JSON), "ollm mcp "+verb)
	}
	if !loadedBefore {
		return nil
	}
	if existed {
		err = store.WriteFile(path, old, store.PermShared)
	} else {
		err = os.Remove(path)
	}
	if err != nil {
		return fmt.Errorf("%w\n(and %s could not be restored: %v)", verr, path, err)
	}
	return fmt.Errorf("%w\n%s left unchanged", verr, path)
}

// nameRE is the profile schema's #Name.
var nameRE = lazyre.New(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// mcpServerFromFlags builds the server `ollm mcp add` declares.
func mcpServerFromFlags(name, command, rawURL, transport string, env, headers []string) (schema.MCPServer, error) {
	var cfg schema.MCPServer
	if !nameRE.MatchString(name) {
		return cfg, fmt.Errorf("server name %q: use letters, digits, '.', '_' and '-', starting with a letter or digit (at most 64)", name)
	}
	var err error
	if cfg.Env, err = keyValues("--env", env); err != nil {
		return cfg, err
	}
	switch {
	case command != "" && rawURL != "":
		return cfg, errors.New("give --command or --url, not both")
	case command != "":
		if transport != "" || len(headers) > 0 {
			return cfg, errors.New("--transport and --header go with --url; a --command server speaks stdio")
		}
		words, err := shell.Fields(command, nil)
		if err != nil || len(words) == 0 {
			return cfg, fmt.Errorf("--command %q: give the command and its arguments, as a shell would split them", command)
		}
		cfg.Command, cfg.Args = words[0], words[1:]
		return cfg, nil
	case rawURL != "":
		cfg.URL = rawURL
		cfg.Transport, err = urlTransport(rawURL, transport)
		if err != nil {
			return cfg, err
		}
		cfg.Headers, err = keyValues("--header", headers)
		return cfg, err
	default:
		return cfg, errors.New(`give the server: --command "CMD ARGS" or --url URL`)
	}
}

// urlTransport checks an --url (a ${VAR} in it is left for start-up) and
// picks its transport.
func urlTransport(rawURL, transport string) (string, error) {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return "", fmt.Errorf("--url %q: want an http:// or https:// URL", rawURL)
	}
	switch transport {
	case mcp.TransportSSE, mcp.TransportHTTP:
		return transport, nil
	case "":
		if strings.HasSuffix(u.Path, "/sse") {
			return mcp.TransportSSE, nil
		}
		return mcp.TransportHTTP, nil
	default:
		return "", fmt.Errorf("--transport %q: want sse or http", transport)
	}
}

// keyValues parses repeated K=V flags.
func keyValues(flag string, kvs []string) (map[string]string, error) {
	if len(kvs) == 0 {
		return nil, nil
	}
	out := make(map[string]string, len(kvs))
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, fmt.Errorf("%s %q: want KEY=VALUE", flag, kv)
		}
		out[strings.TrimSpace(k)] = v
	}
	return out, nil
}

// absTyped makes the command and arguments that name existing files
// relative to wd absolute.
func absTyped(wd, command string, args []string) (string, []string) {
	abs := func(s string) string {
		if s == "" || filepath.IsAbs(s) || strings.HasPrefix(s, "-") {
			return s
		}
		if _, err := os.Stat(filepath.Join(wd, s)); err == nil {
			return filepath.Join(wd, s)
		}
		return s
	}
	if strings.Contains(command, "/") {
		command = abs(command)
	}
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = abs(a)
	}
	return command, out
}
