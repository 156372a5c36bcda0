package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/ollm/ollm/core/ext"
	"github.com/ollm/ollm/core/hooks"
	"github.com/ollm/ollm/core/runtime"
	"github.com/ollm/ollm/schema"
	"github.com/ollm/ollm/store"
)

func newCmdHooks(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "hooks",
		Short: "List, approve and try the hooks of the resolved profile",
		Long: `Hooks are programs run at lifecycle events (before_tool, after_model, ...).
Hooks from the builtin and user profiles and from your own extension
directories are trusted. Hooks from the workspace, from downloaded
extensions and from --ext run only once approved; an approval is recorded
in $OLLM_HOME/trusted-hooks.json with the hook's content hash, and any
change to the command or its script asks again.`,
	}
	cmd.AddCommand(newCmdHooksList(f), newCmdHooksTrust(f), newCmdHooksUntrust(f), newCmdHooksTest(f))
	return cmd
}

// hookSet is the resolved profile's hooks with what is needed to judge them.
type hookSet struct {
	r        *schema.Resolved // as if the workspace were approved: what is listed
	g        *schema.Resolved // gated: what runs
	reg      *hooks.Registry
	home     store.Home
	ws       store.Workspace
	none     *store.NotWorkspaceError    // why there is no workspace (ws.Root "")
	lookup   func(string) (string, bool) // the environment, for extension settings
	getenv   func(string) string
	problems []schema.Problem
	// off are the extensions a session would not activate, and why
	// (extensionsOff): their hooks are listed as disabled and never run.
	off map[string]string
}

// loadHooks resolves the profile and builds its hook registry.
func loadHooks(f *Factory) (*hookSet, error) {
	g, err := f.LoadProfile()
	if err != nil {
		return nil, err
	}
	r := g
	if g.Trust.Gated {
		if r, err = f.LoadUngated(); err != nil {
			return nil, err
		}
		r.Trust = g.Trust
	}
	home, err := f.Home()
	if err != nil {
		return nil, err
	}
	ws, none, err := f.WorkspaceOrNone()
	if err != nil {
		return nil, err
	}
	r = preparedExtensions(r)
	lookup := lookupEnv(f.Getenv)
	reg, probs := hooks.FromResolved(r, hooks.BuildOptions{Home: home.Dir, ExtEnv: settingsEnv(r, lookup)})
	return &hookSet{r: r, g: preparedExtensions(g), reg: reg, home: home, ws: ws, none: none, lookup: lookup, getenv: f.Getenv,
		problems: append(g.Problems, probs...), off: extensionsOff(home, r, f.Getenv)}, nil
}

// preparedExtensions returns a copy of r whose extensions have
// ${extensionPath}, ${workspacePath} and ${/} substituted, as a session
// runs them.
func preparedExtensions(r *schema.Resolved) *schema.Resolved {
	c := *r
	c.Extensions = make([]schema.Extension, len(r.Extensions))
	for i, x := range r.Extensions {
		c.Extensions[i] = ext.Prepare(x, r.Workspace)
	}
	return &c
}

// settingsEnv gives each extension's settings as the environment
// variables its hooks receive, resolved as the extension manager does
// (profile, then the environment through lookup, then the default). With a
// nil lookup only the profile and defaults count; that is enough where
// only hashes and trust are computed.
func settingsEnv(r *schema.Resolved, lookup func(string) (string, bool)) map[string]map[string]string {
	out := map[string]map[string]string{}
	for _, x := range r.Extensions {
		values, _ := ext.ResolveSettings(x.Name, x.Manifest.Settings, r.Profile.Settings[x.Name], lookup)
		if env := ext.Env(values); len(env) > 0 {
			out[x.Name] = env
		}
	}
	return out
}

// settingsSecrets gives each extension's sensitive setting values, which
// its hooks' logs and failure text must not show (as the extension
// manager keeps them in a session).
func settingsSecrets(r *schema.Resolved, lookup func(string) (string, bool)) map[string][]string {
	out := map[string][]string{}
	for _, x := range r.Extensions {
		values, _ := ext.ResolveSettings(x.Name, x.Manifest.Settings, r.Profile.Settings[x.Name], lookup)
		if sec := ext.Secrets(values); len(sec) > 0 {
			out[x.Name] = sec
		}
	}
	return out
}

