package ext

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/ollm/ollm/core/hooks"
	"github.com/ollm/ollm/core/mcp"
	"github.com/ollm/ollm/core/skills"
	"github.com/ollm/ollm/core/tool"
	"github.com/ollm/ollm/schema"
)

// State is what an extension is doing.
type State string

const (
	StateEnabled  State = "enabled"  // wanted and loadable (active once started)
	StateDisabled State = "disabled" // by the user, the profile or autoEnable
	StateFailed   State = "failed"   // wanted, but a setting is missing or invalid, or enabling failed
	StateInvalid  State = "invalid"  // its manifest was rejected; it was never loaded
	// Listed by `ollm ext list` beside the manager's extensions:
	StateHeld     State = "held"     // an unapproved workspace's: loaded once `ollm trust` approves it
	StateShadowed State = "shadowed" // a copy another of the same name with precedence replaces
)

// HookRegistry is the part of the hook registry the manager uses;
// *hooks.Registry implements it.
type HookRegistry interface {
	Register(h *hooks.Hook) (replaced bool)
	UnregisterExtension(ext string) int
}

// Options are the runtime parts the manager plugs extensions into. A nil
// part is left alone: a Manager with only Skills set registers skills only.
type Options struct {
	StateFile string       // store.Home.ExtensionState()
	LogDir    string       // store.Home.Logs(): the manager appends to ext-<name>.log
	Home      string       // OLLM_HOME, for hook trust roots
	Hooks     HookRegistry // where extension hooks go
	Tools     *tool.Registry
	Servers   Servers // starts and stops MCP servers; nil starts none
	Skills    *skills.Registry
	// LookupEnv reads setting envVars; default os.LookupEnv.
	LookupEnv func(string) (string, bool)
	// ServerTimeout bounds the wait for an extension's servers on enable;
	// 0 means mcp.connectionTimeout from the profile, else 30 s.
	ServerTimeout time.Duration
	// OnEvent is told about every state change, after it happened.
	OnEvent func(Event)
	Logger  *slog.Logger
	Now     func() time.Time
}

// Event reports a state change of one extension. Err is already redacted.
type Event struct {
	Extension string
	State     State
	Active    bool
	Err       error
	Message   string
}

// SettingInfo is a setting as `ollm ext info` shows it; sensitive values
// are redacted.
type SettingInfo struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	EnvVar      string `json:"envVar"`
	Type        string `json:"type"`
	Required    bool   `json:"required"`
	Sensitive   bool   `json:"sensitive"`
	Source      string `json:"source"`
	Value       any    `json:"value,omitempty"`
}

// Info describes one extension.
type Info struct {
	Name        string        `json:"name"`
	Version     string        `json:"version,omitempty"`
	Description string        `json:"description,omitempty"`
	Dir         string        `json:"dir,omitempty"`
	File        string        `json:"file,omitempty"`
	Scope       schema.Scope  `json:"scope,omitempty"`
	Format      string        `json:"format,omitempty"`
	State       State         `json:"state"`
	Reason      string        `json:"reason,omitempty"`
	Active      bool          `json:"active"` // its hooks, servers, tools and skills are registered in this process
	Errors      []string      `json:"errors,omitempty"`
	Hooks       []string      `json:"hooks,omitempty"`   // event/name
	Servers     []string      `json:"servers,omitempty"` // extension:server
	ServerState []mcp.Status  `json:"serverStatus,omitempty"`
	Tools       []string      `json:"tools,omitempty"`
	Skills      []string      `json:"skills,omitempty"`
	Settings    []SettingInfo `json:"settings,omitempty"`
	Context     string        `json:"contextFileName,omitempty"`
	Shadows     []string      `json:"shadows,omitempty"`
	// Permissions are the sandbox the manifest asks for its hooks and
	// stdio servers that declare none (nil: none, the defaults).
	Permissions *schema.Sandbox `json:"permissions,omitempty"`
	// Import is what was imported and skipped of a Claude Code plugin.
	Import *schema.ImportReport `json:"import,omitempty"`
}

// Stats is the result of Start and Reload.
type Stats struct {
	Stopped int     `json:"stopped"` // extensions torn down
	Loaded  int     `json:"loaded"`  // extensions discovered (valid or not)
	Ready   int     `json:"ready"`   // enabled without an error
	Failed  int     `json:"failed"`  // invalid, or wanted but not (fully) enabled
	Errors  []error `json:"-"`       // every error, each naming its extension
}

