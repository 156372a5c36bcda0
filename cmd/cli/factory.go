package cli

import (
	"context"
	"errors"
	"os"
	"sync"
	"time"

	"github.com/ollm/ollm/core/runtime"
	"github.com/ollm/ollm/profiles"
	"github.com/ollm/ollm/resolver"
	"github.com/ollm/ollm/schema"
	"github.com/ollm/ollm/store"
)

// Factory is the one place real dependencies are built. Commands take what
// they need from it as functions, so tests can replace any of them.
type Factory struct {
	IO      *IOStreams
	Getenv  func(string) string
	Environ func() []string
	Getwd   func() (string, error)
	Now     func() time.Time
	Context context.Context
	// Flags shared by every command (set by the root command).
	Global GlobalFlags

	noticeMu sync.Mutex
	noticed  map[string]bool // generation notices printed (notice)
}

// GlobalFlags are the root command's persistent flags.
type GlobalFlags struct {
	Workspace string   // --workspace: start the workspace search here
	Ext       []string // --ext PATH: load an extension for this run
	Model     string   // --model: override model.name for this run
	Verbose   bool
}

// NewFactory builds the factory for a real process.
func NewFactory(ctx context.Context) *Factory {
	return &Factory{
		IO:      SystemIO(),
		Getenv:  os.Getenv,
		Environ: os.Environ,
		Getwd:   os.Getwd,
		Now:     time.Now,
		Context: ctx,
	}
}

// Home resolves OLLM_HOME.
func (f *Factory) Home() (store.Home, error) { return store.DefaultHome(f.Getenv) }

// Workspace finds the workspace from --workspace or the working directory
// (store.FindWorkspace: ollm.cue, else the git root, else the directory).
// The home directory and OLLM_HOME are a *store.NotWorkspaceError: what
// runs the model (sessions, tools, the sandbox) refuses to start there.
func (f *Factory) Workspace() (store.Workspace, error) {
	dir := f.Global.Workspace
	if dir == "" {
		wd, err := f.Getwd()
		if err != nil {
			return store.Workspace{}, err
		}
		dir = wd
	}
	home, err := f.Home()
	if err != nil {
		return store.Workspace{}, err
	}
	return store.FindWorkspace(dir, f.userHome(), home)
}

// WorkspaceOrNone is Workspace for the commands that read or edit the
// user's own layer too (profile show, doctor, hooks, skills, mcp add
// --user): in the home directory or OLLM_HOME there is no workspace
// (Root ""), and why is returned beside it.
func (f *Factory) WorkspaceOrNone() (ws store.Workspace, none *store.NotWorkspaceError, err error) {
	ws, err = f.Workspace()
	if errors.As(err, &none) {
		return store.Workspace{}, none, nil
	}
	return ws, nil, err
}

// userHome is the user's home directory: $HOME, else the system's idea.
func (f *Factory) userHome() string {
	if f.Getenv != nil {
		if h := f.Getenv("HOME"); h != "" {
			return h
		}
	}
	h, _ := os.UserHomeDir()
	return h
}

// LoadProfile is what runs in this workspace: its current generation
// (see generation.go), with an unapproved workspace's widening values held
// back; the files when no generation was applied yet or --ext adds
// extensions. An invalid profile is a *ConfigError (exit 2) whose message
// names every file and position.
func (f *Factory) LoadProfile() (*schema.Resolved, error) { return f.loadProfile(false, true) }

// LoadUngated is LoadProfile as if the workspace were approved: what
// `ollm trust` would approve, and the specs of held workspace servers a
// session may approve one by one. Nothing loaded this way runs unless the
// user approves it.
func (f *Factory) LoadUngated() (*schema.Resolved, error) { return f.loadProfile(true, true) }

// LoadFiles resolves what the profile files say now (gated), whatever
// generation runs: `profile show --source`, validation after an edit.
func (f *Factory) LoadFiles() (*schema.Resolved, error) { return f.loadProfile(false, false) }

// In the home directory or OLLM_HOME the three load the user's layers
// alone (no workspace): profile show and doctor work there; what would
// run the model refuses in Workspace.
func (f *Factory) loadProfile(ungated, generation bool) (*schema.Resolved, error) {
	if generation {
		base, err := f.baseOptions(true)
		if err != nil {
			return nil, err
		}
		r, _, ok, err := f.fromGeneration(base, ungated)
		if err != nil || ok {
			return r, err
		}
	}
	opts, err := f.ProfileOptionsOrUser()
	if err != nil {
		return nil, err
	}
	opts.Ungated = ungated
	r, err := profiles.Load(opts)
	if err != nil {
		var pe *profiles.Error
		if errors.As(err, &pe) {
			return nil, &ConfigError{Err: err}
		}
		return nil, err
	}
	if opts.Workspace.Root == "" {
		return r, nil
	}
	// npx/pnpm dlx/uvx servers start the package version ollm.lock pins.
	lock, err := resolver.ReadLock(opts.Workspace.Lock())
	if err != nil {
		return nil, &ConfigError{Err: err}
	}
	return resolver.PinServers(lock, r), nil
}

// ProfileOptions are the loader options for this invocation: OLLM_HOME,
// the workspace, --ext and --model, and the extensions and team profiles
// ollm.lock pins, loaded from the store once each is verified against its
// hash. A changed store entry is a *store.TamperedError (exit 3): nothing
// that loads the profile through here uses it.
func (f *Factory) ProfileOptions() (profiles.Options, error) {
	opts, err := f.BaseOptions()
	if err != nil {
		return profiles.Options{}, err
	}
	return resolver.StoreOptions(opts)
}

// ProfileOptionsOrUser is ProfileOptions, or in the home directory or
// OLLM_HOME the user's layers alone (Workspace.Root ""): for the commands
// that only read the profile (show, validate, doctor).
func (f *Factory) ProfileOptionsOrUser() (profiles.Options, error) {
	opts, err := f.baseOptions(true)
	if err != nil {
		return profiles.Options{}, err
	}
	return resolver.StoreOptions(opts)
}

// BaseOptions are ProfileOptions without the store entries, for the
// commands that fill, repair or inspect the store themselves (profile
// apply, lock, diff, generations; ext add, update, verify): a tampered
// entry must not stop its own repair.
// Outside a workspace (the home directory, OLLM_HOME) it is the
// *store.NotWorkspaceError: these commands write the workspace's lock.
func (f *Factory) BaseOptions() (profiles.Options, error) { return f.baseOptions(false) }

func (f *Factory) baseOptions(orUser bool) (profiles.Options, error) {
	home, err := f.Home()
	if err != nil {
		return profiles.Options{}, err
	}
	ws, err := f.Workspace()
	var none *store.NotWorkspaceError
	if orUser && errors.As(err, &none) {
		ws, err = store.Workspace{}, nil
	}
	if err != nil {
		return profiles.Options{}, err
	}
	return profiles.Options{Home: home, Workspace: ws, Ext: f.Global.Ext, Model: f.Global.Model}, nil
}

// lookupEnv adapts a getenv to a lookup in which an empty variable counts
// as unset, as extension settings read them.
func lookupEnv(getenv func(string) string) func(string) (string, bool) {
	return runtime.LookupEnv(getenv)
}
