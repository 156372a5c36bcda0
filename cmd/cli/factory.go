package cli

import (
	"context"
	"os"
	"time"

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

// Workspace finds the workspace from --workspace or the working directory.
func (f *Factory) Workspace() (store.Workspace, error) {
	dir := f.Global.Workspace
	if dir == "" {
		wd, err := f.Getwd()
		if err != nil {
			return store.Workspace{}, err
		}
		dir = wd
	}
	ws, _ := store.FindWorkspace(dir)
	return ws, nil
}
