package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/ollm/ollm/core/hooks"
	"github.com/ollm/ollm/profiles"
	"github.com/ollm/ollm/resolver"
	"github.com/ollm/ollm/schema"
	"github.com/ollm/ollm/store"
)

// ResolveDeps are what the resolver commands need from the factory.
type ResolveDeps struct {
	IO      *IOStreams
	Context context.Context
	Options func() (profiles.Options, error)
	Getenv  func(string) string
}

func newResolveDeps(f *Factory) ResolveDeps {
	return ResolveDeps{IO: f.IO, Context: f.Context, Options: f.BaseOptions, Getenv: f.Getenv}
}

// applier builds the resolver for this invocation: go-git with its cache
// under OLLM_HOME, the store, package version lookup, and progress on
// stderr (a bar on a terminal, plain lines otherwise).
func (d ResolveDeps) applier() (*resolver.Applier, error) {
	opts, err := d.Options()
	if err != nil {
		return nil, err
	}
	opts.Locked, opts.Teams = nil, nil
	r := &resolver.Resolver{
		Git:      resolver.NewGoGit(filepath.Join(opts.Home.Cache(), "git")),
		Store:    store.NewCAS(opts.Home.Store()),
		Versions: resolver.Registry{NPMDir: d.Getenv("OLLM_NPM_DIR")},
		Events:   progressEvents(d.IO),
	}
	return &resolver.Applier{Resolver: r, Options: opts, Load: loadProfile}, nil
}

// loadProfile is profiles.Load with invalid profiles mapped to exit 2.
func loadProfile(o profiles.Options) (*schema.Resolved, error) {
	r, err := profiles.Load(o)
	var pe *profiles.Error
	if errors.As(err, &pe) {
		return nil, &ConfigError{Err: err}
	}
	return r, err
}

// resolveError maps resolver errors to exit codes: a checksum mismatch is
// a security error (3), a stale or malformed lock a configuration error
// (2), anything else a failure (1).
func resolveError(err error) error {
	var (
		ce *store.ChecksumError
		se *resolver.StaleError
		le *resolver.LockError
	)
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ce):
		return &SecurityError{Err: err}
	case errors.As(err, &se), errors.As(err, &le), errors.Is(err, resolver.ErrChangedSinceLock):
		return &ConfigError{Err: err}
	}
	return err
}

// progressEvents reports fetches on stderr.
func progressEvents(io *IOStreams) resolver.Events {
	w := io.ErrOut
	bar := io.StderrTTY
	ev := resolver.Events{
		Fetching: func(k resolver.Kind, name, source, ref string) {
			if !bar {
				if ref != "" {
					source += "@" + ref
				}
				fmt.Fprintf(w, "fetching %s %s from %s\n", k, name, source)
			}
		},
		RefMoved: func(k resolver.Kind, name, ref, locked, now string) {
			fmt.Fprintf(w, "warning: %s %s: ref %s now points to %s, ollm.lock keeps %s; run `ollm ext update %s` to move it\n",
				k, name, ref, shortCommit(now), shortCommit(locked), name)
		},
		Corrupt: func(name, dir string) {
			fmt.Fprintf(w, "warning: store entry %s of %s does not match its hash; fetching it again\n", dir, name)
		},
		Recovered: func(n int) {
			fmt.Fprintf(w, "removed %d unfinished download(s) left by an interrupted run\n", n)
		},
		Pinned: func(server, pkg, version string) {
			fmt.Fprintf(w, "pinned %s for MCP server %s to %s\n", pkg, server, version)
		},
	}
	if bar {
		ev.Progress = func(done, total int, name string) {
			const width = 24
			fill := width * done / max(total, 1)
			fmt.Fprintf(w, "\r[%s%s] %d/%d %-30s", strings.Repeat("=", fill), strings.Repeat(" ", width-fill), done, total, name)
			if done == total {
				fmt.Fprint(w, "\r\033[K")
			}
		}
	}
	return ev
}

func shortCommit(commit string) string {
	if len(commit) > 12 {
		return commit[:12]
	}
	return commit
}

// ProfileApplyOptions are the options of `ollm profile apply`.
type ProfileApplyOptions struct {
	Deps   ResolveDeps
	Locked bool
	DryRun bool
	JSON   bool
	Update []string
}

