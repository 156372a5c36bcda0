package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"mvdan.cc/sh/v3/shell"

	"github.com/ollm/ollm/core/mcp"
	"github.com/ollm/ollm/core/tool"
	"github.com/ollm/ollm/profiles"
	"github.com/ollm/ollm/schema"
	"github.com/ollm/ollm/store"
	"github.com/ollm/ollm/tools"
)

func newCmdMCP(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Inspect, call, read, add and remove MCP servers",
		Long: `MCP servers bring external tools. They come from the profile (mcp.servers),
from extensions and from a workspace .mcp.json; workspace servers start only
after ` + "`ollm trust`" + ` approves the workspace. These commands start the servers,
show their status, tools, resources and prompts, call a tool and read a
resource by hand. --url URL or
--command "cmd args" talks to one server without any profile. add and remove
edit mcp.servers in the workspace ollm.cue or, with --user, the user profile;
login and logout manage the OAuth tokens of HTTP servers that require them.`,
		Example: `  ollm mcp list
  ollm mcp tools github
  ollm mcp call github search_issues '{"query":"is:open label:bug"}'
  ollm mcp tools --command "npx -y @modelcontextprotocol/server-everything"
  ollm mcp call --url http://127.0.0.1:3001/mcp echo '{"message":"hi"}'
  ollm mcp add fs --command "npx -y @modelcontextprotocol/server-filesystem ."
  ollm mcp remove fs
  ollm mcp login github`,
		Args: noArgs,
	}
	cmd.AddCommand(newCmdMCPList(f), newCmdMCPTools(f), newCmdMCPCall(f), newCmdMCPResources(f), newCmdMCPRead(f),
		newCmdMCPPrompts(f), newCmdMCPAdd(f), newCmdMCPRemove(f), newCmdMCPImport(f), newCmdMCPLogin(f), newCmdMCPLogout(f),
		newCmdMCPServe(f))
	return cmd
}

// MCPOptions are shared by the mcp subcommands.
type MCPOptions struct {
	IO      *IOStreams
	Context context.Context
	// Manager starts the servers to talk to: the profile's, or the ad-hoc
	// one given by URL or Command.
	Manager func(o *MCPOptions) (*mcp.Manager, error)
	URL     string
	Command string
	JSON    bool
	Timeout time.Duration
	// Only names the one server the command is about: the others are not
	// started at all.
	Only string
	// OnlyToo is a second candidate for Only: "a:b" may be the server
	// "a:b" (an extension's) or the tool b of server a.
	OnlyToo string
	// UseToolCache: take the servers' tools from the tool cache when it
	// is for the server that answers (mcp call): no tools/list first.
	UseToolCache bool
	// StopWhenReady: the command shows statuses and tools only (mcp list,
	// mcp tools), so each server is stopped as soon as it is ready.
	StopWhenReady bool
	// Elicit is what a server's request for input gets without a
	// terminal (mcp call's --elicit); "" leaves elicitation unoffered.
	Elicit string

	// problems are the profile's problems with the servers' configuration
	// (an invalid .mcp.json), reported by mcp list.
	problems []schema.Problem
}

// oneShotStopGrace is how long a command that exits right after its work
// gives a stdio server between closing its stdin and SIGTERM. A server
// that exits on EOF (most do) is gone in a few milliseconds; one that
// ignores it (server-everything) would otherwise hold every command up
// by the whole grace.
const oneShotStopGrace = 25 * time.Millisecond

// mcpManagerBuilt, set only by tests, is given the options each mcp
// subcommand's Manager is built with (TestOneShotStopGrace).
var mcpManagerBuilt func(mcp.Options)

func (o *MCPOptions) adHoc() bool { return o.URL != "" || o.Command != "" }

func addMCPFlags(cmd *cobra.Command, o *MCPOptions) {
	fl := cmd.Flags()
	fl.StringVar(&o.URL, "url", "", "talk to the MCP server at `URL` (streamable HTTP; SSE when the path ends in /sse) instead of the profile's")
	fl.StringVar(&o.Command, "command", "", "start `\"CMD ARGS\"` as a stdio MCP server instead of the profile's")
	fl.BoolVar(&o.JSON, "json", false, "print JSON")
	fl.DurationVar(&o.Timeout, "timeout", 0, "connection timeout (default: mcp.connectionTimeout)")
}

