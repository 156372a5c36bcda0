package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/ollm/ollm/profiles"
	"github.com/ollm/ollm/resolver"
	"github.com/ollm/ollm/schema"
	"github.com/ollm/ollm/store"
)

// The runtime runs the workspace's current generation, not the files:
// sessions and every command that shows or uses what runs (ext, hooks,
// mcp, skills, tools, policy check, profile show) read it through
// Factory.LoadProfile. When the inputs changed since it was built,
// profile.autoApply decides: "local" builds and switches to a new
// generation when that needs no fetch and no new approval; otherwise the
// current one keeps running and one line says what to run. A generation
// made current by `ollm profile rollback` is pinned: it runs as it is
// until the next explicit `ollm profile apply`.

// genLoad is what fromGeneration found.
type genLoad struct {
	gen    *store.Generation
	pinned bool
}

// fromGeneration returns the current generation's resolution for this
// workspace: the ungated one when the workspace is approved at the
// generation's digest (or ungated is asked for), else its gated view. ok
// is false when the workspace has no generation or this invocation adds
// --ext extensions; the caller then loads the files.
func (f *Factory) fromGeneration(opts profiles.Options, ungated bool) (r *schema.Resolved, gl genLoad, ok bool, err error) {
	if opts.Workspace.Root == "" || len(opts.Ext) > 0 {
		return nil, gl, false, nil
	}
	gens := store.Generations{Dir: opts.Home.Generations()}
	ptr, found, err := gens.Current(opts.Workspace.Root)
	if err != nil || !found {
		return nil, gl, false, err
	}
	g, err := gens.Read(ptr.Generation)
	if err != nil {
		return nil, gl, false, err
	}
	gl = genLoad{gen: g, pinned: ptr.Rollback}
	if _, digest := resolver.Inputs(opts.Home, opts.Workspace, &g.Resolved); digest != g.InputsDigest {
		what := changedInputs(opts, g)
		if ptr.Rollback {
			f.notice(fmt.Sprintf("pinned to generation %d by `ollm profile rollback`: %s changed since, and runs only after `ollm profile apply`", g.Number, what))
		} else if next, note := f.autoApply(opts, g, what); next != nil {
			gl.gen, g = next, next
			f.notice(note)
		} else {
			f.notice(note)
		}
	}
	// The store entries the generation uses are checked before anything of
	// them is shown or run: a changed entry is a *store.TamperedError.
	v := store.NewVerifier(store.NewCAS(opts.Home.Store()), opts.Home.StoreKey())
	if _, err := resolver.TeamFiles(v, g.Lock.Profiles); err != nil {
		return nil, gl, false, err
	}
	if _, err := resolver.LockedDirs(v, g.Lock.Extensions); err != nil {
		return nil, gl, false, err
	}
	r = generationView(opts, g, ungated)
	if opts.Model != "" {
		r.Profile.Model.Name = opts.Model
	}
	return resolver.PinServers(&g.Lock, r), gl, true, nil
}

// generationView picks the resolution to run: the full one when the
// workspace is approved at the digest the generation was built from, or
// when nothing would be held back; the gated view otherwise.
func generationView(opts profiles.Options, g *store.Generation, ungated bool) *schema.Resolved {
	full := g.Resolved
	if g.Gated == nil || ungated {
		return &full
	}
	tw, err := store.LoadTrustedWorkspaces(opts.Home.TrustedWorkspaces())
	if err == nil && g.Gated.Trust.Digest != "" && tw.Approved(opts.Workspace.Root, g.Gated.Trust.Digest) {
		full.Trust = schema.Trust{Digest: g.Gated.Trust.Digest, Approved: true}
		return &full
	}
	gated := *g.Gated
	return &gated
}

