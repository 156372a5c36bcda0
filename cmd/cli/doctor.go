package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ollm/ollm/core/ext"
	"github.com/ollm/ollm/core/hooks"
	"github.com/ollm/ollm/core/llm"
	"github.com/ollm/ollm/core/mcp"
	"github.com/ollm/ollm/core/runtime"
	"github.com/ollm/ollm/core/sandbox"
	"github.com/ollm/ollm/core/skills"
	"github.com/ollm/ollm/internal/secrets"
	"github.com/ollm/ollm/schema"
	"github.com/ollm/ollm/store"
)

// CheckStatus is the verdict of one doctor check.
type CheckStatus string

// Check statuses: only fail makes `ollm doctor` exit 1.
const (
	CheckOK   CheckStatus = "ok"
	CheckWarn CheckStatus = "warn"
	CheckFail CheckStatus = "fail"
)

// Check is one line of `ollm doctor`: what was checked, the verdict, what
// was found and the command that fixes a problem.
type Check struct {
	Name    string      `json:"name"`
	Status  CheckStatus `json:"status"`
	Message string      `json:"message"`
	Fix     string      `json:"fix,omitempty"`
}

// DoctorOptions are the options of `ollm doctor`.
type DoctorOptions struct {
	IO      *IOStreams
	Context context.Context
	Load    func() (*schema.Resolved, error)
	Home    func() (store.Home, error)
	// Workspace finds the workspace (Factory.Workspace); UserHome is $HOME.
	Workspace func() (store.Workspace, error)
	UserHome  string
	Deps      ResolveDeps
	Getenv    func(string) string
	Now       func() time.Time
	// LookPath finds a program on PATH (exec.LookPath).
	LookPath func(string) (string, error)
	// Provider builds the model client for the profile's model section.
	Provider func(schema.Model) (llm.Provider, error)
	// Timeout bounds each question to the model server.
	Timeout time.Duration
	JSON    bool
}

func newCmdDoctor(f *Factory) *cobra.Command {
	opts := &DoctorOptions{IO: f.IO, Context: f.Context, Load: f.LoadFiles, Home: f.Home, Deps: newResolveDeps(f),
		Workspace: f.Workspace, UserHome: f.userHome(),
		Getenv: f.Getenv, Now: f.Now, LookPath: exec.LookPath, Timeout: 5 * time.Second,
		Provider: func(m schema.Model) (llm.Provider, error) { return llm.New(m, llm.Config{Getenv: f.Getenv}) }}
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check the model server, the lock, the store, approvals and extensions",
		Long: `Doctor checks what a session needs and prints, for each check, ok, warn or
fail and the command that fixes a problem:

  project     the workspace: ollm.cue's directory, else the git root, else
              this directory; never the home directory or OLLM_HOME
  profile     the profile loads; its problems (broken manifests, bad settings)
  ollama      the model server answers at model.endpoint (or $OLLAMA_HOST)
  model       the configured model is installed there
  node        node and npx are on PATH when an MCP server is launched with npx
  mcp         every enabled stdio MCP server's command is on PATH
  lock        ollm.lock is up to date with the profile (as --locked checks it)
  store       every store entry ollm.lock pins is present and hashes as locked
  workspace   the workspace profile is approved (ollm trust)
  hooks       no hook waits for an approval (ollm hooks trust)
  extensions  no extension failed to load (a missing setting, a bad value)

Pending approvals are warnings: nothing unapproved runs, by design. Doctor
exits 1 when any check fails, 0 otherwise.`,
		Args: noArgs,
		Example: `  ollm doctor
  ollm doctor --json | jq '.checks[] | select(.status != "ok")'`,
		RunE: func(cmd *cobra.Command, args []string) error { return doctorRun(opts) },
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the checks as JSON")
	return cmd
}

// doctorReport is what `ollm doctor --json` prints.
type doctorReport struct {
	Checks   []Check `json:"checks"`
	Failed   int     `json:"failed"`
	Warnings int     `json:"warnings"`
}

