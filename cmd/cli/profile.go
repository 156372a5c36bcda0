package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ollm/ollm/core/ext"
	"github.com/ollm/ollm/profiles"
	"github.com/ollm/ollm/resolver"
	"github.com/ollm/ollm/schema"
	"github.com/ollm/ollm/store"
)

func newCmdProfile(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "profile",
		Short: "Show, check, create and apply the resolved profile",
		Long: `The profile is the builtin defaults, your user profile ($OLLM_HOME/profile.cue)
and the workspace's ollm.cue, unified through ollm's CUE schema, plus every
extension manifest found in the discovery directories.`,
	}
	for _, sub := range profileSubcommands {
		cmd.AddCommand(sub(f))
	}
	return cmd
}

// profileSubcommands lists the `ollm profile` subcommands, one per line.
var profileSubcommands = []func(*Factory) *cobra.Command{
	newCmdProfileShow,
	newCmdProfileValidate,
	newCmdProfileInit,
	newCmdProfileApply,
	newCmdProfileLock,
	newCmdProfileDiff,
	newCmdProfileGenerations,
	newCmdProfileRollback,
}

// ProfileShowOptions are the options of `ollm profile show`.
type ProfileShowOptions struct {
	IO *IOStreams
	// Workspace finds the workspace (Factory.Workspace), printed first.
	Workspace func() (store.Workspace, error)
	Load      func() (*schema.Resolved, error)
	Files     func() (*schema.Resolved, error)
	Source    bool
	JSON      bool
}