// autoApply follows profile.autoApply (the running generation's) when the
// inputs changed: it returns the new generation it built and switched to,
// or nil and why it did not.
func (f *Factory) autoApply(opts profiles.Options, cur *store.Generation, what string) (*store.Generation, string) {
	keep := fmt.Sprintf("running generation %d", cur.Number)
	if cur.Resolved.Profile.Profile.AutoApply == schema.AutoApplyNever {
		return nil, fmt.Sprintf("%s changed since generation %d (profile.autoApply: never): run `ollm profile apply` to use it; %s", what, cur.Number, keep)
	}
	unlock, err := resolver.LockWorkspace(opts.Home, opts.Workspace)
	if err != nil {
		return nil, fmt.Sprintf("%s changed since generation %d, but the workspace lock failed (%v); %s", what, cur.Number, err, keep)
	}
	defer unlock()
	// Another ollm may have applied while this one waited for the lock.
	gens := store.Generations{Dir: opts.Home.Generations()}
	if ptr, ok, err := gens.Current(opts.Workspace.Root); err == nil && ok && ptr.Generation != cur.Number {
		if g, err := gens.Read(ptr.Generation); err == nil {
			if _, d := resolver.Inputs(opts.Home, opts.Workspace, &g.Resolved); d == g.InputsDigest || ptr.Rollback {
				return g, fmt.Sprintf("%s changed: running generation %d, applied by another ollm", what, g.Number)
			}
		}
	}
	base := opts
	base.Locked, base.Teams = nil, nil
	a := &resolver.Applier{Resolver: &resolver.Resolver{Store: store.NewCAS(opts.Home.Store())}, Options: base, Load: loadProfile}
	plan, err := a.Apply(f.Context, resolver.ApplyOptions{DryRun: true, Offline: true, LockHeld: true})
	if err == nil {
		if hs := unapprovedHooks(plan, opts.Home, opts.Workspace); len(hs) > 0 {
			var names []string
			for _, h := range hs {
				names = append(names, h.Extension+"/"+h.Hook)
			}
			return nil, fmt.Sprintf("%s changed since generation %d and brings hooks to approve (%s): review them with `ollm profile apply`; %s", what, cur.Number, strings.Join(names, ", "), keep)
		}
		var res *resolver.Result
		if res, err = a.Apply(f.Context, resolver.ApplyOptions{Offline: true, LockHeld: true}); err == nil {
			g, rerr := gens.Read(res.Generation)
			if rerr == nil {
				return g, fmt.Sprintf("%s changed: applied generation %d (profile.autoApply: local)", what, g.Number)
			}
			err = rerr
		}
	}
	if errors.Is(err, resolver.ErrNeedsFetch) {
		return nil, fmt.Sprintf("%s changed since generation %d and needs a fetch: run `ollm profile apply`; %s", what, cur.Number, keep)
	}
	return nil, fmt.Sprintf("%s changed since generation %d but does not apply (%s); fix it and run `ollm profile apply`; %s", what, cur.Number, errSummary(err), keep)
}

// changedInputs names the input files whose bytes differ from the
// generation's, relative to the workspace or $OLLM_HOME: "ollm.cue",
// "ollm.cue and ollm.lock", "3 profile files".
func changedInputs(opts profiles.Options, g *store.Generation) string {
	now, _ := resolver.Inputs(opts.Home, opts.Workspace, &g.Resolved)
	was := map[string]string{}
	for _, in := range g.Inputs {
		was[in.Path] = in.Digest
	}
	var names []string
	seen := map[string]bool{}
	for _, in := range now {
		seen[in.Path] = true
		if was[in.Path] != in.Digest {
			names = append(names, shortInput(opts, in.Path))
		}
	}
	for _, in := range g.Inputs {
		if !seen[in.Path] {
			names = append(names, shortInput(opts, in.Path))
		}
	}
	switch {
	case len(names) == 0:
		return "the profile"
	case len(names) == 1:
		return names[0]
	case len(names) == 2:
		return names[0] + " and " + names[1]
	}
	return fmt.Sprintf("%s and %d other profile files", names[0], len(names)-1)
}

func shortInput(opts profiles.Options, p string) string {
	switch {
	case p == "<embedded>":
		return "ollm's built-in profile (a new ollm)"
	case opts.Workspace.Root != "" && strings.HasPrefix(p, opts.Workspace.Root+string(filepath.Separator)):
		return strings.TrimPrefix(p, opts.Workspace.Root+string(filepath.Separator))
	case strings.HasPrefix(p, opts.Home.Dir+string(filepath.Separator)):
		return "$OLLM_HOME/" + strings.TrimPrefix(p, opts.Home.Dir+string(filepath.Separator))
	}
	return p
}

// errSummary is the first line of err that says something: "invalid
// profile:" is followed by its first diagnostic.
func errSummary(err error) string {
	lines := strings.Split(strings.TrimSpace(err.Error()), "\n")
	out := strings.TrimSpace(lines[0])
	if strings.HasSuffix(out, ":") && len(lines) > 1 {
		out += " " + strings.TrimSpace(lines[1])
	}
	return out
}

// notice prints a line about the generation once per process.
func (f *Factory) notice(s string) {
	if s == "" {
		return
	}
	f.noticeMu.Lock()
	defer f.noticeMu.Unlock()
	if f.noticed == nil {
		f.noticed = map[string]bool{}
	}
	if f.noticed[s] {
		return
	}
	f.noticed[s] = true
	fmt.Fprintln(f.IO.ErrOut, "ollm: "+s)
}