// NotFoundError is an extension name the manager does not know.
type NotFoundError struct{ Name string }

func (e *NotFoundError) Error() string {
	return fmt.Sprintf("no extension %q; run `ollm ext list` to see the extensions", e.Name)
}

type entry struct {
	ext      schema.Extension // prepared: variables substituted
	values   []Value
	env      map[string]string
	secrets  []string
	setErrs  []error
	wanted   bool
	reason   string
	active   bool
	errs     []error // of the last enable attempt, redacted
	hooks    []string
	tools    []string
	skills   []string
	statuses []mcp.Status
}

// Manager enables and disables the extensions of a resolved profile. It is
// safe for concurrent use. Core never prints: state changes are reported
// through Options.OnEvent and the extension's log file.
type Manager struct {
	opts Options

	mu      sync.Mutex
	res     *schema.Resolved
	order   []string
	exts    map[string]*entry
	invalid map[string]schema.Problem
	other   []error // errors not tied to an enabled extension

	toolMu sync.Mutex // guards tool registration from MCP callbacks
}

// New builds a manager for r. It resolves settings and the wanted state
// of every extension but starts nothing; Start does the work.
func New(r *schema.Resolved, o Options) *Manager {
	if o.LookupEnv == nil {
		o.LookupEnv = os.LookupEnv
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	m := &Manager{opts: o}
	m.load(r)
	return m
}

func (m *Manager) load(r *schema.Resolved) {
	m.res = r
	m.exts = map[string]*entry{}
	m.order = nil
	m.invalid = map[string]schema.Problem{}
	m.other = nil
	st := StateFile{Extensions: map[string]StateEntry{}}
	if m.opts.StateFile != "" {
		s, err := ReadState(m.opts.StateFile)
		if err != nil {
			m.other = append(m.other, fmt.Errorf("extension state %s: %w; every extension falls back to extensions.autoEnable", m.opts.StateFile, err))
		} else {
			st = s
		}
	}
	if !r.Profile.Extensions.Enabled {
		return
	}
	for _, x := range r.Extensions {
		e := &entry{ext: Prepare(x, r.Workspace)}
		e.values, e.setErrs = ResolveSettings(x.Name, x.Manifest.Settings, r.Profile.Settings[x.Name], m.opts.LookupEnv)
		e.env = Env(e.values)
		e.secrets = Secrets(e.values)
		// A sensitive value set in the profile but rejected is still a secret.
		for _, d := range x.Manifest.Settings {
			if v, ok := r.Profile.Settings[x.Name][d.Name]; ok && d.Sensitive && v != nil {
				e.secrets = append(e.secrets, envString(v))
			}
			if d.Sensitive && d.EnvVar != "" {
				if v, ok := m.opts.LookupEnv(d.EnvVar); ok && v != "" {
					e.secrets = append(e.secrets, v)
				}
			}
		}
		e.wanted, e.reason = Wanted(r.Profile.Extensions, x, st)
		m.exts[x.Name] = e
		m.order = append(m.order, x.Name)
	}
	for _, p := range r.Problems {
		if p.Severity == "error" && p.Extension != "" {
			if _, ok := m.exts[p.Extension]; !ok {
				if _, seen := m.invalid[p.Extension]; !seen {
					m.invalid[p.Extension] = p
				}
			}
		}
	}
}

// Start enables every extension that should be enabled, in discovery
// order. One extension's failure never stops another's: every error is in
// Stats.Errors and in that extension's Info.
func (m *Manager) Start(ctx context.Context) Stats {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.startLocked(ctx)
}

func (m *Manager) startLocked(ctx context.Context) Stats {
	var s Stats
	s.Errors = append(s.Errors, m.other...)
	s.Loaded = len(m.order) + len(m.invalid)
	for _, name := range sortedKeys(m.invalid) {
		p := m.invalid[name]
		s.Failed++
		err := fmt.Errorf("extension %s: %s", name, p.Message)
		s.Errors = append(s.Errors, err)
		m.logf(name, "error: %v", err)
	}
	for _, name := range m.order {
		e := m.exts[name]
		if !e.wanted {
			continue // Off: not wanted; a setting error fails in activate
		}
		if err := m.activate(ctx, e); err != nil {
			s.Failed++
			s.Errors = append(s.Errors, err)
		} else {
			s.Ready++
		}
	}
	return s
}

// activate does the work of enabling; the returned error is redacted and
// names the extension.
func (m *Manager) activate(ctx context.Context, e *entry) error {
	name := e.ext.Name
	e.errs = nil
	if len(e.setErrs) > 0 {
		err := m.redact(e, fmt.Errorf("%w; extension disabled", errors.Join(e.setErrs...)))
		e.errs = []error{err}
		m.logf(name, "error: %v", err)
		m.emit(Event{Extension: name, State: StateFailed, Err: err, Message: "not enabled: a setting is missing or invalid"})
		return err
	}
	if e.active {
		return nil
	}
	var errs []error
	// Hooks, with the extension root as working directory and the settings
	// in their environment.
	if m.opts.Hooks != nil && len(e.ext.Manifest.Hooks) > 0 {
		prof := m.res.Profile
		prof.Hooks.Definitions = nil
		prof.Extensions.Enable = nil // the manager has decided already
		reg, probs := hooks.FromResolved(&schema.Resolved{Profile: prof, Extensions: []schema.Extension{e.ext}, Workspace: m.res.Workspace},
			hooks.BuildOptions{Home: m.opts.Home, ExtEnv: map[string]map[string]string{name: e.env}, ExtSecrets: map[string][]string{name: e.secrets}})
		for _, p := range probs {
			errs = append(errs, fmt.Errorf("extension %s: hook: %s", name, p.Message))
		}
		for _, h := range reg.All() {
			m.opts.Hooks.Register(h)
			e.hooks = append(e.hooks, string(h.Event)+"/"+h.Name)
		}
	}
	// Skills: manifest skills and the extension's skills/ folder.
	if m.opts.Skills != nil {
		for _, err := range m.opts.Skills.AddExtension(name, e.ext.Manifest.Skills) {
			errs = append(errs, err)
		}
		folder, ferrs := skills.LoadDir(filepath.Join(e.ext.Dir, "skills"), name)
		errs = append(errs, ferrs...)
		cmds, cerrs := skills.LoadCommands(filepath.Join(e.ext.Dir, "commands"), name) // Gemini CLI's commands/*.toml
		folder, errs = append(folder, cmds...), append(errs, cerrs...)
		cmds, cerrs = skills.PluginCommands(e.ext.Dir, name, e.ext.Import) // a Claude Code plugin's commands/*.md
		folder, errs = append(folder, cmds...), append(errs, cerrs...)
		for _, sk := range folder {
			if err := m.opts.Skills.Add(sk); err != nil {
				errs = append(errs, fmt.Errorf("extension %s: %w", name, err))
			}
		}
		for _, sk := range m.opts.Skills.List() {
			if sk.Extension == name {
				e.skills = append(e.skills, sk.Name)
			}
		}
	}
	// MCP servers, whose tools join the tool registry.
	if m.opts.Servers != nil {
		if specs := m.specs(e); len(specs) > 0 {
			sctx := ctx
			if t := m.serverTimeout(); t > 0 {
				var cancel context.CancelFunc
				sctx, cancel = context.WithTimeout(ctx, t)
				defer cancel()
			}
			st, err := m.opts.Servers.Start(sctx, name, specs, func(ts []tool.Tool) { m.setTools(e, ts) })
			e.statuses = st
			if err != nil {
				errs = append(errs, fmt.Errorf("extension %s: %w", name, err))
			}
		}
	}
	e.active = true
	if len(errs) > 0 {
		err := m.redact(e, errors.Join(errs...))
		e.errs = []error{err}
		m.logf(name, "enabled with errors: %v", err)
		m.emit(Event{Extension: name, State: StateFailed, Active: true, Err: err, Message: "enabled with errors"})
		return err
	}
	msg := fmt.Sprintf("enabled: %d hooks, %d MCP servers, %d tools, %d skills", len(e.hooks), len(e.statuses), len(m.toolNames(e)), len(e.skills))
	m.logf(name, "%s", msg)
	m.emit(Event{Extension: name, State: StateEnabled, Active: true, Message: msg})
	return nil
}

func (m *Manager) serverTimeout() time.Duration {
	if m.opts.ServerTimeout > 0 {
		return m.opts.ServerTimeout
	}
	if t := m.res.Profile.MCP.ConnectionTimeout; t > 0 {
		return time.Duration(t)*time.Millisecond + 5*time.Second
	}
	return 35 * time.Second
}

// specs lists the extension's servers with mcp.overrides applied and the
// resolved settings in their environment.
func (m *Manager) specs(e *entry) []mcp.Spec {
	if len(e.ext.Manifest.MCPServers) == 0 {
		return nil
	}
	prof := m.res.Profile
	prof.MCP.Servers = nil
	specs := mcp.Specs(&schema.Resolved{Profile: prof, Extensions: []schema.Extension{e.ext}})
	for i := range specs {
		overrideCwd(&specs[i], prof.MCP.Overrides[specs[i].Name], m.res.Workspace)
		specs[i].SettingsEnv = e.env
		if !m.res.Profile.MCP.Enabled {
			specs[i].Config.Enabled = false
		}
	}
	return specs
}

// setTools replaces the extension's MCP tools in the tool registry.
func (m *Manager) setTools(e *entry, ts []tool.Tool) {
	m.toolMu.Lock()
	defer m.toolMu.Unlock()
	if m.opts.Tools != nil {
		for _, n := range e.tools {
			m.opts.Tools.Unregister(n)
		}
	}
	e.tools = e.tools[:0:0]
	for _, t := range ts {
		if m.opts.Tools != nil {
			m.opts.Tools.Register(t)
		}
		e.tools = append(e.tools, t.Name())
	}
}

func (m *Manager) toolNames(e *entry) []string {
	m.toolMu.Lock()
	defer m.toolMu.Unlock()
	return slices.Clone(e.tools)
}

// deactivate undoes activate; it reports whether there was anything to undo.
func (m *Manager) deactivate(e *entry) (bool, error) {
	if !e.active {
		return false, nil
	}
	name := e.ext.Name
	var err error
	if m.opts.Hooks != nil {
		m.opts.Hooks.UnregisterExtension(name)
	}
	if m.opts.Servers != nil {
		if serr := m.opts.Servers.Stop(name); serr != nil {
			err = m.redact(e, fmt.Errorf("extension %s: stopping MCP servers: %w", name, serr))
		}
	}
	m.setTools(e, nil)
	if m.opts.Skills != nil {
		m.opts.Skills.RemoveExtension(name)
	}
	e.active, e.hooks, e.skills, e.statuses = false, nil, nil, nil
	return true, err
}

// Enable records that the user wants name enabled and enables it now. It
// refuses an extension the profile disables, naming the profile entry.
func (m *Manager) Enable(ctx context.Context, name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, err := m.lookup(name)
	if err != nil {
		return err
	}
	cfg := m.res.Profile.Extensions
	if !cfg.Enabled {
		return fmt.Errorf("extension %s: extensions.enabled is false in the profile, so no extension loads; set it to true first", name)
	}
	if on, ok := cfg.Enable[name]; ok && !on {
		return fmt.Errorf("extension %s: extensions.enable.%s is false in the profile, which wins over `ollm ext enable`; remove that entry or set it to true", name, name)
	}
	if m.opts.StateFile != "" {
		if err := SetState(m.opts.StateFile, name, true, m.opts.Now()); err != nil {
			return fmt.Errorf("extension %s: saving its state: %w", name, err)
		}
	}
	e.wanted, e.reason = true, "enabled with `ollm ext enable`"
	return m.activate(ctx, e)
}

// Disable records that the user wants name disabled and undoes its
// registrations: hooks, MCP servers (stopped), tools and skills.
func (m *Manager) Disable(ctx context.Context, name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, err := m.lookup(name)
	if err != nil {
		return err
	}
	if on, ok := m.res.Profile.Extensions.Enable[name]; ok && on {
		return fmt.Errorf("extension %s: extensions.enable.%s is true in the profile, which wins over `ollm ext disable`; remove that entry or set it to false", name, name)
	}
	if m.opts.StateFile != "" {
		if err := SetState(m.opts.StateFile, name, false, m.opts.Now()); err != nil {
			return fmt.Errorf("extension %s: saving its state: %w", name, err)
		}
	}
	e.wanted, e.reason = false, "disabled with `ollm ext disable`; run `ollm ext enable "+name+"`"
	e.errs = nil
	_, derr := m.deactivate(e)
	m.logf(name, "disabled")
	m.emit(Event{Extension: name, State: StateDisabled, Err: derr, Message: "disabled"})
	return derr
}

func (m *Manager) lookup(name string) (*entry, error) {
	if e, ok := m.exts[name]; ok {
		return e, nil
	}
	if p, ok := m.invalid[name]; ok {
		where := p.Pos
		if where == "" {
			where = p.File
		}
		return nil, fmt.Errorf("extension %s: its manifest is invalid (%s: %s); fix it, then run `ollm profile validate`", name, where, p.Message)
	}
	return nil, &NotFoundError{Name: name}
}

// Reload tears every active extension down and loads r (a freshly
// resolved profile) without restarting the process.
func (m *Manager) Reload(ctx context.Context, r *schema.Resolved) Stats {
	m.mu.Lock()
	defer m.mu.Unlock()
	stopped, errs := m.closeLocked()
	m.load(r)
	s := m.startLocked(ctx)
	s.Stopped = stopped
	s.Errors = append(errs, s.Errors...)
	return s
}

// Close disables every active extension for this process (their state
// file entries are kept) and reports how many it stopped.
func (m *Manager) Close() (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n, errs := m.closeLocked()
	return n, errors.Join(errs...)
}

func (m *Manager) closeLocked() (int, []error) {
	n := 0
	errs := m.stopServersLocked()
	for i := len(m.order) - 1; i >= 0; i-- {
		e := m.exts[m.order[i]]
		did, err := m.deactivate(e)
		if did {
			n++
			m.emit(Event{Extension: e.ext.Name, State: m.state(e), Message: "stopped"})
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	return n, errs
}

// stopServersLocked stops the MCP servers of every active extension at
// once: each stop may wait out a grace for a server that ignores the end
// of its stdin, and one extension after another that added up to many
// seconds at exit (50 extensions: 21 s). deactivate then finds them
// stopped.
func (m *Manager) stopServersLocked() []error {
	if m.opts.Servers == nil {
		return nil
	}
	var active []*entry
	for _, name := range m.order {
		if e := m.exts[name]; e.active {
			active = append(active, e)
		}
	}
	errs := make([]error, len(active))
	var wg sync.WaitGroup
	for i, e := range active {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := m.opts.Servers.Stop(e.ext.Name); err != nil {
				errs[i] = m.redact(e, fmt.Errorf("extension %s: stopping MCP servers: %w", e.ext.Name, err))
			}
		}()
	}
	wg.Wait()
	var out []error
	for _, err := range errs {
		if err != nil {
			out = append(out, err)
		}
	}
	return out
}

// Off says why a session would not activate the extension name: not
// wanted (extensions.enabled, extensions.enable.<name>, `ollm ext
// disable`, extensions.autoEnable; see Wanted) or a required setting
// missing or a setting invalid (see ResolveSettings). "" means it runs.
// This is the one decision: Start activates exactly the extensions whose
// Off is "", and every command that starts an extension's servers or runs
// its hooks outside a session (mcp list, tools, call; hooks list, test)
// asks it of a Manager built over the same profile with no parts.
func (m *Manager) Off(name string) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.res.Profile.Extensions.Enabled {
		return "extensions.enabled is false in the profile"
	}
	e, ok := m.exts[name]
	if !ok {
		if _, bad := m.invalid[name]; bad {
			return "its manifest is invalid; `ollm ext info " + name + "` says why"
		}
		return "no extension " + name + " in the profile"
	}
	return m.off(e)
}

func (m *Manager) off(e *entry) string {
	switch {
	case !e.wanted:
		return e.reason
	case len(e.setErrs) > 0:
		return m.redact(e, errors.Join(e.setErrs...)).Error()
	}
	return ""
}

func (m *Manager) state(e *entry) State {
	switch {
	case !e.wanted:
		return StateDisabled
	case len(e.setErrs) > 0 || len(e.errs) > 0:
		return StateFailed
	}
	return StateEnabled
}

// List describes every extension: valid ones in discovery order, then
// invalid ones by name.
func (m *Manager) List() []Info {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]Info, 0, len(m.order)+len(m.invalid))
	for _, name := range m.order {
		out = append(out, m.info(m.exts[name]))
	}
	for _, name := range sortedKeys(m.invalid) {
		p := m.invalid[name]
		where := p.Pos
		if where == "" {
			where = p.File
		}
		out = append(out, Info{Name: name, File: p.File, State: StateInvalid, Reason: "invalid manifest",
			Errors: []string{fmt.Sprintf("%s: %s", where, p.Message)}})
	}
	return out
}