func newMCPOptions(f *Factory) *MCPOptions {
	return &MCPOptions{IO: f.IO, Context: f.Context, Manager: func(o *MCPOptions) (*mcp.Manager, error) { return mcpManager(f, o) }}
}

// adHocName is the server name an ad-hoc server gets.
const adHocName = "adhoc"

// mcpManager builds the Manager: an ad-hoc server with no profile, or the
// resolved profile's servers with the user's approvals and the built-in
// tool names reserved.
func mcpManager(f *Factory, o *MCPOptions) (*mcp.Manager, error) {
	home, err := f.Home()
	if err != nil {
		return nil, err
	}
	opts := mcp.Options{ConnectionTimeout: o.Timeout, LogDir: home.Logs(), Environ: f.Environ(),
		ProtocolCache: mcpProtocolCache(home), StopGrace: oneShotStopGrace, Snapshot: true,
		ToolCache: mcpToolCache(home), UseToolCache: o.UseToolCache, StopWhenReady: o.StopWhenReady}
	if mcpManagerBuilt != nil {
		defer func() { mcpManagerBuilt(opts) }()
	}
	if o.Only != "" && !o.adHoc() {
		opts.Only = []string{o.Only}
		if o.OnlyToo != "" {
			opts.Only = append(opts.Only, o.OnlyToo)
		}
	}
	mcpAuth(&opts, home, f.IO)
	if o.Elicit != "" {
		opts.Elicit = mcpCallElicitor(o)
	}
	if o.adHoc() {
		spec, err := adHocSpec(o.URL, o.Command)
		if err != nil {
			return nil, &FlagError{Err: err}
		}
		if wd, err := f.Getwd(); err == nil {
			opts.Roots = []string{wd}
		}
		return mcp.New([]mcp.Spec{spec}, opts), nil
	}
	r, err := f.LoadProfile()
	if err != nil {
		return nil, err
	}
	warnHeld(f.IO, r, false)
	o.problems = mcpJSONProblems(r)
	if r, err = withHeldServers(f, r); err != nil {
		return nil, err
	}
	env, err := sandboxEnv(f, r, home)
	if err != nil {
		return nil, err
	}
	opts.Sandbox = mcp.SandboxPolicy(r.Profile.Sandbox.MCP, env)
	opts.SandboxRequired = r.Profile.Sandbox.Required
	approved := r.Trust.Approved
	opts.Approved = func(mcp.Spec) bool { return approved }
	// Only the built-in tools' names matter here: no sandbox policy is
	// resolved for them (that walks the file system, ~3 ms).
	names := map[string]bool{}
	for _, t := range tools.Builtin(tools.Config{Tools: r.Profile.Tools}) {
		names[t.Name()] = true
	}
	opts.Reserved = func(n string) bool { return names[n] }
	// An extension server's settings, resolved as a session does (the
	// profile, then its envVar in the environment, then the default): the
	// server gets ollm's environment by allow-list only, so a setting
	// given by its envVar (NOTES_TOKEN) must be passed on by name.
	specs := mcp.Specs(r)
	if held, err := heldExtensionSpecs(f, r); err != nil {
		return nil, err
	} else if len(held) > 0 {
		specs = append(specs, held...)
		slices.SortFunc(specs, func(a, b mcp.Spec) int { return strings.Compare(a.Name, b.Name) })
	}
	settings := settingsEnv(r, lookupEnv(f.Getenv))
	for i := range specs {
		if specs[i].Extension != "" {
			specs[i].SettingsEnv = settings[specs[i].Extension]
		}
	}
	// A server of an extension a session would not activate does not
	// start here either.
	offServers(specs, extensionsOff(home, r, f.Getenv))
	return mcp.FromSpecs(r, specs, opts), nil
}

// mcpJSONProblems are the errors of the workspace's .mcp.json: the
// profile reports them when it merges the file, and a workspace that is
// not approved yet does not merge it, so the file is checked here too.
func mcpJSONProblems(r *schema.Resolved) []schema.Problem {
	var out []schema.Problem
	for _, p := range r.Problems {
		if p.Severity == "error" && filepath.Base(p.File) == ".mcp.json" {
			out = append(out, p)
		}
	}
	if len(out) > 0 || r.Workspace == "" {
		return out
	}
	file := filepath.Join(r.Workspace, ".mcp.json")
	if data, err := os.ReadFile(file); err == nil {
		if _, err := profiles.ParseMCPJSON(file, data); err != nil {
			out = append(out, schema.Problem{Severity: "error", File: file,
				Message: err.Error() + "; its servers are not loaded", Fix: "fix " + file})
		}
	}
	return out
}