// CurrentGeneration reports the generation the runtime runs in this
// workspace and whether a rollback pinned it (0: none applied).
func (f *Factory) CurrentGeneration() (n int, pinned bool) {
	home, err := f.Home()
	if err != nil {
		return 0, false
	}
	ws, err := f.Workspace()
	if err != nil || ws.Root == "" {
		return 0, false
	}
	ptr, ok, err := store.Generations{Dir: home.Generations()}.Current(ws.Root)
	if err != nil || !ok {
		return 0, false
	}
	return ptr.Generation, ptr.Rollback
}

// generationDiff is how the current generation differs from the files:
// `ollm profile diff` prints it after the lock's differences.
type generationDiff struct {
	Number  int      `json:"number"`
	Pinned  bool     `json:"pinned,omitempty"`
	Behind  bool     `json:"behind"`            // the inputs changed since it was built
	Changed string   `json:"changed,omitempty"` // which inputs, in words
	Changes []string `json:"changes,omitempty"` // what running the files would change
}

// diffGeneration compares the workspace's current generation with what
// the files resolve to now (files; nil when they do not resolve). ok is
// false when the workspace has no generation.
func diffGeneration(opts profiles.Options, files *schema.Resolved) (generationDiff, bool, error) {
	var d generationDiff
	gens := store.Generations{Dir: opts.Home.Generations()}
	ptr, found, err := gens.Current(opts.Workspace.Root)
	if err != nil || !found || opts.Workspace.Root == "" {
		return d, false, err
	}
	g, err := gens.Read(ptr.Generation)
	if err != nil {
		return d, false, err
	}
	d.Number, d.Pinned = g.Number, ptr.Rollback
	if _, digest := resolver.Inputs(opts.Home, opts.Workspace, &g.Resolved); digest == g.InputsDigest {
		return d, true, nil
	}
	d.Behind, d.Changed = true, changedInputs(opts, g)
	if files != nil {
		d.Changes = resolvedChanges(&g.Resolved, files)
	}
	return d, true, nil
}

// resolvedChanges lists what differs between two resolutions, in the
// terms a user configures: extensions, MCP servers, skills, hooks,
// policy, settings, model, tools, sandbox.
func resolvedChanges(gen, files *schema.Resolved) []string {
	var out []string
	names := func(kind string, a, b []string) {
		sort.Strings(a)
		sort.Strings(b)
		for _, n := range b {
			if !slices.Contains(a, n) {
				out = append(out, "+ "+kind+" "+n)
			}
		}
		for _, n := range a {
			if !slices.Contains(b, n) {
				out = append(out, "- "+kind+" "+n)
			}
		}
	}
	exts := func(r *schema.Resolved) (xs, skills []string) {
		for _, x := range r.Extensions {
			xs = append(xs, x.Name)
			for _, s := range x.Manifest.Skills {
				skills = append(skills, s.Name)
			}
		}
		for _, s := range r.Profile.Skills {
			skills = append(skills, s.Name)
		}
		return xs, skills
	}
	gx, gs := exts(gen)
	fx, fs := exts(files)
	names("extension", gx, fx)
	names("mcp server", slices.Collect(maps.Keys(gen.Profile.MCP.Servers)), slices.Collect(maps.Keys(files.Profile.MCP.Servers)))
	names("skill", gs, fs)
	for _, part := range []struct {
		name string
		a, b any
	}{
		{"hooks", gen.Profile.Hooks, files.Profile.Hooks},
		{"policy", gen.Profile.Policy, files.Profile.Policy},
		{"settings", gen.Profile.Settings, files.Profile.Settings},
		{"model", gen.Profile.Model, files.Profile.Model},
		{"tools", gen.Profile.Tools, files.Profile.Tools},
		{"sandbox", gen.Profile.Sandbox, files.Profile.Sandbox},
		{"profile", gen.Profile.Profile, files.Profile.Profile},
	} {
		a, _ := json.Marshal(part.a)
		b, _ := json.Marshal(part.b)
		if string(a) != string(b) {
			out = append(out, "~ "+part.name)
		}
	}
	return out
}

func printGenerationDiff(w io.Writer, d *generationDiff) {
	if d == nil {
		return
	}
	pin := ""
	if d.Pinned {
		pin = fmt.Sprintf(" (pinned to %d by a rollback)", d.Number)
	}
	if !d.Behind {
		fmt.Fprintf(w, "generation %d%s runs what the profile files say\n", d.Number, pin)
		return
	}
	fmt.Fprintf(w, "generation %d%s is behind the profile files: %s changed since it was built\n", d.Number, pin, d.Changed)
	for _, c := range d.Changes {
		fmt.Fprintln(w, "  "+c)
	}
	fmt.Fprintln(w, "run `ollm profile apply` to run the files")
}