func doctorRun(opts *DoctorOptions) error {
	rep := doctorReport{Checks: runChecks(opts)}
	for _, c := range rep.Checks {
		switch c.Status {
		case CheckFail:
			rep.Failed++
		case CheckWarn:
			rep.Warnings++
		}
	}
	if opts.JSON {
		if err := writeJSON(opts.IO.Out, rep); err != nil {
			return err
		}
	} else {
		printChecks(opts.IO, rep)
	}
	if rep.Failed > 0 {
		return &SilentError{Code: ExitError}
	}
	return nil
}

// runChecks runs every check in order. A profile that does not load stops
// the checks that need it.
func runChecks(opts *DoctorOptions) []Check {
	r, err := opts.Load()
	var te *store.TamperedError
	if errors.As(err, &te) {
		// The profile loads only verified store entries: say which one
		// differs, as the store check would.
		msg := fmt.Sprintf("store entries differ from ollm.lock (SECURITY: something changed them):\n%s: %s does not hash to %s", te.Name, te.Dir, te.Want)
		if te.Diff != "" {
			msg += " (" + te.Diff + ")"
		}
		return []Check{{Name: "store", Status: CheckFail, Message: msg,
			Fix: "ollm profile apply   (replaces them with verified copies; `ollm ext verify` shows the hashes)"}}
	}
	if err != nil {
		return []Check{{Name: "profile", Status: CheckFail, Message: secrets.RedactURLs(err.Error()), Fix: "ollm profile validate"}}
	}
	home, err := opts.Home()
	if err != nil {
		return []Check{{Name: "profile", Status: CheckFail, Message: err.Error(), Fix: "set OLLM_HOME to a usable directory"}}
	}
	ws := store.Workspace{Root: r.Workspace}
	out := checksOf(opts, r, home, ws)
	// No check shows a secret: the API key, the endpoint's credentials,
	// the server's echo of them, any URL password or key-like query value.
	known := secrets.FromURL(r.Profile.Model.Endpoint)
	if k := r.Profile.Model.APIKeyEnv; k != "" && opts.Getenv != nil {
		known = append(known, opts.Getenv(k))
	}
	for i := range out {
		out[i].Message = secrets.Scrub(out[i].Message, known)
		out[i].Fix = secrets.Scrub(out[i].Fix, known)
	}
	return out
}

// checksOf runs the checks of a profile that loaded.
func checksOf(opts *DoctorOptions, r *schema.Resolved, home store.Home, ws store.Workspace) []Check {
	var out []Check
	out = append(out, projectCheck(opts))
	out = append(out, profileChecks(r)...)
	out = append(out, modelChecks(opts, r)...)
	out = append(out, sandboxCheck(r))
	out = append(out, nodeCheck(opts, r), serverCommandCheck(opts, r))
	if r.Workspace != "" { // no workspace, no lock
		out = append(out, lockChecks(opts, r)...)
	}
	out = append(out, trustChecks(r, home, ws)...)
	out = append(out, extensionCheck(opts, r, home))
	return out
}