// mcpProtocolCache is the file that remembers which servers speak the
// initialize handshake, so they are not probed with server/discover again.
func mcpProtocolCache(home store.Home) string {
	return filepath.Join(home.Cache(), "mcp-protocols.json")
}

// mcpToolCache is the directory that remembers each server's tools, so
// `ollm mcp call` need not ask for them first (core/mcp/toolcache.go).
func mcpToolCache(home store.Home) string {
	return filepath.Join(home.Cache(), "mcp-tools")
}

// adHocSpec describes the server given on the command line.
func adHocSpec(rawURL, command string) (mcp.Spec, error) {
	cfg := schema.MCPServer{Enabled: true}
	if rawURL != "" {
		u, err := url.Parse(rawURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
			return mcp.Spec{}, fmt.Errorf("--url %q: want an http:// or https:// URL", rawURL)
		}
		cfg.URL, cfg.Transport = rawURL, mcp.TransportHTTP
		if strings.HasSuffix(u.Path, "/sse") {
			cfg.Transport = mcp.TransportSSE
		}
		// Its tokens are kept per URL, as `ollm mcp login --url` stores them.
		return mcp.Spec{Name: adHocName, Config: cfg, Scope: schema.ScopeFlag,
			TokenName: "url " + rawURL, LoginCommand: "ollm mcp login --url " + rawURL}, nil
	}
	words, err := shell.Fields(command, nil)
	if err != nil || len(words) == 0 {
		return mcp.Spec{}, fmt.Errorf("--command %q: give the command and its arguments, as a shell would split them", command)
	}
	cfg.Command, cfg.Args, cfg.Transport = words[0], words[1:], mcp.TransportStdio
	return mcp.Spec{Name: adHocName, Config: cfg, Scope: schema.ScopeFlag}, nil
}

// startMCP starts the servers and waits until each is ready or failed.
func startMCP(o *MCPOptions) (*mcp.Manager, error) {
	if o.URL != "" && o.Command != "" {
		return nil, &FlagError{Err: errors.New("give --url or --command, not both")}
	}
	m, err := o.Manager(o)
	if err != nil {
		return nil, err
	}
	m.Start()
	if err := m.WaitReady(o.Context); err != nil {
		m.Close()
		return nil, ErrCancelled
	}
	return m, nil
}

func newCmdMCPList(f *Factory) *cobra.Command {
	o := newMCPOptions(f)
	cmd := &cobra.Command{
		Use:   "list",
		Short: "Start the MCP servers and show their status",
		Long: `Start every configured MCP server in parallel and show, for each, its state
(ready, failed, disabled, needs-approval), transport, tool count and last
error. Failed servers name their command and what to fix; their log is in
$OLLM_HOME/logs/mcp-<name>.log.`,
		Example: `  ollm mcp list
  ollm mcp list --json | jq '.[] | select(.state == "failed")'`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.StopWhenReady = true
			return mcpListRun(o)
		},
	}
	addMCPFlags(cmd, o)
	return cmd
}

func mcpListRun(o *MCPOptions) error {
	m, err := startMCP(o)
	if err != nil {
		return err
	}
	defer m.Close()
	st := m.Status()
	if o.JSON {
		if err := writeJSON(o.IO.Out, st); err != nil {
			return err
		}
	} else if len(st) == 0 && len(o.problems) == 0 {
		fmt.Fprintln(o.IO.Out, "no MCP servers configured; add one under mcp.servers in ollm.cue or in .mcp.json")
	} else if len(st) > 0 {
		w := tabwriter.NewWriter(o.IO.Out, 0, 4, 2, ' ', 0)
		fmt.Fprintln(w, "NAME\tSTATE\tTRANSPORT\tTOOLS\tCOMMAND\tERROR")
		for _, s := range st {
			fmt.Fprintf(w, "%s\t%s\t%s\t%d\t%s\t%s\n", s.Name, s.State, s.Transport, s.Tools, s.Command, s.Error)
		}
		if err := w.Flush(); err != nil {
			return err
		}
	}
	printProblems(o.IO.ErrOut, o.problems)
	return listFailure(st, len(o.problems))
}