// cwd is the directory a loose hook runs in.
func (s *hookSet) cwd(h *hooks.Hook) string {
	if h.Dir != "" {
		return h.Dir
	}
	return s.ws.Root
}

// hookRow is one line of `ollm hooks list`.
type hookRow struct {
	Event     hooks.Event      `json:"event"`
	Name      string           `json:"name"`
	Extension string           `json:"extension,omitempty"`
	Source    schema.Scope     `json:"source"`
	Trust     hooks.TrustState `json:"trust"`
	Hash      string           `json:"hash"`
	// Permissions are the sandbox the hook declares (its own, else its
	// extension's); an approval covers them with the hash.
	Permissions *schema.Sandbox `json:"permissions,omitempty"`
	ID          string          `json:"id"`
	Command     string          `json:"command"`
	Matcher     string          `json:"matcher,omitempty"`
	Dialect     string          `json:"dialect"`
	Flags       []string        `json:"flags,omitempty"`
	Error       string          `json:"error,omitempty"`
	// Disabled says why the hook does not run: its extension is not
	// enabled (a session would not activate it).
	Disabled string `json:"disabled,omitempty"`
}

// rows judges every hook against the approval record.
func (s *hookSet) rows() ([]hookRow, error) {
	approvals, err := store.LoadTrustedHooks(s.home.TrustedHooks())
	if err != nil {
		return nil, err
	}
	var out []hookRow
	for _, h := range s.reg.All() {
		row := hookRow{Event: h.Event, Name: h.Name, Extension: h.Extension, Source: h.Scope, ID: h.ID(),
			Command: hooks.CommandString(h), Matcher: h.Def.Matcher, Dialect: h.Dialect(), Flags: hookFlags(h.Def),
			Permissions: h.Permissions()}
		hash, err := hooks.HookHash(h, s.cwd(h), hooks.HashDir)
		if err != nil {
			row.Error = err.Error()
		}
		a, ok := approvals.Lookup(row.ID)
		row.Hash = hash
		row.Trust = hooks.DecideHook(h, s.r.Profile.Hooks.TrustWorkspace, hash, hooks.Approval{Hash: a.Hash, Permissions: a.Permissions, Code: a.Code}, ok)
		if why, off := s.off[h.Extension]; off && h.Extension != "" {
			row.Disabled = fmt.Sprintf("extension %s is not enabled: %s", h.Extension, why)
		}
		out = append(out, row)
	}
	return out, nil
}

func hookFlags(d schema.Hook) []string {
	var f []string
	for _, x := range []struct {
		on   bool
		name string
	}{{d.FailClosed, "failClosed"}, {d.Async, "async"}, {d.Persistent, "persistent"}} {
		if x.on {
			f = append(f, x.name)
		}
	}
	return f
}

// HooksListOptions are the options of `ollm hooks list`.
type HooksListOptions struct {
	IO   *IOStreams
	Load func() (*hookSet, error)
	JSON bool
}

func newCmdHooksList(f *Factory) *cobra.Command {
	opts := &HooksListOptions{IO: f.IO, Load: func() (*hookSet, error) { return loadHooks(f) }}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List every hook in registration order with its source and trust",
		Long: `List prints each hook in the order it runs: event, name (extension/name for
extension hooks), source (builtin, user, directory, workspace, store, flag),
trust (trusted, approved, unapproved, changed) and content hash.`,
		Args:    noArgs,
		Example: "  ollm hooks list\n  ollm hooks list --json | jq '.[] | select(.trust != \"trusted\")'",
		RunE:    func(cmd *cobra.Command, args []string) error { return hooksListRun(opts) },
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print as JSON")
	return cmd
}

