package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ollm/ollm/internal/lazyre"
	"github.com/ollm/ollm/profiles"
	"github.com/ollm/ollm/resolver"
	"github.com/ollm/ollm/schema"
	"github.com/ollm/ollm/store"
)

// ExtAddOptions are the options of `ollm ext add`.
type ExtAddOptions struct {
	Deps    ResolveDeps
	Getwd   func() (string, error)
	Arg     string
	Name    string
	Ref     string
	Subdir  string
	Plugin  string
	JSON    bool
	Replace bool
	OwnEdit ownEditFunc // approves what add writes (trust_apply.go)
}

func newCmdExtAdd(f *Factory) *cobra.Command {
	opts := &ExtAddOptions{Deps: newResolveDeps(f), Getwd: f.Getwd, OwnEdit: newOwnEdit(f)}
	cmd := &cobra.Command{
		Use:   "add <git-url|owner/repo>[@ref]",
		Short: "Add a git-sourced extension to ollm.cue, lock it and apply",
		Long: `Add writes extensions.sources.NAME into the workspace's ollm.cue (creating it if
needed) through the CUE syntax tree, so comments and formatting survive, then
locks and applies the profile. NAME defaults to the name in the extension's
manifest. The URL may be https, ssh (git@host:path), file://, a local
repository path, or owner/repo for a repository on GitHub (as Claude Code's
/plugin marketplace add reads it; a local folder of that name wins); the
ref a tag, a branch or a commit (default: the remote's HEAD).

The extension may be an ollm extension (manifest.json), a Gemini CLI
extension (gemini-extension.json) or a Claude Code plugin
(.claude-plugin/plugin.json); a plugin inside a Claude Code marketplace
repository is added with --plugin and its name (the plugin's folder, or the
repository its marketplace entry names: github, url, git-subdir), or with
--subdir and its folder; adding the marketplace itself lists its plugins.
An entry that defines its plugin (strict: false, or commands, hooks,
mcpServers, skills... in the entry) is added as {git: ..., plugin: NAME}:
ollm.lock pins the marketplace's commit and a hash that covers the entry,
whose paths must stay inside the plugin's folder. npm and pip sources are
not supported.
` + "`ollm ext info NAME`" + ` shows what of a plugin was imported and what was
skipped, and why.

The extension's manifest is fetched and validated first: an invalid one is
refused (exit 2) before anything is written. A source of the same name that
ollm.cue already declares from elsewhere is refused (exit 2) unless
--replace says to swap it. ollm.cue and ollm.lock are edited under the
workspace lock, so concurrent adds and applies all take effect. If the apply
fails, ollm.cue is restored.`,
		Args: exactArgs(1),
		Example: `  ollm ext add https://example.com/you/ollm-guard.git@v1.2.0
  ollm ext add team/claude-plugins --plugin guard
  ollm ext add git@example.com:team/tools.git --subdir extensions/lint --name lint
  ollm ext add ../guard-repo@main
  ollm ext add https://example.com/team/claude-plugins.git --subdir plugins/guard
  ollm ext add https://example.com/team/claude-plugins.git --plugin guard`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Arg = args[0]
			return extAddRun(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Name, "name", "", "name of the source (default: the manifest's name)")
	cmd.Flags().StringVar(&opts.Ref, "ref", "", "ref to pin (instead of URL@ref)")
	cmd.Flags().StringVar(&opts.Subdir, "subdir", "", "folder of the extension inside the repository")
	cmd.Flags().StringVar(&opts.Plugin, "plugin", "", "a plugin of a Claude Code marketplace repository, by name")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the apply result as JSON")
	cmd.Flags().BoolVar(&opts.Replace, "replace", false, "replace a source of the same name that ollm.cue already declares")
	return cmd
}

var scpLike = lazyre.New(`^[A-Za-z0-9._-]+@[A-Za-z0-9._-]+:`)

// splitRef splits URL@ref. The ref is taken only from an @ after the last
// '/' and ':' so user@host:path (scp syntax) keeps its user.
func splitRef(arg string) (url, ref string) {
	at := strings.LastIndex(arg, "@")
	if at <= 0 || at < strings.LastIndexAny(arg, "/:") {
		return arg, ""
	}
	if scpLike.MatchString(arg) && strings.Count(arg, "@") == 1 {
		return arg, ""
	}
	return arg[:at], arg[at+1:]
}

func isRemote(url string) bool {
	return strings.Contains(url, "://") || scpLike.MatchString(url)
}

func extAddRun(opts *ExtAddOptions) error {
	lo, err := opts.Deps.Options()
	if err != nil {
		return err
	}
	ws := lo.Workspace
	src, probe, err := extAddSource(opts, ws)
	if err != nil {
		return err
	}
	a, err := opts.Deps.applier()
	if err != nil {
		return err
	}
	if opts.Plugin != "" {
		if src, probe, err = marketplacePlugin(opts, a, src, probe); err != nil {
			return err
		}
	}
	name, err := extAddName(opts, a, probe)
	if err != nil {
		return err
	}
	unlock, err := resolver.LockWorkspace(lo.Home, ws)
	if err != nil {
		return err
	}
	defer unlock()
	var own ownEdit
	if opts.OwnEdit != nil {
		own = opts.OwnEdit(ws.Root)
	}
	restore, err := editProfile(ws, func(data []byte) ([]byte, error) {
		if err := checkTaken(ws.Profile(), data, name, src, opts.Replace); err != nil {
			return nil, err
		}
		return profiles.AddSource(ws.Profile(), data, name, src)
	})
	if err != nil {
		return err
	}
	res, err := opts.Deps.apply(a, resolver.ApplyOptions{Update: []string{name}, LockHeld: true})
	if err != nil {
		if rerr := restore(); rerr != nil {
			fmt.Fprintf(opts.Deps.IO.ErrOut, "warning: could not restore %s: %v\n", ws.Profile(), rerr)
		} else {
			fmt.Fprintf(opts.Deps.IO.ErrOut, "%s restored\n", ws.Profile())
		}
		return resolveError(err)
	}
	if !opts.JSON {
		fmt.Fprintf(opts.Deps.IO.Out, "added extension %s to %s\n", name, ws.Profile())
	}
	if err := opts.Deps.report(res, opts.JSON); err != nil {
		return err
	}
	return own.approve(notesTo(opts.Deps.IO, opts.JSON), "ollm ext add")
}

// extAddSource is the source ollm.cue gets (a local path relative to the
// workspace) and the one to probe now (absolute).
func extAddSource(opts *ExtAddOptions, ws store.Workspace) (src, probe schema.Source, err error) {
	url, ref := splitRef(opts.Arg)
	if opts.Ref != "" {
		ref = opts.Ref
	}
	wd, err := opts.Getwd()
	if err != nil {
		return schema.Source{}, schema.Source{}, err
	}
	url = expandShorthand(url, wd)
	src = schema.Source{Git: url, Ref: ref, Subdir: opts.Subdir}
	probe = src
	if isRemote(url) {
		return src, probe, nil
	}
	abs := url
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(wd, url)
	}
	probe.Git = abs
	if rel, err := filepath.Rel(ws.Root, abs); err == nil {
		src.Git = filepath.ToSlash(rel)
		if !strings.HasPrefix(src.Git, ".") {
			src.Git = "./" + src.Git
		}
	}
	return src, probe, nil
}