// projectCheck names the workspace and how it was found; in the home
// directory or OLLM_HOME there is none, and a ~/ollm.cue is never read.
func projectCheck(opts *DoctorOptions) Check {
	if opts.Workspace == nil {
		return Check{Name: "project", Status: CheckOK, Message: "not checked"}
	}
	var stray string
	if opts.UserHome != "" {
		if p := filepath.Join(opts.UserHome, store.ProfileFileName); isFile(p) {
			stray = fmt.Sprintf("; %s is never read (the home directory is never a workspace)", p)
		}
	}
	ws, err := opts.Workspace()
	var none *store.NotWorkspaceError
	switch {
	case errors.As(err, &none):
		return Check{Name: "project", Status: CheckWarn, Message: "no workspace: " + err.Error() + stray,
			Fix: "cd into a project, or: ollm -C DIR doctor"}
	case err != nil:
		return Check{Name: "project", Status: CheckFail, Message: err.Error(), Fix: "ollm -C DIR doctor"}
	case stray != "":
		return Check{Name: "project", Status: CheckWarn, Message: fmt.Sprintf("workspace %s (%s)%s", ws.Root, ws.Found, stray),
			Fix: "move its settings into " + store.HomeEnv + "/profile.cue (the user profile) or a project's ollm.cue"}
	}
	return Check{Name: "project", Status: CheckOK, Message: fmt.Sprintf("workspace %s (%s)", ws.Root, ws.Found)}
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

func printChecks(io *IOStreams, rep doctorReport) {
	w := io.Out
	for _, c := range rep.Checks {
		fmt.Fprintf(w, "%-5s %-11s %s\n", c.Status, c.Name, indentRest(c.Message, 18))
		if c.Fix != "" && c.Status != CheckOK {
			fmt.Fprintf(w, "%18sfix: %s\n", "", c.Fix)
		}
	}
	switch {
	case rep.Failed > 0:
		fmt.Fprintf(w, "doctor: %s failed, %s\n", count(rep.Failed, "check", "checks"), count(rep.Warnings, "warning", "warnings"))
	case rep.Warnings > 0:
		fmt.Fprintf(w, "doctor: no failures, %s\n", count(rep.Warnings, "warning", "warnings"))
	default:
		fmt.Fprintln(w, "doctor: everything looks fine")
	}
}

// count is "1 thing" or "n things".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// indentRest indents every line after the first by n spaces.
func indentRest(s string, n int) string {
	return strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n"+strings.Repeat(" ", n))
}

// profileChecks reports the loaded profile, or each of its problems
// (broken manifests are extension problems).
func profileChecks(r *schema.Resolved) []Check {
	var out []Check
	for _, p := range r.Problems {
		if runtime.IsHeld(p) {
			continue // the workspace check reports them
		}
		c := Check{Name: "profile", Status: CheckWarn, Message: runtime.ProblemText(schema.Problem{Pos: p.Pos, File: p.File, Message: p.Message}), Fix: p.Fix}
		if p.Severity == "error" {
			c.Status = CheckFail
		}
		if p.Extension != "" || strings.HasSuffix(p.File, ".json") {
			c.Name = "extensions"
		}
		if c.Fix == "" {
			c.Fix = "ollm profile validate"
		}
		out = append(out, c)
	}
	if len(out) > 0 {
		return out
	}
	var layers []string
	for _, l := range r.Layers {
		layers = append(layers, string(l.Scope))
	}
	name := r.Profile.Name
	if name == "" {
		name = "(unnamed)"
	}
	return []Check{{Name: "profile", Status: CheckOK, Message: fmt.Sprintf("%s: layers %s; %s", name, strings.Join(layers, ", "), count(len(r.Extensions), "extension", "extensions"))}}
}

// doctorModel is the model section a session would use: as in
// NewRuntime, $OLLAMA_HOST wins over the builtin default endpoint.
func doctorModel(opts *DoctorOptions, r *schema.Resolved) schema.Model {
	m := r.Profile.Model
	if h := opts.Getenv("OLLAMA_HOST"); h != "" && (m.Provider == "" || m.Provider == "ollama") &&
		(m.Endpoint == "" || m.Endpoint == llm.DefaultOllamaEndpoint) {
		m.Endpoint = ""
	}
	return m
}

// modelChecks asks the server about the configured model: reachable,
// then installed. Ollama's version answers the first question cheaply.
func modelChecks(opts *DoctorOptions, r *schema.Resolved) []Check {
	m := doctorModel(opts, r)
	p, err := opts.Provider(m)
	if err != nil {
		return []Check{{Name: "ollama", Status: CheckFail, Message: err.Error(), Fix: "fix model.endpoint in ollm.cue, then `ollm profile validate`"}}
	}
	ctx, cancel := context.WithTimeout(opts.Context, opts.Timeout)
	defer cancel()
	server := Check{Name: "ollama", Status: CheckOK}
	if o, ok := p.(*llm.Ollama); ok {
		v, err := o.Version(ctx)
		if err != nil {
			return []Check{modelFailure("ollama", err, m)}
		}
		server.Message = fmt.Sprintf("Ollama %s at %s", v, o.Endpoint())
	} else {
		server.Name = m.Provider
	}
	info, err := p.ModelInfo(ctx, m.Name)
	if err != nil {
		if llm.IsKind(err, llm.ErrUnreachable) {
			return []Check{modelFailure(server.Name, err, m)}
		}
		if server.Message == "" {
			server.Message = "the server answers at " + m.Endpoint
		}
		return []Check{server, modelFailure("model", err, m)}
	}
	if server.Message == "" {
		server.Message = "the server answers at " + m.Endpoint
	}
	desc := info.Name
	if info.ParameterSize != "" {
		desc += " (" + strings.TrimSpace(info.ParameterSize+" "+info.Quantization) + ")"
	}
	return []Check{server, {Name: "model", Status: CheckOK, Message: fmt.Sprintf("%s is installed; context window %d (%s)", desc, info.ContextWindow, info.ContextSource)}}
}

// modelFailure turns a provider error into a failed check with its fix.
func modelFailure(name string, err error, m schema.Model) Check {
	c := Check{Name: name, Status: CheckFail, Message: err.Error()}
	var le *llm.Error
	if errors.As(err, &le) {
		switch le.Kind {
		case llm.ErrUnreachable:
			c.Fix = "ollama serve   (or set model.endpoint / OLLAMA_HOST to where it runs)"
		case llm.ErrModelMissing:
			c.Fix = "ollm model pull " + m.Name + "   (or choose an installed model: ollm model list)"
		case llm.ErrAuth:
			c.Fix = "set the API key variable named by model.apiKeyEnv"
		}
	}
	if c.Fix == "" {
		c.Fix = "check model.provider, model.endpoint and model.name with `ollm profile show`"
	}
	return c
}

// enabledSpecs are the MCP servers a session would start: profile and
// extension servers, enabled, with overrides applied.
func enabledSpecs(r *schema.Resolved) []mcp.Spec {
	if !r.Profile.MCP.Enabled {
		return nil
	}
	var out []mcp.Spec
	for _, s := range mcp.Specs(r) {
		if s.Config.Enabled && s.Transport() == mcp.TransportStdio {
			out = append(out, s)
		}
	}
	return out
}

// nodeCheck: servers launched through npx need node and npx on PATH.
func nodeCheck(opts *DoctorOptions, r *schema.Resolved) Check {
	var users []string
	for _, s := range enabledSpecs(r) {
		if filepath.Base(s.Config.Command) == "npx" {
			users = append(users, s.Name)
		}
	}
	if len(users) == 0 {
		return Check{Name: "node", Status: CheckOK, Message: "not needed: no MCP server is launched with npx"}
	}
	var missing []string
	for _, prog := range []string{"node", "npx"} {
		if _, err := opts.LookPath(prog); err != nil {
			missing = append(missing, prog)
		}
	}
	if len(missing) > 0 {
		return Check{Name: "node", Status: CheckFail,
			Message: fmt.Sprintf("%s not found on PATH; MCP server(s) %s are launched with npx", strings.Join(missing, " and "), strings.Join(users, ", ")),
			Fix:     "install Node.js (it brings npx), or disable the servers with mcp.overrides.<name>.enabled: false"}
	}
	return Check{Name: "node", Status: CheckOK, Message: fmt.Sprintf("node and npx found for %s", strings.Join(users, ", "))}
}

// serverCommandCheck: every enabled stdio server's program must exist.
// Starting the servers is left to `ollm mcp list`, which may download.
func serverCommandCheck(opts *DoctorOptions, r *schema.Resolved) Check {
	specs := enabledSpecs(r)
	var bad []string
	for _, s := range specs {
		cmd := s.Config.Command
		if strings.Contains(cmd, "${") {
			continue // resolved at start from the environment
		}
		if !filepath.IsAbs(cmd) && strings.Contains(cmd, "/") && s.Dir != "" {
			cmd = filepath.Join(s.Dir, cmd)
		}
		if _, err := opts.LookPath(cmd); err != nil {
			bad = append(bad, fmt.Sprintf("MCP server %s: command %q not found", s.Name, s.Config.Command))
		}
	}
	switch {
	case len(specs) == 0:
		return Check{Name: "mcp", Status: CheckOK, Message: "no stdio MCP servers to start"}
	case len(bad) > 0:
		return Check{Name: "mcp", Status: CheckFail, Message: strings.Join(bad, "\n"),
			Fix: "install the program, or disable the server with mcp.overrides.<name>.enabled: false; `ollm mcp list` starts them"}
	}
	return Check{Name: "mcp", Status: CheckOK, Message: fmt.Sprintf("%s found; `ollm mcp list` starts the servers", count(len(specs), "stdio server command", "stdio server commands"))}
}

// lockChecks: the lock against the profile (the resolver's staleness
// check, and the hash of each path source, as --locked checks them), then
// the store against the lock (the store's own verification).
func lockChecks(opts *DoctorOptions, r *schema.Resolved) []Check {
	a, err := opts.Deps.applier()
	if err != nil {
		return []Check{{Name: "lock", Status: CheckFail, Message: err.Error(), Fix: "ollm profile validate"}}
	}
	changes, lock, err := a.Check()
	if err != nil {
		return []Check{{Name: "lock", Status: CheckFail, Message: err.Error(), Fix: "ollm profile apply"}}
	}
	lockFile := a.Options.Workspace.Lock()
	if lock == nil {
		if len(changes) == 0 {
			return []Check{{Name: "lock", Status: CheckOK, Message: "nothing to lock: the profile has no sources or unpinned packages"}}
		}
		return []Check{{Name: "lock", Status: CheckFail, Message: fmt.Sprintf("%s does not exist; the profile asks for %s to lock", lockFile, count(len(changes), "source or package", "sources or packages")), Fix: "ollm profile apply"}}
	}
	var stale []string
	for _, c := range changes {
		stale = append(stale, c.String())
	}
	out := []Check{{Name: "lock", Status: CheckOK, Message: lockFile + " is up to date with the profile"}}
	if len(stale) > 0 {
		out[0] = Check{Name: "lock", Status: CheckFail, Message: lockFile + " is out of date:\n" + strings.Join(stale, "\n"),
			Fix: "ollm profile apply   (then commit ollm.lock)"}
	}
	return append(out, storeCheck(store.NewCAS(a.Options.Home.Store()), lock))
}

// storeCheck re-hashes each entry the lock pins.
func storeCheck(cas *store.CAS, lock *schema.Lock) Check {
	var missing, corrupt []string
	n := 0
	for _, e := range slices.Concat(lock.Profiles, lock.Extensions) {
		if e.Hash == "" {
			continue
		}
		n++
		dir, ok, bad, err := cas.Has(e.Hash, e.Name)
		switch {
		case err != nil:
			corrupt = append(corrupt, fmt.Sprintf("%s: %v", e.Name, err))
		case bad:
			corrupt = append(corrupt, fmt.Sprintf("%s: %s does not hash to %s", e.Name, dir, e.Hash))
		case !ok:
			missing = append(missing, e.Name)
		}
	}
	switch {
	case len(corrupt) > 0:
		return Check{Name: "store", Status: CheckFail,
			Message: "store entries differ from ollm.lock (SECURITY: something changed them):\n" + strings.Join(corrupt, "\n"),
			Fix:     "ollm profile apply   (replaces them with verified copies; `ollm ext verify` shows the hashes)"}
	case len(missing) > 0:
		return Check{Name: "store", Status: CheckFail, Message: "not in the store yet: " + strings.Join(missing, ", "), Fix: "ollm profile apply"}
	}
	return Check{Name: "store", Status: CheckOK, Message: fmt.Sprintf("%s present and verified", count(n, "locked entry", "locked entries"))}
}

// trustChecks: the workspace profile's approval, then hooks that wait for
// one (the same decision `ollm hooks list` shows).
func trustChecks(r *schema.Resolved, home store.Home, ws store.Workspace) []Check {
	t := r.Trust
	var out []Check
	switch {
	case t.Digest == "":
		out = append(out, Check{Name: "workspace", Status: CheckOK, Message: "the workspace brings no profile, lock, .mcp.json or extensions: nothing to approve"})
	case !t.Approved:
		out = append(out, Check{Name: "workspace", Status: CheckWarn,
			Message: fmt.Sprintf("the workspace %s is not approved; held back: %d widening values (%d allow rules), %d MCP servers, %d extensions",
				ws.Root, len(t.Held), heldRules(t), len(t.HeldServers), len(t.HeldExtensions)),
			Fix: "ollm trust   (review what it runs, then approve)"})
	default:
		out = append(out, Check{Name: "workspace", Status: CheckOK, Message: "the workspace profile is approved at its current digest"})
	}
	return append(out, hookTrustCheck(r, home, ws))
}

func hookTrustCheck(r *schema.Resolved, home store.Home, ws store.Workspace) Check {
	reg, _ := hooks.FromResolved(r, hooks.BuildOptions{Home: home.Dir, ExtEnv: settingsEnv(r, nil)})
	s := &hookSet{r: r, reg: reg, home: home, ws: ws}
	rows, err := s.rows()
	if err != nil {
		return Check{Name: "hooks", Status: CheckFail, Message: err.Error(), Fix: "ollm hooks list"}
	}
	var pending []string
	workspaceOnly := true
	for _, row := range rows {
		if row.Trust == hooks.Unapproved || row.Trust == hooks.Changed {
			pending = append(pending, fmt.Sprintf("%s (%s, %s)", qualified(row.Extension, row.Name), row.Source, row.Trust))
			workspaceOnly = workspaceOnly && row.Source == schema.ScopeWorkspace
		}
	}
	if len(pending) == 0 {
		return Check{Name: "hooks", Status: CheckOK, Message: count(len(rows), "hook", "hooks") + ", none waiting for an approval"}
	}
	fix := "ollm hooks list, then ollm hooks trust <name> (or --all)"
	if workspaceOnly {
		fix = "ollm trust"
	}
	return Check{Name: "hooks", Status: CheckWarn,
		Message: fmt.Sprintf("%s waiting for an approval, skipped until then: %s", count(len(pending), "hook", "hooks"), strings.Join(pending, ", ")), Fix: fix}
}

// extensionCheck reports extensions that are wanted but could not be
// enabled (a missing or invalid setting). Rejected manifests are among the
// profile's problems.
func extensionCheck(opts *DoctorOptions, r *schema.Resolved, home store.Home) Check {
	m := ext.New(r, ext.Options{StateFile: home.ExtensionState(), LogDir: home.Logs(), Home: home.Dir, Now: opts.Now,
		LookupEnv: func(k string) (string, bool) { v := opts.Getenv(k); return v, v != "" }, Skills: skills.New()})
	var failed, names []string
	n := 0
	for _, i := range m.List() {
		if i.State == ext.StateInvalid {
			continue
		}
		n++
		if i.State == ext.StateFailed {
			why := i.Reason
			if len(i.Errors) > 0 {
				why = strings.Join(i.Errors, "; ")
			}
			failed, names = append(failed, why), append(names, i.Name)
		}
	}
	if len(failed) > 0 {
		return Check{Name: "extensions", Status: CheckFail, Message: strings.Join(failed, "\n"),
			Fix: "give what the message names (an environment variable or settings.<extension>.<name> in your profile), then ollm ext enable " + strings.Join(names, " ")}
	}
	return Check{Name: "extensions", Status: CheckOK, Message: count(n, "extension loads", "extensions load")}
}

// sandboxCheck reports what the kernel offers the sandbox: Landlock's ABI
// and user namespaces. Without Landlock it fails when sandbox.required is
// set (nothing would run) and warns otherwise (commands run unsandboxed).
func sandboxCheck(r *schema.Resolved) Check {
	s := sandbox.Probe()
	switch {
	case !s.Available() && r.Profile.Sandbox.Required:
		return Check{Name: "sandbox", Status: CheckFail, Message: s.Describe() + "; sandbox.required is true, so shell commands, hooks and MCP servers will not run",
			Fix: "run on Linux 5.13+ with Landlock enabled (lsm=...,landlock), or set sandbox.required: false"}
	case !s.Available():
		return Check{Name: "sandbox", Status: CheckWarn, Message: s.Describe() + "; shell commands, hooks and MCP servers run unsandboxed",
			Fix: "run on Linux 5.13+ with Landlock enabled (lsm=...,landlock)"}
	case !s.UserNS:
		return Check{Name: "sandbox", Status: CheckWarn, Message: s.Describe(),
			Fix: "allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1)"}
	}
	return Check{Name: "sandbox", Status: CheckOK, Message: s.Describe()}
}