func hooksListRun(opts *HooksListOptions) error {
	s, err := opts.Load()
	if err != nil {
		return err
	}
	rows, err := s.rows()
	if err != nil {
		return err
	}
	if opts.JSON {
		if rows == nil {
			rows = []hookRow{}
		}
		return writeJSON(opts.IO.Out, rows)
	}
	if len(rows) == 0 {
		fmt.Fprintln(opts.IO.Out, "no hooks")
	} else {
		tw := tabwriter.NewWriter(opts.IO.Out, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "EVENT\tNAME\tSOURCE\tTRUST\tHASH")
		noted := map[string]bool{}
		for _, r := range rows {
			trust := string(r.Trust)
			if r.Disabled != "" {
				trust = "disabled"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.Event, qualified(r.Extension, r.Name), r.Source, trust, shortHash(r.Hash))
		}
		tw.Flush()
		for _, r := range rows {
			if r.Disabled != "" && !noted[r.Extension] {
				noted[r.Extension] = true
				fmt.Fprintf(opts.IO.ErrOut, "note: %s; its hooks do not run\n", r.Disabled)
			}
		}
	}
	if !s.g.Profile.Hooks.Enabled {
		fmt.Fprintln(opts.IO.ErrOut, "note: hooks.enabled is false; no hook runs")
	}
	printHeld(opts.IO, s.problems, s.ws.Root)
	return nil
}

func qualified(ext, name string) string {
	if ext == "" {
		return name
	}
	return ext + "/" + name
}

func shortHash(h string) string {
	if len(h) > 19 {
		return h[:19] + "..."
	}
	return h
}

// selectHooks returns the hooks a name means: a hook name, an
// extension/name or a stable id.
func selectHooks(all []*hooks.Hook, name string) []*hooks.Hook {
	var out []*hooks.Hook
	for _, h := range all {
		if h.Name == name || h.QualifiedName() == name || h.ID() == name {
			out = append(out, h)
		}
	}
	return out
}

// approvedBy names who approves, for the record.
func approvedBy(f *Factory) string {
	for _, k := range []string{"USER", "LOGNAME"} {
		if u := f.Getenv(k); u != "" {
			return u
		}
	}
	return "unknown"
}

// HooksTrustOptions are the options of `ollm hooks trust`.
type HooksTrustOptions struct {
	IO   *IOStreams
	Load func() (*hookSet, error)
	Now  func() time.Time
	By   string
	Name string
	All  bool
}

func newCmdHooksTrust(f *Factory) *cobra.Command {
	opts := &HooksTrustOptions{IO: f.IO, Load: func() (*hookSet, error) { return loadHooks(f) }, Now: f.Now}
	cmd := &cobra.Command{
		Use:   "trust <name> | --all",
		Short: "Approve hooks at their current content hash",
		Long: `Trust records an approval for each hook the name selects (a hook name,
extension/name, or the id shown by 'ollm hooks list --json') at its current
hash. Editing the hook's command or script, or updating its extension,
asks again. --all approves every hook that needs an approval.`,
		Args: rangeArgs(0, 1),
		Example: `  ollm hooks trust guard
  ollm hooks trust my-ext/audit
  ollm hooks trust --all`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if (len(args) == 1) == opts.All {
				return &FlagError{Err: fmt.Errorf("give a hook name or --all")}
			}
			if len(args) == 1 {
				opts.Name = args[0]
			}
			opts.By = approvedBy(f)
			return hooksTrustRun(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.All, "all", false, "approve every hook that needs an approval")
	return cmd
}

func hooksTrustRun(opts *HooksTrustOptions) error {
	s, err := opts.Load()
	if err != nil {
		return err
	}
	targets := s.reg.All()
	if !opts.All {
		if targets = selectHooks(targets, opts.Name); len(targets) == 0 {
			return fmt.Errorf("no hook named %q; see `ollm hooks list`", opts.Name)
		}
	}
	var approvals []store.HookApproval
	for _, h := range targets {
		if !hooks.NeedsApproval(h.Scope, s.r.Profile.Hooks.TrustWorkspace) {
			if !opts.All {
				fmt.Fprintf(opts.IO.Out, "%s is trusted already (%s)\n", h.QualifiedName(), h.Scope)
			}
			continue
		}
		hash, err := hooks.HookHash(h, s.cwd(h), hooks.HashDir)
		if err != nil {
			return fmt.Errorf("hook %s: %w", h.QualifiedName(), err)
		}
		approvals = append(approvals, store.HookApproval{Source: h.ID(), Hash: hash, Permissions: h.Permissions(),
			Code: hooks.ApprovalOf(h, hash).Code, ApprovedAt: opts.Now().UTC(), ApprovedBy: opts.By})
		fmt.Fprintf(opts.IO.Out, "approved %s (%s, %s) at %s\n", h.QualifiedName(), h.Scope, h.Event, hash)
	}
	if len(approvals) == 0 {
		if opts.All {
			fmt.Fprintln(opts.IO.Out, "no hook needs an approval")
		}
		return nil
	}
	return store.ApproveHooks(s.home.TrustedHooks(), approvals...)
}

// HooksUntrustOptions are the options of `ollm hooks untrust`.
type HooksUntrustOptions struct {
	IO   *IOStreams
	Load func() (*hookSet, error)
	Name string
}

func newCmdHooksUntrust(f *Factory) *cobra.Command {
	opts := &HooksUntrustOptions{IO: f.IO, Load: func() (*hookSet, error) { return loadHooks(f) }}
	return &cobra.Command{
		Use:   "untrust <name>",
		Short: "Withdraw the approval of hooks",
		Long: `Untrust removes the recorded approval of the hooks the name selects (a hook
name, extension/name or an id from trusted-hooks.json), so they are asked
about, or skipped, again.`,
		Args:    exactArgs(1),
		Example: "  ollm hooks untrust guard\n  ollm hooks untrust my-ext/audit",
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Name = args[0]
			return hooksUntrustRun(opts)
		},
	}
}