// extAddName fetches the source into a scratch directory and validates its
// manifest before anything is written; the name is the manifest's, and
// --name must agree with it.
func extAddName(opts *ExtAddOptions, a *resolver.Applier, probe schema.Source) (string, error) {
	name, err := a.Resolver.ManifestName(opts.Deps.Context, probe)
	var (
		me *profiles.ManifestError
		mk *profiles.MarketplaceError
	)
	switch {
	case errors.As(err, &mk) && opts.Plugin == "":
		return "", &ConfigError{Err: fmt.Errorf("ext add %s: %w\n  fix: add one of its plugins: ollm ext add %s --plugin NAME", opts.Arg, err, opts.Arg)}
	case errors.As(err, &me):
		return "", &ConfigError{Err: fmt.Errorf("ext add %s: %w\n  fix: fix %s in the extension's source, or pin a ref whose manifest is valid; nothing was written", opts.Arg, err, me.File)}
	case err != nil:
		return "", fmt.Errorf("ext add %s: %w\n  fix: check the URL and ref, or pass --name and --subdir", opts.Arg, err)
	case opts.Name != "" && opts.Name != name:
		return "", &ConfigError{Err: fmt.Errorf("ext add %s: %w: its manifest names it %q but --name says %q\n  fix: drop --name, or pass --name %s", opts.Arg, resolver.ErrNameMismatch, name, opts.Name, name)}
	}
	return name, nil
}

