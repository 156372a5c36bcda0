package tools

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/ollm/ollm/core/sandbox"
	"github.com/ollm/ollm/core/tool"
	"github.com/ollm/ollm/schema"
	"github.com/ollm/ollm/store"
)

// Config is what the runtime resolved for the built-in tools.
type Config struct {
	Root      string          // workspace root; file tools are confined to it and ExtraDirs
	ExtraDirs []string        // tools.extraDirs, absolute or relative to Root
	Tools     schema.Tools    // the profile's tools section
	Home      store.Home      // global memory
	Workspace store.Workspace // workspace memory and todos; zero means Root
	HTTP      *http.Client    // web tools; nil means a client with a 30 s timeout
	Environ   func() []string // the shell's environment before sanitising; nil means os.Environ
	Getenv    func(string) string
	Limits    tool.Limits // output limits; zero means tool.DefaultLimits
	MaxFile   int64       // read_file's size limit in bytes; 0 means 10 MiB
	Jobs      *Jobs       // the shell's background jobs; nil means a table of their own
	// Sandbox is the shell's sandbox (commands and background jobs); nil
	// runs them unsandboxed. SandboxRequired refuses to run a command when
	// the machine cannot sandbox it.
	Sandbox         *sandbox.Policy
	SandboxRequired bool
	// SandboxNow, when set, is Sandbox as the filesystem is now: a
	// repository made in the workspace since the session started is
	// pinned from the next command on. Each command runs under what it
	// returns (sandbox.Resolve keeps a policy until a path it was made
	// from changes, so this costs ~10 us a call).
	SandboxNow func() *sandbox.Policy
}

// Jobs holds the shell tool's background jobs. A session keeps one across
// reloads and kills them when it ends: they run in their own process group
// and would otherwise outlive ollm.
type Jobs struct{ t *jobTable }

// NewJobs returns an empty job table.
func NewJobs() *Jobs { return &Jobs{t: newJobTable()} }

// KillAll stops every background job.
func (j *Jobs) KillAll() { j.t.KillAll() }

// defaults fills the zero fields.
func (c Config) defaults() Config {
	if c.Workspace.Root == "" {
		c.Workspace = store.Workspace{Root: c.Root}
	}
	if c.HTTP == nil {
		c.HTTP = &http.Client{Timeout: 30 * time.Second}
	}
	if c.Environ == nil {
		c.Environ = os.Environ
	}
	if c.Getenv == nil {
		c.Getenv = os.Getenv
	}
	if c.Limits == (tool.Limits{}) {
		c.Limits = tool.DefaultLimits
	}
	if c.MaxFile == 0 {
		c.MaxFile = 10 << 20
	}
	return c
}

// env is what every tool of one Builtin call shares.
type env struct {
	cfg      Config
	once     sync.Once
	paths    *Paths
	pathsErr error
	jobs     *jobTable
	// sandboxWarn says "running without a sandbox" once per session.
	sandboxWarn sync.Once
	// gitSeen is the workspace's .git list after the last shell call.
	gitSeen gitSeen
}

// resolve confines a path from the model (see Paths.Locate).
func (e *env) resolve(p string) (Loc, error) {
	e.once.Do(func() { e.paths, e.pathsErr = NewPaths(e.cfg.Root, e.cfg.ExtraDirs) })
	if e.pathsErr != nil {
		return Loc{}, &tool.Error{Kind: tool.ErrUnavailable, Message: e.pathsErr.Error()}
	}
	return e.paths.Locate(p)
}

// rel shows abs relative to the workspace root.
func (e *env) rel(abs string) string {
	if e.paths == nil {
		return abs
	}
	return e.paths.Rel(abs)
}

func (e *env) walkOpts(hidden bool, depth int) walkOpts {
	return walkOpts{includeHidden: hidden, maxDepth: depth, getenv: e.cfg.Getenv, fallbackTop: e.cfg.Root}
}

// truncate applies the output limits.
func (e *env) truncate(s string) string {
	out, _ := tool.Truncate(s, e.cfg.Limits)
	return out
}

// truncateMore applies the output limits to the kept start of an output
// whose rest (more) was not kept.
func (e *env) truncateMore(s string, more tool.Truncation) string {
	out, _ := tool.TruncateMore(s, e.cfg.Limits, more)
	return out
}

// Builtin returns every built-in tool, sorted by name. Tools named in
// cfg.Tools.Disabled are left out.
func Builtin(cfg Config) []tool.Tool {
	if cfg.Jobs == nil {
		cfg.Jobs = NewJobs()
	}
	e := &env{cfg: cfg.defaults(), jobs: cfg.Jobs.t}
	all := []tool.Tool{
		newEditFile(e), newGlob(e), newGrep(e), newLs(e), newMemory(e),
		newReadFile(e), newReadManyFiles(e), newShell(e), newShellKill(e),
		newShellOutput(e), newWebFetch(e), newWebSearch(e), newWriteFile(e),
		newWriteTodos(e),
	}
	var out []tool.Tool
	for _, t := range all {
		if !disabled(cfg.Tools.Disabled, t.Name()) {
			out = append(out, t)
		}
	}
	return out
}

func disabled(list []string, name string) bool {
	for _, d := range list {
		if strings.EqualFold(d, name) {
			return true
		}
	}
	return false
}

// Schema helpers keep the tool files short.
func obj(required []string, props map[string]*tool.Schema) *tool.Schema {
	return &tool.Schema{Type: "object", Properties: props, Required: required, AdditionalProperties: false}
}
func str(desc string) *tool.Schema     { return &tool.Schema{Type: "string", Description: desc} }
func boolean(desc string) *tool.Schema { return &tool.Schema{Type: "boolean", Description: desc} }
func integer(desc string, minimum float64) *tool.Schema {
	return &tool.Schema{Type: "integer", Description: desc, Minimum: &minimum}
}
func enum(desc string, values ...any) *tool.Schema {
	return &tool.Schema{Type: "string", Description: desc, Enum: values}
}

// trust is what the file at loc decides when it is a trust file
// (store.TrustPath, judged by the path as named and by the real path the
// write goes to), or "".
func (e *env) trust(loc Loc) string {
	for _, p := range []string{filepath.Join(loc.dir, loc.rel), loc.Abs} {
		if why, ok := store.TrustPath(e.cfg.Workspace, e.cfg.Home.Dir, p); ok {
			return why
		}
	}
	return ""
}

// trustTitle is a confirmation's title for a write to a trust file: it
// says so first, in every dialog.
func trustTitle(title, why string) string {
	if why == "" {
		return title
	}
	return title + " - a file that decides what runs: " + why
}

// becameTrust refuses a write whose file became a trust file after the
// gate asked about it as an ordinary one (a bare repository made around
// it meanwhile); asked is the Trust the confirmation carried.
func (e *env) becameTrust(loc Loc, asked string) (tool.Result, bool) {
	if asked != "" {
		return tool.Result{}, false
	}
	if why := e.trust(loc); why != "" {
		return tool.Fail(tool.ErrPolicy, "%s became a file that decides what runs (%s) after the call was allowed; nothing was written", e.rel(loc.Abs), why), true
	}
	return tool.Result{}, false
}