// Info describes one extension.
func (m *Manager) Info(name string) (Info, error) {
	for _, i := range m.List() {
		if i.Name == name {
			return i, nil
		}
	}
	return Info{}, &NotFoundError{Name: name}
}

// Env returns the environment variables an extension's hooks and servers
// receive from its settings (for a caller that runs them itself).
func (m *Manager) Env(name string) map[string]string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if e, ok := m.exts[name]; ok {
		return e.env
	}
	return nil
}

// Secrets returns the sensitive values of every extension, so a caller can
// keep them out of anything it prints or logs.
func (m *Manager) Secrets() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for _, e := range m.exts {
		out = append(out, e.secrets...)
	}
	return out
}

func (m *Manager) info(e *entry) Info {
	x := e.ext
	i := Info{Name: x.Name, Version: x.Manifest.Version, Description: x.Manifest.Description, Dir: x.Dir, File: x.File,
		Scope: x.Scope, Format: x.Format, State: m.state(e), Reason: e.reason, Active: e.active,
		Context: x.Manifest.ContextFileName, Shadows: x.Shadows, Tools: m.toolNames(e), Skills: slices.Clone(e.skills),
		Permissions: x.Manifest.Permissions.Declared(), Import: x.Import}
	if !e.wanted {
		i.Reason = e.reason
	}
	for _, err := range e.setErrs {
		i.Errors = append(i.Errors, Redact(err.Error(), e.secrets))
	}
	if len(e.setErrs) == 0 {
		for _, err := range e.errs {
			i.Errors = append(i.Errors, err.Error())
		}
	}
	if e.active {
		i.Hooks = slices.Clone(e.hooks)
		if m.opts.Servers != nil {
			i.ServerState = m.opts.Servers.Status(x.Name)
		}
	} else {
		for _, ev := range sortedKeys(x.Manifest.Hooks) {
			for _, h := range x.Manifest.Hooks[ev] {
				i.Hooks = append(i.Hooks, ev+"/"+h.Name)
			}
		}
		if i.Skills == nil {
			for _, s := range x.Manifest.Skills {
				i.Skills = append(i.Skills, s.Name)
			}
		}
	}
	for _, s := range sortedKeys(x.Manifest.MCPServers) {
		i.Servers = append(i.Servers, x.Name+":"+s)
	}
	for _, v := range e.values {
		si := SettingInfo{Name: v.Name, Description: v.Def.Description, EnvVar: v.EnvVar, Type: typeOf(v.Def),
			Required: v.Def.Required, Sensitive: v.Def.Sensitive, Source: v.Source, Value: v.Value}
		if v.Def.Sensitive && v.Source != Unset {
			si.Value = Redacted
		}
		i.Settings = append(i.Settings, si)
	}
	return i
}

func (m *Manager) redact(e *entry, err error) error {
	if err == nil {
		return nil
	}
	s := Redact(err.Error(), e.secrets)
	if s == err.Error() {
		return err
	}
	return errors.New(s)
}

func (m *Manager) emit(ev Event) {
	if m.opts.OnEvent != nil {
		m.opts.OnEvent(ev)
	}
	m.opts.Logger.Info("extension", "extension", ev.Extension, "state", ev.State, "message", ev.Message)
}

// logf appends one line to the extension's log file, redacted.
func (m *Manager) logf(name, format string, args ...any) {
	if m.opts.LogDir == "" {
		return
	}
	line := fmt.Sprintf(format, args...)
	if e, ok := m.exts[name]; ok {
		line = Redact(line, e.secrets)
	}
	path := hooks.LogPath(m.opts.LogDir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	fmt.Fprintf(f, "--- %s ollm: %s\n", m.opts.Now().UTC().Format(time.RFC3339), line)
}

func sortedKeys[V any](mp map[string]V) []string {
	ks := make([]string, 0, len(mp))
	for k := range mp {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
