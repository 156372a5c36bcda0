package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/ollm/ollm/core/ext"
	"github.com/ollm/ollm/core/hooks"
	"github.com/ollm/ollm/core/mcp"
	"github.com/ollm/ollm/core/skills"
	"github.com/ollm/ollm/core/tool"
	"github.com/ollm/ollm/profiles"
	"github.com/ollm/ollm/resolver"
	"github.com/ollm/ollm/schema"
	"github.com/ollm/ollm/store"
)

// ExtOptions are shared by the `ollm ext` management commands.
type ExtOptions struct {
	IO   *IOStreams
	Load func() (*schema.Resolved, error)
	// LoadUngated is Load as if the workspace were approved: the
	// extensions an unapproved workspace holds back, which list shows.
	LoadUngated func() (*schema.Resolved, error)
	Home        func() (store.Home, error)
	Context     context.Context
	Getenv      func(string) string
	Now         func() time.Time
	JSON        bool
	Follow      bool
	Name        string
}

func newExtOptions(f *Factory) *ExtOptions {
	return &ExtOptions{IO: f.IO, Load: f.LoadProfile, LoadUngated: f.LoadUngated, Home: f.Home, Context: f.Context, Getenv: f.Getenv, Now: f.Now}
}

// manager builds the extension manager for this invocation. With live
// set, hooks go into a hook registry, MCP servers really start and their
// tools join a tool registry; without it nothing runs.
func (o *ExtOptions) manager(live bool) (*ext.Manager, *schema.Resolved, store.Home, error) {
	r, err := o.Load()
	if err != nil {
		return nil, nil, store.Home{}, err
	}
	home, err := o.Home()
	if err != nil {
		return nil, nil, store.Home{}, err
	}
	opts := ext.Options{StateFile: home.ExtensionState(), LogDir: home.Logs(), Home: home.Dir, Now: o.Now,
		LookupEnv: lookupEnv(o.Getenv),
		Skills:    skills.New()}
	if live {
		opts.Hooks = hooks.NewRegistry()
		opts.Tools = tool.NewRegistry()
		mo := mcp.Options{LogDir: home.Logs(), Restart: mcp.Backoff{Max: -1}}
		if r.Workspace != "" {
			mo.Roots = []string{r.Workspace}
		}
		// Workspace servers start once the workspace is approved (`ollm
		// trust`) or trusted from the user profile, as in a session.
		trusted := r.Trust.Approved
		mo.Approved = func(mcp.Spec) bool { return trusted }
		if t := r.Profile.MCP.ConnectionTimeout; t > 0 {
			mo.ConnectionTimeout = time.Duration(t) * time.Millisecond
		}
		mo.Sandbox = mcp.SandboxPolicy(r.Profile.Sandbox.MCP, newSandboxEnv(o.Getenv, r.Workspace, r, home))
		mo.SandboxRequired = r.Profile.Sandbox.Required
		opts.Servers = &ext.MCPServers{Options: mo}
	}
	return ext.New(r, opts), r, home, nil
}

func newCmdExtList(f *Factory) *cobra.Command {
	opts := newExtOptions(f)
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List extensions with their state",
		Long: `List every discovered extension with its version, scope and state:
enabled (a session activates it), disabled (and why), failed (a missing or
invalid setting), held (the workspace is not approved: ` + "`ollm trust`" + `),
invalid (its manifest was rejected) or shadowed (a copy of the same name
with precedence replaces it). Sensitive setting values are never shown.`,
		Args:    noArgs,
		Example: "  ollm ext list\n  ollm ext list --json | jq '.[] | select(.state==\"failed\")'",
		RunE:    func(cmd *cobra.Command, args []string) error { return extListRun(opts) },
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the extensions as JSON")
	return cmd
}