// listFailure is exit 1 when a configured server failed or the servers'
// configuration has errors; the table (or the JSON) and the problems
// printed before it say which.
func listFailure(st []mcp.Status, problems int) error {
	var failed []string
	for _, s := range st {
		if s.State == mcp.StateFailed {
			failed = append(failed, s.Name)
		}
	}
	switch {
	case len(failed) > 0:
		return fmt.Errorf("%d of %d MCP servers failed (%s); their errors are above, their logs in $OLLM_HOME/logs/mcp-<name>.log",
			len(failed), len(st), strings.Join(failed, ", "))
	case problems > 0:
		return fmt.Errorf("the MCP server configuration has errors (above)")
	}
	return nil
}

func newCmdMCPTools(f *Factory) *cobra.Command {
	o := newMCPOptions(f)
	var server string
	cmd := &cobra.Command{
		Use:   "tools [server | server:tool]",
		Short: "List the tools of the MCP servers",
		Long: `List the tools the ready MCP servers offer, under the name the model sees
(tools whose names collide, or match a built-in tool, are namespaced as
server__tool), with the server:tool name policy rules and ` + "`ollm mcp call`" + ` use,
the kind and risk derived from the tool's annotations, and its description.`,
		Example: `  ollm mcp tools
  ollm mcp tools github --json
  ollm mcp tools github:search_issues --json`,
		Args: maxArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				server = args[0]
				o.Only = server
				if i := strings.LastIndex(server, ":"); i > 0 && !o.adHoc() {
					o.OnlyToo = server[:i]
				}
			}
			o.StopWhenReady = true
			return mcpToolsRun(o, server)
		},
	}
	addMCPFlags(cmd, o)
	return cmd
}

// mcpToolRow is one line of `ollm mcp tools`.
type mcpToolRow struct {
	Name        string       `json:"name"`
	Tool        string       `json:"tool"` // server:tool
	Server      string       `json:"server"`
	Kind        tool.Kind    `json:"kind"`
	Risk        tool.Risk    `json:"risk"`
	Description string       `json:"description"`
	Schema      *tool.Schema `json:"schema"` // what the model is offered
	// InputSchema is the schema as the server sent it ($schema, $defs,
	// allOf, if/then/else kept); calls are checked against it.
	InputSchema json.RawMessage `json:"inputSchema,omitempty"`
}

func mcpToolsRun(o *MCPOptions, server string) error {
	m, err := startMCP(o)
	if err != nil {
		return err
	}
	defer m.Close()
	toolName := ""
	if server != "" && !hasServer(m, server) {
		i := strings.LastIndex(server, ":")
		if i <= 0 || !hasServer(m, server[:i]) {
			return &FlagError{Err: fmt.Errorf("no MCP server %q; `ollm mcp list` shows them", server)}
		}
		server, toolName = server[:i], server[i+1:]
	}
	rows := []mcpToolRow{}
	for _, t := range m.Tools() {
		key := t.(interface{ Key() mcp.ToolKey }).Key()
		if server != "" && key.Server != server || toolName != "" && key.Tool != toolName {
			continue
		}
		_, risk := mcp.Classify(t.(tool.Annotated).Annotations())
		row := mcpToolRow{Name: t.Name(), Tool: key.String(), Server: key.Server,
			Kind: t.Kind(), Risk: risk, Description: t.Description(), Schema: t.Schema()}
		if r, ok := t.(interface{ RawSchema() json.RawMessage }); ok {
			row.InputSchema = r.RawSchema()
		}
		rows = append(rows, row)
	}
	if toolName != "" && len(rows) == 0 {
		if err := unreadyError(m, server); err != nil {
			return err
		}
		return &FlagError{Err: fmt.Errorf("MCP server %q has no tool %q; `ollm mcp tools %s` lists them", server, toolName, server)}
	}
	if o.JSON {
		// What could be listed, and exit 1 naming a server that could
		// not be asked, as without --json.
		if err := writeJSON(o.IO.Out, rows); err != nil {
			return err
		}
		return unreadyError(m, server)
	}
	w := tabwriter.NewWriter(o.IO.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "NAME\tTOOL\tKIND\tRISK\tDESCRIPTION")
	for _, r := range rows {
		desc, _, _ := strings.Cut(r.Description, "\n")
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", r.Name, r.Tool, r.Kind, r.Risk, desc)
	}
	w.Flush()
	return unreadyError(m, server)
}