func newCmdProfileApply(f *Factory) *cobra.Command {
	opts := &ProfileApplyOptions{Deps: newResolveDeps(f)}
	cmd := &cobra.Command{
		Use:   "apply",
		Short: "Lock the profile, fetch its extensions and make it the current generation",
		Long: `Apply resolves the profile (team profiles from extends, then extensions.sources),
pins every git source to a commit and an h1 content hash in ollm.lock, fetches
what the store lacks (verifying each tree against the lock before it enters
the store), pins npx/pnpm dlx/uvx MCP server packages to exact versions, and
writes an immutable generation that the runtime loads.

It prints the plan: extensions added, changed (old -> new commit) or removed,
hooks that will need approval, and MCP servers added or removed.

A ref that moved after it was locked keeps the lock's commit; run
'ollm ext update NAME' to move it. A tree whose hash differs from the lock is
a security error (exit 3) and nothing enters the store.`,
		Args: noArgs,
		Example: `  ollm profile apply
  ollm profile apply --dry-run
  ollm profile apply --locked     # in CI: fail (exit 2) when ollm.lock is missing or stale`,
		RunE: func(cmd *cobra.Command, args []string) error { return profileApplyRun(opts) },
	}
	cmd.Flags().BoolVar(&opts.Locked, "locked", false, "use ollm.lock as is; fail when it is missing or out of date")
	cmd.Flags().BoolVar(&opts.DryRun, "dry-run", false, "print the plan; write and fetch nothing")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the result as JSON")
	return cmd
}

func profileApplyRun(opts *ProfileApplyOptions) error {
	a, err := opts.Deps.applier()
	if err != nil {
		return err
	}
	res, err := opts.Deps.apply(a, resolver.ApplyOptions{Locked: opts.Locked, DryRun: opts.DryRun, Update: opts.Update})
	if err != nil {
		return resolveError(err)
	}
	return opts.Deps.report(res, opts.JSON)
}

// apply runs the resolver and keeps in the plan only the hooks that still
// need an approval.
//
// An approved workspace stays approved across the lock the apply writes
// when that lock pins only what was approved (keepApproval).
func (d ResolveDeps) apply(a *resolver.Applier, ao resolver.ApplyOptions) (*resolver.Result, error) {
	lo, lerr := d.Options()
	before, approved := approvalBefore(lo)
	res, err := a.Apply(d.Context, ao)
	if err != nil {
		return nil, err
	}
	if lerr != nil {
		return res, nil
	}
	if approved && res.LockWritten && !res.DryRun {
		note, err := keepApproval(lo, before, res.Old, res.Lock)
		if err != nil {
			return nil, err
		}
		if note != "" {
			fmt.Fprintln(d.IO.ErrOut, note)
		}
	}
	res.Plan.Hooks = unapprovedHooks(res, lo.Home, lo.Workspace)
	return res, nil
}

// report prints an apply's result: JSON, or the plan and the profile's
// problems.
func (d ResolveDeps) report(res *resolver.Result, asJSON bool) error {
	if asJSON {
		return writeJSON(d.IO.Out, res)
	}
	printPlan(d.IO.Out, res)
	if res.Resolved != nil {
		printHeld(d.IO, res.Resolved.Problems, res.Resolved.Workspace)
	}
	return nil
}