// marketplacePlugin turns the marketplace source into the source of its
// plugin opts.Plugin: a folder of the marketplace's repository, the
// marketplace's entry itself when it defines the plugin (strict: false or
// component fields: {git, plugin}), or the repository the plugin's entry
// names (then ollm.cue points at that repository, and the lock pins it as
// any git source).
func marketplacePlugin(opts *ExtAddOptions, a *resolver.Applier, src, probe schema.Source) (schema.Source, schema.Source, error) {
	if opts.Subdir != "" {
		return src, probe, &FlagError{Err: fmt.Errorf("--plugin and --subdir do not go together; --plugin finds the plugin's folder in the marketplace")}
	}
	mk, err := a.Resolver.Marketplace(opts.Deps.Context, probe)
	if err != nil {
		return src, probe, fmt.Errorf("ext add %s --plugin %s: %w\n  fix: check the URL and ref", opts.Arg, opts.Plugin, err)
	}
	if mk == nil {
		return src, probe, &ConfigError{Err: fmt.Errorf("ext add %s --plugin %s: it has no %s, so it is not a Claude Code marketplace\n  fix: drop --plugin to add the extension itself, or name a repository with %s", opts.Arg, opts.Plugin, profiles.ClaudeMarketplaceFile, profiles.ClaudeMarketplaceFile)}
	}
	p, err := mk.Plugin(opts.Plugin)
	if err != nil {
		return src, probe, &ConfigError{Err: fmt.Errorf("ext add %s --plugin %s: %w\n  fix: name one of the plugins listed, or add the plugin's own repository", opts.Arg, opts.Plugin, err)}
	}
	if p.Entry {
		// The entry defines the plugin: ollm.cue and the lock name the
		// entry, and the manifest is made from it inside the hashed tree.
		src.Plugin, probe.Plugin = p.Name, p.Name
		return src, probe, nil
	}
	if p.Git == "" {
		src.Subdir, probe.Subdir = p.Subdir, p.Subdir
		return src, probe, nil
	}
	if len(p.Dropped) > 0 {
		fmt.Fprintf(opts.Deps.IO.ErrOut, "warning: %s of plugin %s's entry in %s not applied: the plugin's files are in %s, and ollm reads its own plugin.json there\n",
			strings.Join(p.Dropped, ", "), p.Name, profiles.ClaudeMarketplaceFile, p.Git)
	}
	src = schema.Source{Git: p.Git, Ref: p.Ref, Subdir: p.Subdir}
	if opts.Ref != "" {
		src.Ref = opts.Ref
	}
	return src, src, nil
}

// checkTaken refuses to swap a source of the same name that ollm.cue
// declares from elsewhere, unless replace is set.
func checkTaken(file string, data []byte, name string, src schema.Source, replace bool) error {
	old, pos, found, err := profiles.FindSource(file, data, name)
	if err != nil || !found || replace || old == src {
		return err
	}
	return &ConfigError{Err: fmt.Errorf("extension %s is already declared at %s from %s; %s declares the same name\n  fix: pass --replace to swap %s for %s, or remove it from %s first",
		name, pos, profiles.SourceString(old), profiles.SourceString(src), profiles.SourceString(old), profiles.SourceString(src), file)}
}

// editProfile rewrites the workspace's ollm.cue with edit and returns a
// function that puts the old bytes back (or removes a file it created).
func editProfile(ws store.Workspace, edit func([]byte) ([]byte, error)) (func() error, error) {
	path := ws.Profile()
	old, err := os.ReadFile(path)
	existed := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	data, err := edit(old)
	if err != nil {
		var pe *profiles.Error
		if errors.As(err, &pe) {
			return nil, &ConfigError{Err: err}
		}
		return nil, err
	}
	if err := store.WriteFile(path, data, store.PermShared); err != nil {
		return nil, err
	}
	return func() error {
		if !existed {
			return os.Remove(path)
		}
		return store.WriteFile(path, old, store.PermShared)
	}, nil
}

// ExtUpdateOptions are the options of `ollm ext update`.
type ExtUpdateOptions struct {
	Deps  ResolveDeps
	Names []string
	JSON  bool
}