func hasServer(m *mcp.Manager, name string) bool {
	for _, s := range m.Status() {
		if s.Name == name {
			return true
		}
	}
	return false
}

// unreadyError reports servers that could not be asked, on stderr through
// the error (exit 1), after whatever could be listed.
func unreadyError(m *mcp.Manager, server string) error {
	var msgs []string
	for _, s := range m.Status() {
		if (server == "" || s.Name == server) && s.State == mcp.StateFailed {
			msgs = append(msgs, s.Error)
		}
	}
	if len(msgs) == 0 {
		return nil
	}
	return errors.New(strings.Join(msgs, "\n"))
}

func newCmdMCPCall(f *Factory) *cobra.Command {
	o := newMCPOptions(f)
	cmd := &cobra.Command{
		Use:   "call <server> <tool> [json-args]",
		Short: "Call a tool of an MCP server",
		Long: `Call one tool of one MCP server with JSON arguments (default {}). The
tool is named by server and tool, or as one server:tool word. Only that
server is started. The arguments are checked against the tool's schema
first (errors name the parameter, exit 2). What the tool returns for the
user is printed on stdout, progress on stderr; a tool error exits 1. With
--url or --command there is no server argument: ollm mcp call --url URL
<tool> [json-args].`,
		Example: `  ollm mcp call everything get-sum '{"a":1,"b":2}'
  ollm mcp call everything:get-sum '{"a":1,"b":2}'
  ollm mcp call --command "node server.js" echo '{"message":"hi"}'`,
		Args: rangeArgs(1, 3),
		RunE: func(cmd *cobra.Command, args []string) error {
			server, name, params, err := mcpCallArgs(o, args)
			if err != nil {
				return err
			}
			if err := mcp.CheckElicitHeadless(o.Elicit); err != nil {
				return &FlagError{Err: err}
			}
			o.Only = server
			o.UseToolCache = true
			return mcpCallRun(o, server, name, params)
		},
	}
	addMCPFlags(cmd, o)
	cmd.Flags().StringVar(&o.Elicit, "elicit", mcp.ElicitHeadlessDecline, "what the server's requests for input get without a terminal: `decline` or defaults (accept a form whose required fields all have defaults, with them); at a terminal you answer")
	return cmd
}

// mcpCallArgs splits the positional arguments; the server is left out
// for an ad-hoc server. The tool is "<server> <tool>" or "<server>:<tool>"
// (split at the last colon, since an extension's servers are named
// "<extension>:<server>"); the one-word form is taken when it stands
// alone or is followed by the JSON arguments.
func mcpCallArgs(o *MCPOptions, args []string) (server, name, params string, err error) {
	switch {
	case o.adHoc():
		server = adHocName
		// `ollm mcp tools --url` names the tools adhoc:<tool>: that name
		// works here too (MCP tool names have no colon).
		if len(args) > 0 {
			args = append([]string{strings.TrimPrefix(args[0], adHocName+":")}, args[1:]...)
		}
	case len(args) > 0 && strings.Contains(args[0], ":") && (len(args) == 1 || looksJSON(args[1])):
		i := strings.LastIndex(args[0], ":")
		server, name = args[0][:i], args[0][i+1:]
		if server == "" || name == "" {
			return "", "", "", &FlagError{Err: fmt.Errorf("%q: give <server>:<tool>, e.g. everything:get-sum", args[0])}
		}
		args = append([]string{name}, args[1:]...)
	default:
		if len(args) < 2 {
			return "", "", "", &FlagError{Err: errors.New("give the server and the tool: ollm mcp call <server> <tool> [json-args] or <server>:<tool> [json-args]")}
		}
		server, args = args[0], args[1:]
	}
	if len(args) == 0 || len(args) > 2 {
		return "", "", "", &FlagError{Err: errors.New("give the tool and, optionally, its JSON arguments")}
	}
	params = "{}"
	if len(args) == 2 {
		params = args[1]
	}
	return server, args[0], params, nil
}

func mcpCallRun(o *MCPOptions, server, name, params string) error {
	go warmValidator()
	m, err := startMCP(o)
	if err != nil {
		return err
	}
	defer m.Close()
	t, inv, err := mcpCallBuild(o.Context, m, server, name, params)
	if err != nil {
		return err
	}
	progress := func(c tool.Chunk) { printProgress(o.IO, c) }
	if o.JSON {
		return mcpCallJSON(o, m, t, inv, progress)
	}
	res, err := inv.Execute(o.Context, progress)
	if err != nil {
		return err
	}
	if res.Display != "" {
		fmt.Fprintln(o.IO.Out, res.Display)
	}
	if res.Error != nil {
		return callFailure(o.Context, m, server, name, res.Error.Message)
	}
	return nil
}