// printPlan prints what an apply changed or would change.
func printPlan(w io.Writer, res *resolver.Result) {
	switch {
	case len(res.Plan.Changes) == 0 && res.Old == nil:
		fmt.Fprintln(w, "lock: nothing to pin")
	case len(res.Plan.Changes) == 0:
		fmt.Fprintln(w, "lock: no changes")
	default:
		fmt.Fprintf(w, "lock: %d change(s)\n", len(res.Plan.Changes))
		for _, c := range res.Plan.Changes {
			fmt.Fprintf(w, "  %s\n", c)
		}
	}
	if len(res.Plan.Hooks) > 0 {
		fmt.Fprintln(w, "hooks that will need approval (ollm hooks trust):")
		for _, h := range res.Plan.Hooks {
			note := ""
			if h.Changed {
				note = " (new or changed: asks again)"
			}
			fmt.Fprintf(w, "  %s: %s/%s [%s]%s\n", h.Extension, h.Event, h.Hook, h.Scope, note)
		}
	}
	for _, s := range res.Plan.ServersAdded {
		fmt.Fprintf(w, "mcp server added: %s\n", s)
	}
	for _, s := range res.Plan.ServersRemoved {
		fmt.Fprintf(w, "mcp server removed: %s\n", s)
	}
	for _, m := range res.Plan.RefsMoved {
		fmt.Fprintf(w, "ref moved: %s %s: %s now %s, locked %s (kept; `ollm ext update %s` moves it)\n", m.Kind, m.Name, m.Ref, shortCommit(m.Now), shortCommit(m.Locked), m.Name)
	}
	switch {
	case res.DryRun:
		fmt.Fprintln(w, "dry run: nothing was written")
	case res.Generation > 0 && res.LockFile == "":
		fmt.Fprintf(w, "applied: generation %d (no ollm.cue here, so no ollm.lock is written)\n", res.Generation)
	case res.Generation > 0:
		fmt.Fprintf(w, "applied: generation %d (%s %s)\n", res.Generation, res.LockFile, written(res.LockWritten))
	case res.LockFile == "":
		fmt.Fprintln(w, "locked: nothing to pin and no ollm.cue here, so no ollm.lock is written")
	default:
		fmt.Fprintf(w, "locked: %s %s\n", res.LockFile, written(res.LockWritten))
	}
}

func written(b bool) string {
	if b {
		return "written"
	}
	return "unchanged"
}

// ProfileLockOptions are the options of `ollm profile lock`.
type ProfileLockOptions struct {
	Deps   ResolveDeps
	Update bool
	Names  []string
	JSON   bool
}