func hooksUntrustRun(opts *HooksUntrustOptions) error {
	s, err := opts.Load()
	if err != nil {
		return err
	}
	ids := []string{opts.Name} // an id of a hook that is gone
	for _, h := range selectHooks(s.reg.All(), opts.Name) {
		ids = append(ids, h.ID())
	}
	n, err := store.RevokeHooks(s.home.TrustedHooks(), ids...)
	if err != nil {
		return err
	}
	if n == 0 {
		return fmt.Errorf("no approval recorded for %q; see `ollm hooks list`", opts.Name)
	}
	fmt.Fprintf(opts.IO.Out, "removed %d approval(s) for %s\n", n, opts.Name)
	return nil
}

// HooksTestOptions are the options of `ollm hooks test`.
type HooksTestOptions struct {
	IO       *IOStreams
	Load     func() (*hookSet, error)
	Event    string
	DataFile string
	JSON     bool
}

func newCmdHooksTest(f *Factory) *cobra.Command {
	opts := &HooksTestOptions{IO: f.IO, Load: func() (*hookSet, error) { return loadHooks(f) }}
	cmd := &cobra.Command{
		Use:   "test <event>",
		Short: "Run the hooks of one event on sample or given data",
		Long: `Test runs the hook chain of an event (a canonical name or an alias such as
PreToolUse or pre-tool-call) exactly as a session would, on sample data or
the JSON object in --data FILE ('-' reads stdin), and prints each hook's
result and duration and the folded outcome. Unapproved hooks are skipped,
as in any run without a terminal. Exits with status 4 when a hook blocks.`,
		Args: exactArgs(1),
		Example: `  ollm hooks test before_tool
  echo '{"tool_name":"shell","args":{"command":"rm -rf /"}}' | ollm hooks test PreToolUse --data -
  ollm hooks test after_model --json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Event = args[0]
			return hooksTestRun(cmd, opts)
		},
	}
	cmd.Flags().StringVar(&opts.DataFile, "data", "", "read the event data from `FILE` (a JSON object; - for stdin)")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the outcome as JSON")
	return cmd
}

func hooksTestRun(cmd *cobra.Command, opts *HooksTestOptions) error {
	ev, err := hooks.ParseEvent(opts.Event)
	if err != nil {
		return &FlagError{Err: err}
	}
	data, err := testData(opts, ev)
	if err != nil {
		return err
	}
	s, err := opts.Load()
	if err != nil {
		return err
	}
	e := s.engine()
	defer e.Close()
	out, err := e.Emit(cmd.Context(), ev, data)
	if err != nil {
		return err
	}
	e.Wait()
	if err := printOutcome(opts, s, out); err != nil {
		return err
	}
	if out.Blocked {
		return &SilentError{Code: ExitBlocked}
	}
	return nil
}

func testData(opts *HooksTestOptions, ev hooks.Event) (map[string]any, error) {
	if opts.DataFile == "" {
		return hooks.SampleData(ev), nil
	}
	var raw []byte
	var err error
	if opts.DataFile == "-" {
		raw, err = io.ReadAll(opts.IO.In)
	} else {
		raw, err = os.ReadFile(opts.DataFile)
	}
	if err != nil {
		return nil, fmt.Errorf("read --data: %w", err)
	}
	var data map[string]any
	if err := json.Unmarshal(raw, &data); err != nil {
		return nil, &FlagError{Err: fmt.Errorf("--data %s: not a JSON object: %v", opts.DataFile, err)}
	}
	return data, nil
}

// engine builds the engine a session would, without anyone to ask.
func (s *hookSet) engine() *hooks.Engine {
	g := withoutExtensions(s.g, s.off)
	reg, _ := hooks.FromResolved(g, hooks.BuildOptions{Home: s.home.Dir, ExtEnv: settingsEnv(g, s.lookup), ExtSecrets: settingsSecrets(g, s.lookup)})
	opts := hooks.ProfileOptions(g.Profile.Hooks, hooks.Options{
		Session:   hooks.Session{ID: "hooks-test", Cwd: s.ws.Root},
		LogDir:    s.home.Logs(),
		Approvals: hooks.FileApprovals{Path: s.home.TrustedHooks()},
		Sandbox:   runtime.HookSandbox(s.getenv, s.ws.Root, g, s.home),

		SandboxRequired: g.Profile.Sandbox.Required,
	})
	return hooks.New(reg, opts)
}

func printOutcome(opts *HooksTestOptions, s *hookSet, out hooks.Outcome) error {
	if opts.JSON {
		return writeJSON(opts.IO.Out, out)
	}
	w := opts.IO.Out
	if !s.g.Profile.Hooks.Enabled {
		fmt.Fprintln(w, "hooks are disabled (hooks.enabled: false); nothing ran")
	} else if len(out.Results) == 0 {
		fmt.Fprintf(w, "no hooks for %s\n", out.Event)
	}
	for _, r := range out.Results {
		fmt.Fprintf(w, "%-30s %s\n", r.Hook, resultLine(r))
	}
	for _, h := range s.reg.All() {
		if why, off := s.off[h.Extension]; off && h.Extension != "" && h.Event == out.Event {
			fmt.Fprintf(w, "%-30s not run: extension %s is not enabled: %s\n", h.QualifiedName(), h.Extension, why)
		}
	}
	if out.Blocked {
		fmt.Fprintf(w, "outcome: blocked by %s: %s\n", out.BlockedBy, out.Reason)
	} else {
		fmt.Fprintln(w, "outcome: continue")
	}
	for _, m := range out.SystemMessages {
		fmt.Fprintf(w, "system message: %s\n", m)
	}
	for _, n := range out.Notices {
		if !slices.ContainsFunc(out.Results, func(r hooks.Result) bool { return r.Skipped == n }) {
			fmt.Fprintf(w, "notice: %s\n", n) // what of an answer could not be applied
		}
	}
	fmt.Fprintln(w, "data:")
	if out.Data == nil {
		out.Data = map[string]any{}
	}
	return writeJSON(w, out.Data)
}

func resultLine(r hooks.Result) string {
	switch {
	case r.Skipped != "":
		return "skipped: " + r.Skipped
	case r.Async:
		return "async (not waited for)"
	}
	s := fmt.Sprintf("exit %d in %s", r.ExitCode, r.Duration.Round(time.Millisecond))
	if r.Failure != "" {
		s += fmt.Sprintf(", %s: %s", r.Failure, r.Error)
	}
	if r.Truncated {
		s += ", output cut"
	}
	if r.Blocked {
		s += ", blocked"
	}
	return s
}