// warmValidator compiles a trivial parameter schema, so the JSON Schema
// library compiles its metaschemas (the bulk of a process's first
// validator, a few milliseconds) while the server starts rather than
// after it has answered.
func warmValidator() { _, _ = tool.NewValidator("warm-up", &tool.Schema{Type: "object"}) }

// mcpCallBuild finds the tool and checks the arguments. The server's
// tools may come from the tool cache: when the tool is missing from them
// or they refuse the arguments, the server is asked for its list (Relist)
// and the answer decides.
func mcpCallBuild(ctx context.Context, m *mcp.Manager, server, name, params string) (tool.Tool, tool.Invocation, error) {
	key := mcp.ToolKey{Server: server, Tool: name}.String()
	t, ok := m.Lookup(key)
	if !ok && m.Relist(ctx, server) {
		t, ok = m.Lookup(key)
	}
	if !ok {
		return nil, nil, callLookupError(m, server, name)
	}
	inv, err := t.Build(json.RawMessage(params))
	if err != nil && m.Relist(ctx, server) {
		if t, ok = m.Lookup(key); !ok {
			return nil, nil, callLookupError(m, server, name)
		}
		inv, err = t.Build(json.RawMessage(params))
	}
	if err != nil {
		return nil, nil, &FlagError{Err: err}
	}
	return t, inv, nil
}

// callFailure is a failed call's error. When the tool's definition came
// from the tool cache the server is asked for its list, so the cache is
// right next time and a tool the server no longer has is named as such.
func callFailure(ctx context.Context, m *mcp.Manager, server, name, msg string) error {
	if m.Relist(ctx, server) {
		if _, ok := m.Lookup(mcp.ToolKey{Server: server, Tool: name}.String()); !ok {
			return fmt.Errorf("%s\nMCP server %q has no tool %q (any more); `ollm mcp tools %s` lists them", msg, server, name, server)
		}
	}
	return errors.New(msg)
}

// mcpCallJSON prints the result as the server sent it, every content
// block whole (images in base64): a tool error exits 1 after it; a call
// that brought no result back is an error on stderr.
func mcpCallJSON(o *MCPOptions, m *mcp.Manager, t tool.Tool, inv tool.Invocation, progress func(tool.Chunk)) error {
	key := t.(interface{ Key() mcp.ToolKey }).Key()
	params := inv.(interface{ Params() json.RawMessage }).Params()
	res, raw, err := m.CallRaw(o.Context, key, params, progress)
	if err != nil {
		return err
	}
	if raw == nil {
		return callFailure(o.Context, m, key.Server, key.Tool, res.Error.Message)
	}
	if err := writeJSON(o.IO.Out, raw); err != nil {
		return err
	}
	if raw.IsError {
		m.Relist(o.Context, key.Server) // the cache is right next time
		return &SilentError{Code: ExitError}
	}
	return nil
}

// looksJSON reports whether an argument is meant as JSON arguments rather
// than a tool name.
func looksJSON(s string) bool {
	s = strings.TrimSpace(s)
	return strings.HasPrefix(s, "{") || strings.HasPrefix(s, "[") || s == "null"
}

func callLookupError(m *mcp.Manager, server, name string) error {
	for _, s := range m.Status() {
		if s.Name != server {
			continue
		}
		if s.State != mcp.StateReady {
			return fmt.Errorf("MCP server %q is %s: %s", server, s.State, s.Error)
		}
		return &FlagError{Err: fmt.Errorf("MCP server %q has no tool %q; `ollm mcp tools %s` lists them", server, name, server)}
	}
	return &FlagError{Err: fmt.Errorf("no MCP server %q; `ollm mcp list` shows them", server)}
}

func printProgress(io *IOStreams, c tool.Chunk) {
	switch {
	case c.Total > 0:
		fmt.Fprintf(io.ErrOut, "progress %g/%g %s\n", c.Progress, c.Total, c.Message)
	default:
		fmt.Fprintf(io.ErrOut, "progress %g %s\n", c.Progress, c.Message)
	}
}