func newCmdProfileLock(f *Factory) *cobra.Command {
	opts := &ProfileLockOptions{Deps: newResolveDeps(f)}
	cmd := &cobra.Command{
		Use:   "lock [--update [NAME...]]",
		Short: "Write ollm.lock for the profile without making a new generation",
		Long: `Lock resolves every source the profile asks for and writes ollm.lock. Sources
already locked keep their commit; --update resolves the named ones (all when
no name is given) afresh, moving them to what their ref names now. Fetched
trees are verified and stored, so a following 'ollm profile apply' is fast.`,
		Example: `  ollm profile lock
  ollm profile lock --update            # move every source to its ref's current commit
  ollm profile lock --update guard lint`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 && !opts.Update {
				return &FlagError{Err: fmt.Errorf("names are only accepted with --update")}
			}
			opts.Names = args
			return profileLockRun(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Update, "update", false, "resolve the named sources (or all) afresh")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the result as JSON")
	return cmd
}

func profileLockRun(opts *ProfileLockOptions) error {
	a, err := opts.Deps.applier()
	if err != nil {
		return err
	}
	ao := resolver.ApplyOptions{NoGeneration: true}
	if opts.Update {
		ao.Update = opts.Names
		if len(ao.Update) == 0 {
			ao.Update = []string{"*"}
		}
	}
	res, err := opts.Deps.apply(a, ao)
	if err != nil {
		return resolveError(err)
	}
	return opts.Deps.report(res, opts.JSON)
}

// ProfileDiffOptions are the options of `ollm profile diff`.
type ProfileDiffOptions struct {
	Deps     ResolveDeps
	Files    func() (*schema.Resolved, error) // what the files resolve to now
	JSON     bool
	ExitCode bool
}

func newCmdProfileDiff(f *Factory) *cobra.Command {
	opts := &ProfileDiffOptions{Deps: newResolveDeps(f), Files: f.LoadFiles}
	cmd := &cobra.Command{
		Use:   "diff",
		Short: "Show how ollm.lock and the running generation differ from the profile files",
		Long: `Diff compares ollm.lock with the profile's sources and MCP server packages
without fetching anything: sources the lock lacks (+), sources it pins from a
different request (~) and entries the profile no longer asks for (-).

It then compares the workspace's current generation, which is what sessions
and commands run, with what the files resolve to now: extensions, MCP
servers and skills added (+) or gone (-), and hooks, policy, settings,
model, tools or sandbox changed (~). A generation is behind when the files
changed and were not applied (profile.autoApply: "never", a change that
needs a fetch or a hook approval, or a rollback pin).`,
		Args: noArgs,
		Example: `  ollm profile diff
  ollm profile diff --exit-code   # exit 1 when the lock is out of date or the generation is behind`,
		RunE: func(cmd *cobra.Command, args []string) error { return profileDiffRun(opts) },
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the differences as JSON")
	cmd.Flags().BoolVar(&opts.ExitCode, "exit-code", false, "exit with status 1 when there are differences: ollm.lock out of date, or the current generation behind the files")
	return cmd
}

// check compares ollm.lock with what the profile asks for without
// fetching (resolver.Applier.Check): the staleness `profile apply
// --locked` fails on, which `profile diff` and `profile validate` report.
func (d ResolveDeps) check() ([]resolver.Change, *schema.Lock, error) {
	a, err := d.applier()
	if err != nil {
		return nil, nil, err
	}
	changes, old, err := a.Check()
	return changes, old, resolveError(err)
}

func profileDiffRun(opts *ProfileDiffOptions) error {
	changes, old, err := opts.Deps.check()
	if err != nil {
		return err
	}
	w := opts.Deps.IO.Out
	var gd *generationDiff
	if lo, err := opts.Deps.Options(); err == nil {
		var files *schema.Resolved
		if opts.Files != nil {
			files, _ = opts.Files() // unresolvable files: only that they changed
		}
		if d, ok, err := diffGeneration(lo, files); err != nil {
			return err
		} else if ok {
			gd = &d
		}
	}
	if opts.JSON {
		if changes == nil {
			changes = []resolver.Change{}
		}
		out := map[string]any{"lockExists": old != nil, "changes": changes}
		if gd != nil {
			out["generation"] = gd
		}
		if err := writeJSON(w, out); err != nil {
			return err
		}
	} else {
		defer printGenerationDiff(w, gd)
		if old == nil {
			fmt.Fprintln(w, "no ollm.lock yet")
		}
		if len(changes) == 0 {
			fmt.Fprintln(w, "ollm.lock is up to date with the profile")
		}
		for _, c := range changes {
			fmt.Fprintln(w, c)
		}
		if len(changes) > 0 {
			fmt.Fprintln(w, "run `ollm profile lock` (or `ollm profile apply`) to update ollm.lock")
		}
	}
	if opts.ExitCode && (len(changes) > 0 || gd != nil && gd.Behind) {
		return &SilentError{Code: ExitError}
	}
	return nil
}

// ProfileGenerationsOptions are the options of `ollm profile generations`.
type ProfileGenerationsOptions struct {
	Deps ResolveDeps
	JSON bool
}

func newCmdProfileGenerations(f *Factory) *cobra.Command {
	opts := &ProfileGenerationsOptions{Deps: newResolveDeps(f)}
	cmd := &cobra.Command{
		Use:     "generations",
		Short:   "List the generations applied in this workspace",
		Long:    "Every 'ollm profile apply' writes an immutable generation: the resolved profile,\nthe lock and a digest of every input. The current one is marked with '*'.",
		Args:    noArgs,
		Example: "  ollm profile generations\n  ollm profile generations --json",
		RunE:    func(cmd *cobra.Command, args []string) error { return profileGenerationsRun(opts) },
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the list as JSON")
	return cmd
}

type generationRow struct {
	Number     int    `json:"number"`
	Current    bool   `json:"current"`
	Rollback   bool   `json:"rollback,omitempty"`
	Created    string `json:"created"`
	LockDigest string `json:"lockDigest"`
	Extensions int    `json:"extensions"`
}

func workspaceGenerations(o profiles.Options) ([]generationRow, store.CurrentPointer, error) {
	gens := store.Generations{Dir: o.Home.Generations()}
	all, err := gens.All()
	if err != nil {
		return nil, store.CurrentPointer{}, err
	}
	cur, _, err := gens.Current(o.Workspace.Root)
	if err != nil {
		return nil, cur, err
	}
	rows := []generationRow{}
	for _, g := range all {
		if g.Workspace != o.Workspace.Root {
			continue
		}
		rows = append(rows, generationRow{Number: g.Number, Current: g.Number == cur.Generation, Rollback: g.Number == cur.Generation && cur.Rollback,
			Created: g.Created.Format("2006-01-02 15:04:05Z"), LockDigest: g.LockDigest, Extensions: len(g.Lock.Extensions)})
	}
	return rows, cur, nil
}

func profileGenerationsRun(opts *ProfileGenerationsOptions) error {
	o, err := opts.Deps.Options()
	if err != nil {
		return err
	}
	rows, _, err := workspaceGenerations(o)
	if err != nil {
		return err
	}
	if opts.JSON {
		return writeJSON(opts.Deps.IO.Out, rows)
	}
	if len(rows) == 0 {
		fmt.Fprintln(opts.Deps.IO.Out, "no generations in this workspace; run `ollm profile apply`")
		return nil
	}
	tw := tabwriter.NewWriter(opts.Deps.IO.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  GEN\tCREATED\tEXTENSIONS\tLOCK")
	for _, r := range rows {
		mark := " "
		if r.Current {
			mark = "*"
		}
		d := strings.TrimPrefix(r.LockDigest, "sha256:")
		if len(d) > 12 {
			d = d[:12]
		}
		pin := ""
		if r.Rollback {
			pin = "\tpinned to " + strconv.Itoa(r.Number) + " (rollback; `ollm profile apply` unpins)"
		}
		fmt.Fprintf(tw, "%s %d\t%s\t%d\t%s%s\n", mark, r.Number, r.Created, r.Extensions, d, pin)
	}
	return tw.Flush()
}

// ProfileRollbackOptions are the options of `ollm profile rollback`.
type ProfileRollbackOptions struct {
	Deps   ResolveDeps
	Target int // 0: the one before the current
	By     string
	Now    func() time.Time
}

func newCmdProfileRollback(f *Factory) *cobra.Command {
	opts := &ProfileRollbackOptions{Deps: newResolveDeps(f), Now: f.Now}
	cmd := &cobra.Command{
		Use:   "rollback [N]",
		Short: "Make an earlier generation current",
		Long: `Rollback makes generation N (default: the one before the current) the
workspace's current generation and pins it: sessions and every command run
it exactly as it was (extensions, hooks, servers, policy, settings,
skills), even if ollm.cue changed since, and profile.autoApply waits, until
the next 'ollm profile apply'. ollm.cue and ollm.lock are not touched.

When the workspace was approved (ollm trust, or an ollm command that
wrote it) at the state generation N was built from, rollback approves that
state again and lists the widening values it brings back. A generation
built from a state nobody approved stays held back until 'ollm trust'.`,
		Args:    maxArgs(1),
		Example: "  ollm profile rollback\n  ollm profile rollback 3",
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				n, err := strconv.Atoi(args[0])
				if err != nil || n <= 0 {
					return &FlagError{Err: fmt.Errorf("generation %q: want a positive number", args[0])}
				}
				opts.Target = n
			}
			opts.By = approvedBy(f)
			return profileRollbackRun(opts)
		},
	}
	return cmd
}

func profileRollbackRun(opts *ProfileRollbackOptions) error {
	o, err := opts.Deps.Options()
	if err != nil {
		return err
	}
	rows, cur, err := workspaceGenerations(o)
	if err != nil {
		return err
	}
	target := opts.Target
	if target == 0 {
		for _, r := range rows {
			if r.Number < cur.Generation {
				target = r.Number
			}
		}
		if target == 0 {
			return fmt.Errorf("no generation before %d in this workspace; list them with `ollm profile generations`", cur.Generation)
		}
	}
	found := false
	for _, r := range rows {
		found = found || r.Number == target
	}
	if !found {
		return fmt.Errorf("generation %d was not applied in this workspace; list them with `ollm profile generations`", target)
	}
	gens := store.Generations{Dir: o.Home.Generations()}
	if err := gens.SetCurrent(o.Workspace.Root, store.CurrentPointer{Generation: target, Rollback: true}); err != nil {
		return err
	}
	fmt.Fprintf(opts.Deps.IO.Out, "current generation: %d (was %d); pinned to %d: sessions and commands run it as it was, and automatic applies wait, until the next `ollm profile apply`\n", target, cur.Generation, target)
	return approveRollback(opts, o, cur.Generation, target)
}

// approveRollback approves again the workspace state generation target
// was built from, when the workspace was approved at it before (the
// current approval or one of the earlier ones the approval record keeps),
// after listing the widening values it brings back compared with
// generation was. A state nobody approved (a hostile ollm.cue applied
// before anyone reviewed it) is never approved here: the user is told
// that `ollm trust` is needed.
func approveRollback(opts *ProfileRollbackOptions, o profiles.Options, was, target int) error {
	w := opts.Deps.IO.Out
	gens := store.Generations{Dir: o.Home.Generations()}
	g, err := gens.Read(target)
	if err != nil {
		return err
	}
	if g.Gated == nil || g.Gated.Trust.Digest == "" {
		return nil // nothing of it is held back
	}
	digest := g.Gated.Trust.Digest
	tw, err := store.LoadTrustedWorkspaces(o.Home.TrustedWorkspaces())
	if err != nil {
		return err
	}
	if tw.Approved(o.Workspace.Root, digest) {
		return nil
	}
	before, ok := tw.EarlierApproval(o.Workspace.Root, digest)
	if !ok {
		fmt.Fprintf(w, "generation %d was built from a state of the workspace nobody approved: its %s held back until `ollm trust` reviews and approves them\n", target, count(len(g.Gated.Trust.Held), "widening value stays", "widening values stay"))
		return nil
	}
	// What it brings back: its widening values the running generation did
	// not run (all of them when that one was held back itself).
	ran := map[string]int{}
	if prev, err := gens.Read(was); err == nil {
		if prev.Gated != nil && tw.Approved(o.Workspace.Root, prev.Gated.Trust.Digest) {
			for _, h := range prev.Gated.Trust.Held {
				ran[h.Field+"\x00"+h.Value]++
			}
		}
	}
	var added []schema.HeldValue
	for _, h := range g.Gated.Trust.Held {
		if k := h.Field + "\x00" + h.Value; ran[k] > 0 {
			ran[k]--
			continue
		}
		added = append(added, h)
	}
	if err := store.ApproveWorkspace(o.Home.TrustedWorkspaces(), store.WorkspaceApproval{Root: o.Workspace.Root, Digest: digest, ApprovedAt: opts.Now().UTC(), ApprovedBy: opts.By}); err != nil {
		return err
	}
	fmt.Fprintf(w, "approved the workspace again as generation %d was built from it (approved %s by %s; %s added)\n",
		target, before.ApprovedAt.UTC().Format(time.DateTime), before.ApprovedBy, count(len(added), "widening value", "widening values"))
	for _, h := range added {
		fmt.Fprintf(w, "  widens %s %s  (%s)\n", h.Field, h.Value, h.Pos)
	}
	return nil
}

// unapprovedHooks keeps the plan's hooks that would not run today: a hook
// already approved at the hash it now has is not listed again.
func unapprovedHooks(res *resolver.Result, home store.Home, ws store.Workspace) []resolver.PlanHook {
	if res.Resolved == nil || len(res.Plan.Hooks) == 0 {
		return res.Plan.Hooks
	}
	reg, _ := hooks.FromResolved(res.Resolved, hooks.BuildOptions{Home: home.Dir, ExtEnv: settingsEnv(res.Resolved, nil)})
	rows, err := (&hookSet{r: res.Resolved, reg: reg, home: home, ws: ws}).rows()
	if err != nil {
		return res.Plan.Hooks
	}
	key := func(ext string, ev hooks.Event, name string) string { return ext + "\x00" + string(ev) + "\x00" + name }
	runs := map[string]bool{}
	for _, r := range rows {
		if r.Trust.Runs() {
			runs[key(r.Extension, r.Event, r.Name)] = true
		}
	}
	var out []resolver.PlanHook
	for _, h := range res.Plan.Hooks {
		if ev, err := hooks.ParseEvent(h.Event); err != nil || !runs[key(h.Extension, ev, h.Hook)] {
			out = append(out, h)
		}
	}
	return out
}