func extListRun(o *ExtOptions) error {
	m, r, _, err := o.manager(false)
	if err != nil {
		return err
	}
	list, err := o.fullList(m, r)
	if err != nil {
		return err
	}
	if o.JSON {
		if list == nil {
			list = []ext.Info{}
		}
		return writeJSON(o.IO.Out, list)
	}
	warnHeld(o.IO, r, true)
	if !r.Profile.Extensions.Enabled {
		fmt.Fprintln(o.IO.ErrOut, "extensions.enabled is false in the profile: no extension is loaded")
		return nil
	}
	if len(list) == 0 {
		fmt.Fprintln(o.IO.ErrOut, "no extensions; add one with `ollm ext add SOURCE` or `ollm ext link PATH`")
		return nil
	}
	tw := tabwriter.NewWriter(o.IO.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tVERSION\tSCOPE\tSTATE\tWHY")
	for _, i := range list {
		why := i.Reason
		if len(i.Errors) > 0 {
			why = i.Errors[0]
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", i.Name, dash(i.Version), dash(string(i.Scope)), i.State, why)
	}
	return tw.Flush()
}

// fullList is every extension found: the manager's (enabled, disabled,
// failed, invalid), those an unapproved workspace holds back, and the
// copies another of the same name shadows.
func (o *ExtOptions) fullList(m *ext.Manager, r *schema.Resolved) ([]ext.Info, error) {
	list := m.List()
	if len(r.Trust.HeldExtensions) > 0 && o.LoadUngated != nil {
		u, err := o.LoadUngated()
		if err != nil {
			return nil, err
		}
		for _, x := range u.Extensions {
			if slices.Contains(r.Trust.HeldExtensions, x.Name) {
				list = append(list, ext.Info{Name: x.Name, Version: x.Manifest.Version, Description: x.Manifest.Description,
					Dir: x.Dir, File: x.File, Scope: x.Scope, Format: x.Format, State: ext.StateHeld, Shadows: x.Shadows,
					Reason: "the workspace is not approved; `ollm trust` reviews it"})
			}
		}
	}
	for _, i := range slices.Clone(list) {
		for _, dir := range i.Shadows {
			list = append(list, ext.Info{Name: i.Name, Dir: dir, State: ext.StateShadowed,
				Reason: fmt.Sprintf("the copy at %s is shadowed by the %s copy at %s", dir, i.Scope, i.Dir)})
		}
	}
	return list, nil
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func newCmdExtInfo(f *Factory) *cobra.Command {
	opts := newExtOptions(f)
	cmd := &cobra.Command{
		Use:     "info <name>",
		Short:   "Show an extension's manifest, state, settings, hooks, servers and skills",
		Args:    exactArgs(1),
		Example: "  ollm ext info my-ext\n  ollm ext info my-ext --json",
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Name = args[0]
			return extInfoRun(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the extension as JSON")
	return cmd
}

func extInfoRun(o *ExtOptions) error {
	m, r, _, err := o.manager(false)
	if err != nil {
		return err
	}
	i, err := m.Info(o.Name)
	var nf *ext.NotFoundError
	if errors.As(err, &nf) && slices.Contains(r.Trust.HeldExtensions, o.Name) {
		return fmt.Errorf("extension %s is held: the workspace is not approved, so nothing of it loads; `ollm trust` reviews and approves it", o.Name)
	}
	if err != nil {
		return err
	}
	if o.JSON {
		return writeJSON(o.IO.Out, i)
	}
	w := o.IO.Out
	fmt.Fprintf(w, "name:        %s\n", i.Name)
	if i.Version != "" {
		fmt.Fprintf(w, "version:     %s\n", i.Version)
		fmt.Fprintf(w, "description: %s\n", i.Description)
		fmt.Fprintf(w, "scope:       %s (%s)\n", i.Scope, i.Format)
		fmt.Fprintf(w, "dir:         %s\n", i.Dir)
	}
	fmt.Fprintf(w, "manifest:    %s\n", i.File)
	fmt.Fprintf(w, "state:       %s\n", i.State)
	if i.Reason != "" {
		fmt.Fprintf(w, "why:         %s\n", i.Reason)
	}
	for _, s := range i.Shadows {
		fmt.Fprintf(w, "shadows:     %s\n", s)
	}
	if i.Permissions != nil {
		fmt.Fprintf(w, "permissions: %s\n", resolver.PermissionsString(i.Permissions))
	}
	list := func(title string, items []string) {
		if len(items) > 0 {
			fmt.Fprintf(w, "%s:\n", title)
			for _, it := range items {
				fmt.Fprintf(w, "  %s\n", it)
			}
		}
	}
	list("hooks", i.Hooks)
	list("mcp servers", i.Servers)
	list("skills", i.Skills)
	if len(i.Settings) > 0 {
		fmt.Fprintln(w, "settings:")
		for _, s := range i.Settings {
			val := "(unset)"
			if s.Value != nil {
				val = fmt.Sprint(s.Value)
			}
			req := ""
			if s.Required {
				req = " required"
			}
			fmt.Fprintf(w, "  %s = %s [%s, from %s, env %s%s] %s\n", s.Name, val, s.Type, s.Source, s.EnvVar, req, s.Description)
		}
	}
	if i.Context != "" {
		fmt.Fprintf(w, "context:     %s\n", i.Context)
	}
	printImport(w, i.Import)
	for _, e := range i.Errors {
		fmt.Fprintf(o.IO.ErrOut, "error: %s\n", e)
	}
	return nil
}

func newCmdExtEnable(f *Factory) *cobra.Command {
	opts := newExtOptions(f)
	return &cobra.Command{
		Use:   "enable <name>",
		Short: "Enable an extension and check that it loads",
		Long: `Enable records the choice in $OLLM_HOME/state/extensions.json (never in the
manifest) and loads the extension once to check it: its settings are
resolved and validated, its hooks registered and its MCP servers started
and stopped again. A missing required setting is an error naming the
variable or profile path to set.`,
		Args:    exactArgs(1),
		Example: "  ollm ext enable my-ext\n  VAULT_TOKEN=... ollm ext enable vault",
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Name = args[0]
			return extEnableRun(opts)
		},
	}
}

func extEnableRun(o *ExtOptions) error {
	m, _, _, err := o.manager(true)
	if err != nil {
		return err
	}
	defer m.Close()
	err = m.Enable(o.Context, o.Name)
	i, ierr := m.Info(o.Name)
	if ierr == nil && i.Active {
		ready, servers := 0, 0
		for _, s := range i.ServerState {
			servers++
			if s.State == mcp.StateReady {
				ready++
			}
		}
		fmt.Fprintf(o.IO.Out, "enabled %s: %d hooks, %d/%d MCP servers ready, %d tools, %d skills\n",
			o.Name, len(i.Hooks), ready, servers, len(i.Tools), len(i.Skills))
		for _, s := range i.ServerState {
			if s.State == mcp.StateNeedsApproval {
				fmt.Fprintf(o.IO.ErrOut, "note: MCP server %s: %s\n", s.Name, s.Error)
			}
		}
	}
	if err != nil {
		var nf *ext.NotFoundError
		if errors.As(err, &nf) {
			return err
		}
		if ierr == nil && !i.Active {
			return fmt.Errorf("%w\nthe choice is saved; the extension stays off until this is fixed", err)
		}
		return err
	}
	return nil
}

func newCmdExtDisable(f *Factory) *cobra.Command {
	opts := newExtOptions(f)
	return &cobra.Command{
		Use:   "disable <name>",
		Short: "Disable an extension without removing it",
		Long: `Disable records the choice in $OLLM_HOME/state/extensions.json: from the
next start on, the extension's hooks are not registered, its MCP servers
not started and its tools and skills not offered.`,
		Args:    exactArgs(1),
		Example: "  ollm ext disable my-ext",
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Name = args[0]
			return extDisableRun(opts)
		},
	}
}

func extDisableRun(o *ExtOptions) error {
	m, _, _, err := o.manager(false)
	if err != nil {
		return err
	}
	if err := m.Disable(o.Context, o.Name); err != nil {
		return err
	}
	fmt.Fprintf(o.IO.Out, "disabled %s\n", o.Name)
	return nil
}

func newCmdExtRemove(f *Factory) *cobra.Command {
	opts := newExtOptions(f)
	return &cobra.Command{
		Use:   "remove <name>",
		Short: "Delete an extension from $OLLM_HOME/extensions or the store",
		Long: `Remove deletes an extension you installed: a directory in
$OLLM_HOME/extensions (a linked one loses only its link) or a copy in the
store. It refuses extensions that belong to a workspace or to
extensions.directories: delete those where they live, or disable them.`,
		Args:    exactArgs(1),
		Example: "  ollm ext remove my-ext",
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Name = args[0]
			return extRemoveRun(opts)
		},
	}
}

func extRemoveRun(o *ExtOptions) error {
	m, r, home, err := o.manager(false)
	if err != nil {
		return err
	}
	var x *schema.Extension
	for i := range r.Extensions {
		if r.Extensions[i].Name == o.Name {
			x = &r.Extensions[i]
		}
	}
	if x == nil {
		// An invalid extension in the user directory can still be removed.
		if dir := filepath.Join(home.Extensions(), o.Name); exists(dir) {
			x = &schema.Extension{Name: o.Name, Dir: dir, Scope: schema.ScopeUser}
		} else {
			_, err := m.Info(o.Name)
			if err == nil {
				err = fmt.Errorf("extension %s: not installed in %s; nothing to remove", o.Name, home.Extensions())
			}
			return err
		}
	}
	switch x.Scope {
	case schema.ScopeWorkspace:
		return fmt.Errorf("extension %s belongs to the workspace (%s); delete it from the repository, or run `ollm ext disable %s`", o.Name, x.Dir, o.Name)
	case schema.ScopeDirectory:
		return fmt.Errorf("extension %s comes from extensions.directories (%s); delete it there or remove the directory from the profile, or run `ollm ext disable %s`", o.Name, x.Dir, o.Name)
	case schema.ScopeFlag:
		return fmt.Errorf("extension %s is loaded with --ext for this run only (%s); there is nothing installed to remove", o.Name, x.Dir)
	case schema.ScopeBuiltin:
		return fmt.Errorf("extension %s is built in; run `ollm ext disable %s`", o.Name, o.Name)
	}
	if err := removeExtDir(x.Dir); err != nil {
		return fmt.Errorf("extension %s: removing %s: %w", o.Name, x.Dir, err)
	}
	if err := ext.ForgetState(home.ExtensionState(), o.Name); err != nil {
		return fmt.Errorf("extension %s: removed, but its state entry stays: %w", o.Name, err)
	}
	fmt.Fprintf(o.IO.Out, "removed %s (%s)\n", o.Name, x.Dir)
	if x.Scope == schema.ScopeStore {
		fmt.Fprintf(o.IO.ErrOut, "note: ollm.lock still pins %s; remove it from extensions.sources or `ollm profile apply` fetches it again\n", o.Name)
	}
	return nil
}

// removeExtDir deletes a directory, or only the link when dir is a
// symlink (`ollm ext link`). Store copies are read-only: make them
// writable first.
func removeExtDir(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if fi.Mode()&os.ModeSymlink != 0 {
		return os.Remove(dir)
	}
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = os.Chmod(p, 0o755)
		}
		return nil
	})
	return os.RemoveAll(dir)
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