func newCmdExtUpdate(f *Factory) *cobra.Command {
	opts := &ExtUpdateOptions{Deps: newResolveDeps(f)}
	cmd := &cobra.Command{
		Use:   "update [NAME...]",
		Short: "Move locked sources to what their refs name now, and apply",
		Long: `Update resolves the named sources (all when none is named) afresh: a tag or
branch that moved since it was locked moves in ollm.lock too. A changed hash
means the extension's hooks ask for approval again. Then it applies.`,
		Example: "  ollm ext update\n  ollm ext update guard",
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Names = args
			return extUpdateRun(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the apply result as JSON")
	return cmd
}

func extUpdateRun(opts *ExtUpdateOptions) error {
	a, err := opts.Deps.applier()
	if err != nil {
		return err
	}
	names := opts.Names
	if len(names) == 0 {
		names = []string{"*"}
	}
	res, err := opts.Deps.apply(a, resolver.ApplyOptions{Update: names})
	if err != nil {
		return resolveError(err)
	}
	return opts.Deps.report(res, opts.JSON)
}

// ExtVerifyOptions are the options of `ollm ext verify`.
type ExtVerifyOptions struct {
	Deps ResolveDeps
	JSON bool
}

func newCmdExtVerify(f *Factory) *cobra.Command {
	opts := &ExtVerifyOptions{Deps: newResolveDeps(f)}
	cmd := &cobra.Command{
		Use:   "verify",
		Short: "Re-hash the store entries ollm.lock pins",
		Long: `Verify hashes every store directory that ollm.lock pins and compares it with
the lock. A changed entry is a security error (exit 3): 'ollm profile apply'
replaces it with a verified copy. A missing one exits 1.`,
		Args:    noArgs,
		Example: "  ollm ext verify\n  ollm ext verify --json",
		RunE:    func(cmd *cobra.Command, args []string) error { return extVerifyRun(opts) },
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the result as JSON")
	return cmd
}

type verifyRow struct {
	Kind   resolver.Kind `json:"kind"`
	Name   string        `json:"name"`
	Status string        `json:"status"` // ok | missing | corrupt
	Dir    string        `json:"dir"`
	Want   string        `json:"hash"`
	Got    string        `json:"got,omitempty"`
}

func extVerifyRun(opts *ExtVerifyOptions) error {
	lo, err := opts.Deps.Options()
	if err != nil {
		return err
	}
	l, err := resolver.ReadLock(lo.Workspace.Lock())
	if err != nil {
		return resolveError(err)
	}
	if l == nil {
		return &ConfigError{Err: fmt.Errorf("%s does not exist; run `ollm profile apply`", lo.Workspace.Lock())}
	}
	cas := store.NewCAS(lo.Home.Store())
	rows := []verifyRow{}
	missing, corrupt := 0, 0
	for _, sec := range []struct {
		kind    resolver.Kind
		entries []schema.LockedSource
	}{{resolver.KindProfile, l.Profiles}, {resolver.KindExtension, l.Extensions}} {
		for _, e := range sec.entries {
			row := verifyRow{Kind: sec.kind, Name: e.Name, Want: e.Hash, Status: "ok"}
			dir, err := cas.Path(e.Hash, e.Name)
			if err != nil {
				return &ConfigError{Err: fmt.Errorf("%s: %v", lo.Workspace.Lock(), err)}
			}
			row.Dir = dir
			if _, err := os.Stat(dir); err != nil {
				row.Status = "missing"
				missing++
			} else if got, err := store.HashDir(dir); err != nil || got != e.Hash {
				row.Status, row.Got = "corrupt", got
				corrupt++
			}
			rows = append(rows, row)
		}
	}
	if opts.JSON {
		if err := writeJSON(opts.Deps.IO.Out, rows); err != nil {
			return err
		}
	} else {
		for _, r := range rows {
			switch r.Status {
			case "ok":
				fmt.Fprintf(opts.Deps.IO.Out, "ok       %s %s %s\n", r.Kind, r.Name, r.Want)
			case "missing":
				fmt.Fprintf(opts.Deps.IO.Out, "missing  %s %s: not in the store; run `ollm profile apply`\n", r.Kind, r.Name)
			default:
				fmt.Fprintf(opts.Deps.IO.Out, "CORRUPT  %s %s: %s\n\tollm.lock: %s\n\ton disk:   %s\n", r.Kind, r.Name, r.Dir, r.Want, r.Got)
			}
		}
	}
	switch {
	case corrupt > 0:
		return &SecurityError{Err: fmt.Errorf("%d store entr(y/ies) differ from ollm.lock: SECURITY ERROR; run `ollm profile apply` to replace them with verified copies", corrupt)}
	case missing > 0:
		return fmt.Errorf("%d locked entr(y/ies) missing from the store; run `ollm profile apply`", missing)
	}
	return nil
}