func newCmdProfileShow(f *Factory) *cobra.Command {
	opts := &ProfileShowOptions{IO: f.IO, Load: f.LoadProfile, Files: f.LoadFiles, Workspace: f.Workspace}
	cmd := &cobra.Command{
		Use:   "show",
		Short: "Print the resolved profile (sensitive values redacted)",
		Long: `Show prints what runs in this workspace: its current generation (see
'ollm profile generations'), with an unapproved workspace's widening values
held back. --source resolves what the profile files say now instead, which
differs when they changed since the generation was built and were not
applied (profile.autoApply: "never", a change that needs a fetch, or a
rollback).`,
		Args: noArgs,
		Example: `  ollm profile show
  ollm profile show --source   # what the files say now
  ollm profile show --json | jq .profile.policy
  ollm --ext ./my-ext profile show   # as it would be with an extension loaded for one run`,
		RunE: func(cmd *cobra.Command, args []string) error { return profileShowRun(opts) },
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the whole resolution as JSON")
	cmd.Flags().BoolVar(&opts.Source, "source", false, "resolve the profile files as they are now, not the current generation")
	return cmd
}

func profileShowRun(opts *ProfileShowOptions) error {
	load := opts.Load
	if opts.Source && opts.Files != nil {
		load = opts.Files
	}
	r, err := load()
	if err != nil {
		return err
	}
	r = profiles.Redact(r)
	if opts.JSON {
		return writeJSON(opts.IO.Out, r)
	}
	w := opts.IO.Out
	if opts.Workspace != nil {
		if ws, err := opts.Workspace(); err != nil {
			fmt.Fprintf(w, "# workspace: none (%v)\n", err)
		} else {
			fmt.Fprintf(w, "# workspace: %s (%s)\n", ws.Root, ws.Found)
		}
	}
	fmt.Fprintln(w, "# layers (lowest first)")
	for _, l := range r.Layers {
		fmt.Fprintf(w, "#   %-9s %s\n", l.Scope, l.File)
	}
	if len(r.Extensions) > 0 {
		fmt.Fprintln(w, "# extensions")
		for _, x := range r.Extensions {
			fmt.Fprintf(w, "#   %-20s %-9s %s\n", x.Name+"@"+x.Manifest.Version, x.Scope, x.Dir)
		}
	}
	if err := writeJSON(w, r.Profile); err != nil {
		return err
	}
	printHeld(opts.IO, r.Problems, r.Workspace)
	return nil
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// printProblems prints each problem with its position and fix.
func printProblems(w io.Writer, ps []schema.Problem) {
	for _, p := range ps {
		where := p.Pos
		if where == "" {
			where = p.File
		}
		ext := ""
		if p.Extension != "" {
			ext = "extension " + p.Extension + ": "
		}
		fmt.Fprintf(w, "%s: %s: %s%s\n", p.Severity, where, ext, p.Message)
		if p.Fix != "" {
			fmt.Fprintf(w, "  fix: %s\n", p.Fix)
		}
	}
}

// ProfileValidateOptions are the options of `ollm profile validate`.
type ProfileValidateOptions struct {
	IO      *IOStreams
	Options func() (profiles.Options, error)
	Getenv  func(string) string
	// Stale compares ollm.lock with the profile as `profile apply
	// --locked` does (resolver.Applier.Check); nil skips it.
	Stale func() ([]resolver.Change, *schema.Lock, error)
	JSON  bool
}

func newCmdProfileValidate(f *Factory) *cobra.Command {
	opts := &ProfileValidateOptions{IO: f.IO, Options: f.ProfileOptionsOrUser, Getenv: f.Getenv, Stale: newResolveDeps(f).check}
	cmd := &cobra.Command{
		Use:   "validate",
		Short: "Check every profile layer and extension manifest",
		Long: `Validate evaluates every layer and manifest afresh (ignoring the cache) and
prints each error with file:line:col, and reads the workspace's ollm.lock. It
checks the profile's settings against each extension's declared settings as
loading the extension would: a wrong type, a value outside the enum or
pattern, or a setting the extension does not declare is an error; a required
setting without a value is a warning (its environment variable may be set
where ollm runs). It compares ollm.lock with the profile as 'ollm profile
apply --locked' does: a source added, removed or changed in ollm.cue
without relocking makes the lock stale. It exits with status 2 when the
profile, any extension manifest, a setting or the lock is invalid or
stale, so CI can run it.`,
		Args:    noArgs,
		Example: "  ollm profile validate\n  ollm profile validate --json",
		RunE:    func(cmd *cobra.Command, args []string) error { return profileValidateRun(opts) },
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the result as JSON")
	return cmd
}

type validateResult struct {
	Valid      bool                  `json:"valid"`
	Layers     []schema.Layer        `json:"layers,omitempty"`
	Extensions int                   `json:"extensions"`
	Errors     []profiles.Diagnostic `json:"errors,omitempty"`
	Problems   []schema.Problem      `json:"problems,omitempty"`
}

func profileValidateRun(opts *ProfileValidateOptions) error {
	lo, err := opts.Options()
	if err != nil {
		return err
	}
	lo.NoCache, lo.Ungated = true, true // every value of every file, held back or not
	r, err := profiles.Load(lo)
	res := validateResult{Valid: err == nil}
	var pe *profiles.Error
	switch {
	case err == nil:
		res.Layers, res.Extensions, res.Problems = r.Layers, len(r.Extensions), append(r.Problems, settingProblems(r, opts.Getenv)...)
		for _, p := range res.Problems {
			res.Valid = res.Valid && p.Severity != "error"
		}
	case errors.As(err, &pe):
		res.Errors = pe.Diags
	default:
		return err
	}
	lerr := checkLockFile(lo.Workspace)
	if lerr == nil && pe == nil {
		lerr = opts.staleLock(lo.Workspace)
	}
	if lerr != nil {
		res.Valid = false
		res.Errors = append(res.Errors, profiles.Diagnostic{Pos: lo.Workspace.Lock(), Message: lerr.Error()})
	}
	if opts.JSON {
		if err := writeJSON(opts.IO.Out, res); err != nil {
			return err
		}
		if !res.Valid {
			return &SilentError{Code: ExitConfig}
		}
		return nil
	}
	if pe != nil {
		return &ConfigError{Err: err}
	}
	printProblems(opts.IO.ErrOut, res.Problems)
	if lerr != nil {
		return &ConfigError{Err: lerr}
	}
	if !res.Valid {
		return &ConfigError{Err: fmt.Errorf("profile is valid but some extensions are not (see above); they will be skipped")}
	}
	fmt.Fprintf(opts.IO.Out, "ok: %d layers, %d extensions\n", len(res.Layers), res.Extensions)
	return nil
}

// settingProblems checks the profile's settings against each extension's
// declared settings, as loading the extension will: a value of the wrong
// type, outside its enum or pattern, or a setting the extension does not
// declare is an error (it would disable the extension); a required
// setting with no value is a warning (its environment variable may be set
// where ollm runs, not where it is validated); settings for an extension
// the profile does not have are a warning.
func settingProblems(r *schema.Resolved, getenv func(string) string) []schema.Problem {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	var out []schema.Problem
	have := map[string]bool{}
	for _, x := range r.Extensions {
		have[x.Name] = true
		_, errs := ext.ResolveSettings(x.Name, x.Manifest.Settings, r.Profile.Settings[x.Name], lookupEnv(getenv))
		for _, err := range errs {
			msg := strings.TrimPrefix(err.Error(), "extension "+x.Name+": ")
			p := schema.Problem{Severity: "error", Extension: x.Name, File: x.File, Message: msg}
			if !strings.Contains(msg, "ollm ext info") {
				p.Fix = fmt.Sprintf("`ollm ext info %s` lists its settings", x.Name)
			}
			var se *ext.SettingError
			if errors.As(err, &se) && se.Missing {
				p.Severity = "warning"
			}
			out = append(out, p)
		}
	}
	names := make([]string, 0, len(r.Profile.Settings))
	for name := range r.Profile.Settings {
		names = append(names, name)
	}
	sort.Strings(names)
	top := ""
	if len(r.Layers) > 0 {
		top = r.Layers[len(r.Layers)-1].File
	}
	for _, name := range names {
		if !have[name] {
			out = append(out, schema.Problem{Severity: "warning", File: top, Message: fmt.Sprintf("settings.%s: the profile has no extension %s, so these settings are not used", name, name),
				Fix: "remove them, or add the extension (`ollm ext add`)"})
		}
	}
	return out
}

// staleLock is an error listing what ollm.lock lacks or pins differently
// from what the profile asks for, the check `profile apply --locked` fails
// on; nil when it is up to date, or missing (apply writes it).
func (opts *ProfileValidateOptions) staleLock(ws store.Workspace) error {
	if ws.Root == "" || opts.Stale == nil {
		return nil
	}
	changes, old, err := opts.Stale()
	if err != nil {
		return err
	}
	if old == nil || len(changes) == 0 {
		return nil
	}
	msg := fmt.Sprintf("%s is out of date with the profile:", ws.Lock())
	for _, c := range changes {
		msg += "\n  " + c.String()
	}
	return errors.New(msg + "\n  fix: run `ollm profile apply` (or `ollm profile lock`) and commit ollm.lock")
}

// checkLockFile reads the workspace's ollm.lock as `profile apply` will; a
// missing lock is fine (apply writes it).
func checkLockFile(ws store.Workspace) error {
	if ws.Root == "" {
		return nil
	}
	_, err := resolver.ReadLock(ws.Lock())
	return err
}

// ProfileInitOptions are the options of `ollm profile init`.
type ProfileInitOptions struct {
	IO        *IOStreams
	Dir       func() (string, error)
	Force     bool
	Model     string
	Workspace bool
	OwnEdit   ownEditFunc // approves what init writes (trust_apply.go)
}

func newCmdProfileInit(f *Factory) *cobra.Command {
	opts := &ProfileInitOptions{IO: f.IO, OwnEdit: newOwnEdit(f), Dir: func() (string, error) {
		dir := f.Global.Workspace
		if dir == "" {
			wd, err := f.Getwd()
			if err != nil {
				return "", err
			}
			dir = wd
		}
		// ~/ollm.cue would make nothing a workspace: refuse to write it.
		var none *store.NotWorkspaceError
		if _, err := f.Workspace(); errors.As(err, &none) {
			return "", err
		}
		return dir, nil
	}}
	cmd := &cobra.Command{
		Use:   "init",
		Short: "Write a commented starter ollm.cue in this directory",
		Args:  noArgs,
		Example: `  ollm profile init
  ollm profile init --model llama3.2
  ollm -C ~/src/project profile init --force`,
		RunE: func(cmd *cobra.Command, args []string) error { return profileInitRun(opts) },
	}
	cmd.Flags().BoolVar(&opts.Force, "force", false, "overwrite an existing ollm.cue")
	cmd.Flags().StringVar(&opts.Model, "model", "", "model name to put in the starter")
	return cmd
}

func profileInitRun(opts *ProfileInitOptions) error {
	dir, err := opts.Dir()
	if err != nil {
		return err
	}
	path := filepath.Join(dir, store.ProfileFileName)
	if _, err := os.Stat(path); err == nil && !opts.Force {
		return &FlagError{Err: fmt.Errorf("%s already exists; use --force to overwrite it", path)}
	}
	model := opts.Model
	if model == "" {
		model = "qwen3:8b"
	}
	content := strings.ReplaceAll(starterProfile, "{{model}}", model)
	var own ownEdit
	if opts.OwnEdit != nil {
		own = opts.OwnEdit(dir)
	}
	if err := store.WriteFile(path, []byte(content), store.PermShared); err != nil {
		return err
	}
	fmt.Fprintf(opts.IO.Out, "wrote %s\n", path)
	if err := own.approve(opts.IO.Out, "ollm profile init"); err != nil {
		return err
	}
	fmt.Fprintln(opts.IO.Out, "next: edit it, then run `ollm profile validate` and `ollm profile apply`; after a hand edit, `ollm trust` reviews and approves it")
	return nil
}