func newCmdExtLogs(f *Factory) *cobra.Command {
	opts := newExtOptions(f)
	cmd := &cobra.Command{
		Use:   "logs <name>",
		Short: "Print an extension's log: hook stderr, MCP server output and manager events",
		Args:  exactArgs(1),
		Example: `  ollm ext logs my-ext
  ollm ext logs my-ext -f     # keep printing new lines until interrupted`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Name = args[0]
			return extLogsRun(opts)
		},
	}
	cmd.Flags().BoolVarP(&opts.Follow, "follow", "f", false, "keep printing what is appended")
	return cmd
}

// extLogFiles lists the log files of an extension: its hook and manager
// log, then one per MCP server.
func extLogFiles(logDir, name string) []string {
	files := []string{hooks.LogPath(logDir, name)}
	servers, _ := filepath.Glob(filepath.Join(logDir, "mcp-"+name+"_*.log"))
	return append(files, servers...)
}

func extLogsRun(o *ExtOptions) error {
	home, err := o.Home()
	if err != nil {
		return err
	}
	var found []string
	for _, p := range extLogFiles(home.Logs(), o.Name) {
		if exists(p) {
			found = append(found, p)
		}
	}
	if len(found) == 0 && !o.Follow {
		return fmt.Errorf("extension %s has no log yet in %s; its hooks and servers write there once they run", o.Name, home.Logs())
	}
	offsets := map[string]int64{}
	for _, p := range found {
		n, err := copyFrom(o.IO.Out, p, 0, len(found) > 1)
		if err != nil {
			return err
		}
		offsets[p] = n
	}
	if !o.Follow {
		return nil
	}
	return followLogs(o.Context, o.IO.Out, func() []string { return extLogFiles(home.Logs(), o.Name) }, offsets, 250*time.Millisecond)
}

// copyFrom copies path from offset to w and returns the new offset.
func copyFrom(w io.Writer, path string, off int64, header bool) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		if os.IsNotExist(err) {
			return off, nil
		}
		return off, err
	}
	defer f.Close()
	if _, err := f.Seek(off, io.SeekStart); err != nil {
		return off, err
	}
	if header && off == 0 {
		fmt.Fprintf(w, "==> %s <==\n", path)
	}
	n, err := io.Copy(w, f)
	return off + n, err
}

// followLogs prints what is appended to the files until ctx ends.
func followLogs(ctx context.Context, w io.Writer, files func() []string, offsets map[string]int64, poll time.Duration) error {
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		for _, p := range files() {
			n, err := copyFrom(w, p, offsets[p], false)
			if err != nil {
				return err
			}
			offsets[p] = n
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

func newCmdExtLink(f *Factory) *cobra.Command {
	opts := newExtOptions(f)
	popts := f.ProfileOptions
	return &cobra.Command{
		Use:   "link <path>",
		Short: "Link an extension directory into $OLLM_HOME/extensions to work on it in place",
		Long: `Link validates the extension at PATH and symlinks it into
$OLLM_HOME/extensions under its manifest name, so edits take effect on the
next start without copying. It counts as your own extension.
'ollm ext remove NAME' removes only the link.`,
		Args:    exactArgs(1),
		Example: "  ollm ext link ./my-extension\n  ollm ext info my-extension",
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Name = args[0]
			return extLinkRun(opts, popts)
		},
	}
}

func extLinkRun(o *ExtOptions, popts func() (profiles.Options, error)) error {
	abs, err := filepath.Abs(o.Name)
	if err != nil {
		return err
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return fmt.Errorf("%s is not a directory; give the extension's root directory", o.Name)
	}
	lo, err := popts()
	if err != nil {
		return err
	}
	lo.Ext, lo.NoCache = []string{abs}, true
	r, err := profiles.Load(lo)
	if err != nil {
		return &ConfigError{Err: err}
	}
	var x *schema.Extension
	for i := range r.Extensions {
		if r.Extensions[i].Scope == schema.ScopeFlag && r.Extensions[i].Dir == abs {
			x = &r.Extensions[i]
		}
	}
	if x == nil {
		var msgs []string
		for _, p := range r.Problems {
			if strings.HasPrefix(p.File, abs) {
				where := p.Pos
				if where == "" {
					where = p.File
				}
				msgs = append(msgs, where+": "+p.Message)
			}
		}
		if len(msgs) == 0 {
			msgs = append(msgs, "no valid manifest.json or gemini-extension.json")
		}
		return &ConfigError{Err: fmt.Errorf("cannot link %s: %s", o.Name, strings.Join(msgs, "; "))}
	}
	dst := filepath.Join(lo.Home.Extensions(), x.Name)
	if exists(dst) {
		return fmt.Errorf("extension %s: %s already exists; run `ollm ext remove %s` first", x.Name, dst, x.Name)
	}
	if err := os.MkdirAll(lo.Home.Extensions(), 0o755); err != nil {
		return err
	}
	if err := os.Symlink(abs, dst); err != nil {
		return fmt.Errorf("extension %s: %w", x.Name, err)
	}
	fmt.Fprintf(o.IO.Out, "linked %s -> %s\n", dst, abs)
	if !r.Profile.Extensions.AutoEnable {
		fmt.Fprintf(o.IO.Out, "extensions.autoEnable is off: run `ollm ext enable %s`\n", x.Name)
	}
	return nil
}
