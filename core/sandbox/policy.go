package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ollm/ollm/schema"
	"github.com/ollm/ollm/store"
)

// Policy is a resolved sandbox: concrete paths, no defaults left.
type Policy struct {
	Preset  string `json:"preset"`  // schema.SandboxReadOnly | SandboxWorkspaceWrite | SandboxOff
	Network bool   `json:"network"` // may use the network
	// Isolate, without network: a network namespace of its own (no UDP,
	// no DNS), not only Landlock's TCP rules.
	Isolate bool     `json:"isolate,omitempty"`
	Read    []string `json:"read,omitempty"`    // hierarchies the process may read and execute
	Write   []string `json:"write,omitempty"`   // hierarchies it may also write
	Protect []string `json:"protect,omitempty"` // paths inside Write that stay read-only
	// Data are directories inside a protected path the process may still
	// write: an extension's own data directory under .ollm/data.
	Data []string `json:"data,omitempty"`
	// Hide are secret paths inside a readable or writable hierarchy that
	// an allow-list cannot leave out (a secret inside the workspace, or the
	// workspace inside a denied path): an empty read-only mount covers each.
	Hide []string `json:"hide,omitempty"`
	// Pin are existing git directories (and .git files) bind-mounted onto
	// themselves: a mount point can be neither renamed nor replaced, so a
	// .git with a planted hook cannot take the place of the real one.
	Pin []string `json:"pin,omitempty"`
	// Cache is the private directory builds write their caches in
	// (workspace-write only); CacheEnv points the tools at it. Wrap creates
	// Cache and appends CacheEnv after the caller's environment.
	Cache    string   `json:"cache,omitempty"`
	CacheEnv []string `json:"cacheEnv,omitempty"`
	// Workspace is the workspace root: without network, the unix sockets
	// under it stay reachable (those of the rest of the host do not).
	Workspace string `json:"workspace,omitempty"`
	// SSHAgent lets the process reach the user's ssh-agent ($SSH_AUTH_SOCK);
	// otherwise its socket is covered, with or without network.
	SSHAgent bool `json:"sshAgent,omitempty"`
	// MaxData and MaxFileSize, when set, are the process's RLIMIT_DATA
	// (the memory it may allocate) and RLIMIT_FSIZE (the largest file it
	// may write), in bytes, set just before its exec (hooks).
	MaxData     int64 `json:"maxData,omitempty"`
	MaxFileSize int64 `json:"maxFileSize,omitempty"`
}

// Off reports whether the policy runs the process unsandboxed.
func (p Policy) Off() bool { return p.Preset == schema.SandboxOff }

// String is the short form shown beside a call: "workspace-write, no
// network".
func (p Policy) String() string {
	if p.Off() {
		return "no sandbox"
	}
	net := "network"
	switch {
	case !p.Network && p.Isolate:
		net = "no network at all"
	case !p.Network:
		net = "no network"
	}
	return p.Preset + ", " + net
}

// Env is where a policy is resolved: the paths its presets name.
type Env struct {
	Workspace string // the workspace root ("" for none)
	OllmHome  string // $OLLM_HOME
	Home      string // the user's home directory
	Getenv    func(string) string
	// DenyRead are extra paths no sandboxed process may read.
	DenyRead []string
	// Read are extra paths to read, e.g. an extension's own directory.
	Read []string
	// AllowRead are paths in $HOME the profile adds to the readable
	// allow-list (sandbox.allowRead).
	AllowRead []string
	// Cache is the private cache directory of workspace-write processes;
	// "" means PrivateCache(env).
	Cache string
	// Temp are the temporary directories workspace-write may write; nil
	// means /tmp, /var/tmp, /dev/shm and $TMPDIR. Tests whose checkout
	// may lie under /tmp name their own.
	Temp []string
}

// Defaults for what declares no sandbox of its own.
var (
	// ShellDefault: the model's commands write the workspace and caches,
	// and have no network (what the model sends out is the risk).
	ShellDefault = schema.Sandbox{Preset: schema.SandboxWorkspaceWrite, Network: boolPtr(false)}
	// ProcessDefault: hooks and MCP servers are code the user approved;
	// many talk to services, so they keep the network.
	ProcessDefault = schema.Sandbox{Preset: schema.SandboxWorkspaceWrite, Network: boolPtr(true)}
)

func boolPtr(b bool) *bool { return &b }

// secretPaths are read by no sandboxed process, relative to the home
// directory: keys, cloud and registry credentials.
// All of $HOME outside the allow-list (homeReadable) is hidden anyway;
// these are also hidden where a writable path or an allowRead entry holds
// them (the workspace is the home directory, allowRead: ["~"]).
var secretPaths = []string{
	".ssh", ".gnupg", ".aws", ".azure", ".kube", ".docker", ".netrc", ".git-credentials",
	".config/gh", ".config/gcloud", ".config/hub", ".password-store", ".pypirc", ".npmrc",
	".vault-token", ".terraform.d/credentials.tfrc.json",
	".pgpass", ".my.cnf", ".cargo/credentials.toml", ".cargo/credentials", ".m2/settings.xml",
	".gradle/gradle.properties", ".cache/huggingface", ".claude", ".claude.json", ".codex", ".ollama",
	".config/git/credentials", ".config/google-chrome", ".config/chromium", ".mozilla",
	".local/share/keyrings", ".bash_history", ".zsh_history",
}

// homeReadable is the allow-list of $HOME: the toolchains and the
// non-secret configuration builds need. Everything else in $HOME is hidden.
// None of these is writable: what runs from them runs outside the sandbox
// too (an installed tool, a toolchain).
var homeReadable = []struct{ path, why string }{
	{"go", "Go's GOPATH: installed tools (bin) and the module cache (pkg/mod) builds fall back to"},
	{"sdk", "Go toolchains installed side by side (~/sdk/goX.Y)"},
	{".config/go/env", "go env -w settings (GOFLAGS, GOPRIVATE, GOTOOLCHAIN)"},
	{".cargo/bin", "rustup's cargo and rustc, and binaries cargo install put there"},
	{".rustup", "Rust toolchains"},
	{".nvm", "Node versions installed by nvm"},
	{".volta", "Node versions and tools installed by Volta"},
	{".local/share/fnm", "Node versions installed by fnm"},
	{".bun/bin", "the Bun runtime"},
	{".deno/bin", "the Deno runtime"},
	{".pyenv", "Python versions installed by pyenv"},
	{".rbenv", "Ruby versions installed by rbenv"},
	{".asdf", "toolchains installed by asdf"},
	{".local/share/mise", "toolchains installed by mise"},
	{".local/share/uv/python", "Python versions installed by uv"},
	{".sdkman/candidates", "JDKs, Gradle and Maven installed by SDKMAN"},
	{".local/bin", "programs installed for the user (pip --user, pipx, uv tool)"},
	{".local/lib", "Python's user site-packages"},
	{"bin", "the user's own programs on PATH"},
	{".gitconfig", "git's identity and settings, so git commit works (a token written here is readable: keep tokens in a credential helper)"},
	{".config/git/config", "git's identity and settings (XDG location)"},
	{".config/git/ignore", "git's global ignore file"},
	{".config/git/attributes", "git's global attributes"},
	{".gitignore_global", "a common core.excludesFile"},
	{".gitignore", "a common core.excludesFile"},
}

// protectedNames are the files in the workspace that decide what ollm
// or git trusts and runs: never writable from inside. They come from the
// one list the file tools use too (store.TrustFiles). All of .ollm/ is
// protected (extensions, skills, hook scripts, memory); an extension
// keeps its data in its own .ollm/data/<name> (ExtensionData). A path
// that does not exist when the process starts cannot be mounted over; a
// trust file created there changes the workspace digest, so ollm holds it
// back until the workspace is approved again (docs/security.md).
var protectedNames = store.SandboxTrustNames()

// gitTrust are the paths of a git directory that decide what git runs:
// hooks, config (core.fsmonitor, core.hooksPath, filters), info
// (attributes), a worktree's own config.
var gitTrust = []string{"hooks", "config", "info", "config.worktree"}

// ExtensionData is the directory an extension's hooks and servers may
// write inside the workspace's protected .ollm/: .ollm/data/<name>. It is
// "" without a workspace or for a name that is not one path element.
func ExtensionData(workspace, ext string) string {
	if workspace == "" || ext == "" || ext == "." || ext == ".." || strings.ContainsAny(ext, "/\\\x00") {
		return ""
	}
	return filepath.Join(workspace, ".ollm", "data", ext)
}

// AllowData creates dir (an ExtensionData directory) and lets p write it,
// even inside a protected path. Each part of it below the workspace must
// be a directory, not a link: a link planted there would widen the write
// set to wherever it points.
func (p *Policy) AllowData(workspace, dir string) error {
	if dir == "" {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("extension data directory: %w", err)
	}
	rel, err := filepath.Rel(workspace, dir)
	if err != nil || strings.HasPrefix(rel, "..") {
		return fmt.Errorf("extension data directory %s is outside the workspace %s", dir, workspace)
	}
	at := workspace
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		at = filepath.Join(at, part)
		fi, err := os.Lstat(at)
		if err != nil {
			return fmt.Errorf("extension data directory: %w", err)
		}
		if !fi.IsDir() {
			return fmt.Errorf("extension data directory: %s is not a directory (a link?); remove it and start again", at)
		}
	}
	if p.Off() {
		return nil
	}
	p.Write = append(slices.Clone(p.Write), dir)
	if slices.ContainsFunc(p.Protect, func(pr string) bool { return within(dir, pr) }) {
		p.Data = append(slices.Clone(p.Data), dir)
	}
	return nil
}

// Resolve fills s with def where it says nothing and turns it into paths.
// The result is kept until something it was made from changes
// (resolvecache): a path it looked at, a directory it listed, a file it
// read, the mount table.
func Resolve(s, def schema.Sandbox, env Env) Policy {
	return resolveCached(s, def, env)
}

// resolve is Resolve, recording what it consults in pr (nil: nothing).
func resolve(pr *fsProbe, s, def schema.Sandbox, env Env) Policy {
	if s.Preset == "" {
		s.Preset = def.Preset
	}
	if s.Preset == "" {
		s.Preset = schema.SandboxWorkspaceWrite
	}
	if s.Network == nil {
		s.Network = def.Network
	}
	p := Policy{Preset: s.Preset, Network: s.Network == nil || *s.Network, Isolate: s.Isolate || def.Isolate}
	if p.Off() {
		return p
	}
	p.Workspace, p.SSHAgent = env.Workspace, s.SSHAgent || def.SSHAgent
	p.Write = devices()
	if p.Preset == schema.SandboxWorkspaceWrite {
		p.Write = append(p.Write, writable(env)...)
		p.Cache = env.Cache
		if p.Cache == "" {
			p.Cache = PrivateCache(env)
		}
		if p.Cache != "" {
			p.Write = append(p.Write, p.Cache)
			p.CacheEnv = cacheEnv(p.Cache, env, p.Network)
		}
	}
	for _, w := range append(slices.Clone(def.Write), s.Write...) {
		p.Write = append(p.Write, absPath(w, env))
	}
	var deny []string
	p.Read, deny = readable(pr, env, p.Write)
	for _, r := range append(append(slices.Clone(def.Read), s.Read...), env.Read...) {
		p.Read = append(p.Read, absPath(r, env))
	}
	p.Protect = protected(p.Write, env)
	p.Pin, p.Protect = gitDirs(pr, p.Write, env, p.Protect)
	p.Hide = hidden(deny, p.Write, env.Workspace)
	p.Write = dedupe(p.Write)
	p.Read = uncovered(dedupe(p.Read), p.Write)
	return p
}

// hides is p.Hide with each hidden directory that holds a read or write
// path (an extension's own directory in a hidden $OLLM_HOME, the private
// build cache in a hidden $HOME) replaced by its entries but the way down
// to that path.
func hides(p Policy) []string {
	var out []string
	for _, h := range p.Hide {
		var keep []string
		for _, r := range append(slices.Clone(p.Read), p.Write...) {
			if within(r, h) && r != h {
				keep = append(keep, r)
			}
		}
		if len(keep) == 0 {
			out = append(out, h)
			continue
		}
		out = append(out, hideAround(h, keep)...)
	}
	return out
}

func hideAround(dir string, keep []string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		switch {
		case slices.Contains(keep, p):
		case slices.ContainsFunc(keep, func(k string) bool { return within(k, p) }):
			if e.IsDir() {
				out = append(out, hideAround(p, keep)...)
			}
		default:
			out = append(out, p)
		}
	}
	return out
}

// uncovered drops the read paths inside a write path: a write rule grants
// reading too, so they would only be more rules for every process to add
// (an $OLLM_HOME under /tmp listed /tmp's hundreds of entries, ~5 ms of
// Landlock rules per process).
func uncovered(read, write []string) []string {
	return slices.DeleteFunc(read, func(r string) bool { return covered(r, write) })
}

func covered(p string, write []string) bool {
	return slices.ContainsFunc(write, func(w string) bool { return within(p, w) })
}

// hidden are the denied paths an allow-list cannot exclude: those under a
// writable path (a write rule grants reads too) or under the workspace.
func hidden(deny, write []string, ws string) []string {
	var out []string
	for _, d := range deny {
		if (ws != "" && within(d, ws) && d != ws) || slices.ContainsFunc(write, func(w string) bool { return within(d, w) && d != w }) {
			out = append(out, d)
		}
	}
	return out
}

// readable is everything outside $HOME and $OLLM_HOME but the denied
// paths, plus the home allow-list (homeReadable, sandbox.allowRead) with
// the denied paths inside them left out, leaving out what a write path
// covers (write grants reading; a denied path under it is hidden instead).
// It also returns the denied paths.
func readable(pr *fsProbe, env Env, write []string) ([]string, []string) {
	deny := denied(pr, env)
	out := allowExcept(pr, "/", deny, env.Workspace, write)
	for _, a := range homeAllowed(pr, env) {
		if !secretHolds(pr, a.path, deny, env) {
			out = append(out, allowExcept(pr, a.path, deny, env.Workspace, write)...)
		}
	}
	return out, deny
}

// denied are the paths no sandboxed process reads unless a write path or
// the workspace holds them: $HOME (but the allow-list), $OLLM_HOME, the
// secret locations, sandbox.denyRead, and where each of them leads when it
// is a symlink (the rules name paths, the kernel follows the link).
func denied(pr *fsProbe, env Env) []string {
	var deny []string
	if home := homeDir(env); home != "" {
		deny = append(deny, home)
		for _, s := range secretPaths {
			deny = append(deny, filepath.Join(home, s))
		}
	}
	if env.OllmHome != "" {
		deny = append(deny, filepath.Clean(env.OllmHome))
	}
	for _, d := range env.DenyRead {
		deny = append(deny, absPath(d, env))
	}
	for _, d := range deny {
		if real, err := pr.evalSymlinks(d); err == nil && real != d {
			deny = append(deny, real)
		}
	}
	return deny
}

// secretHolds reports whether a denied path other than $HOME itself holds
// p or where p leads: an allow-list entry inside ~/.ssh, or a
// ~/.gitconfig linked to a file in it, stays hidden.
func secretHolds(pr *fsProbe, p string, deny []string, env Env) bool {
	home := homeDir(env)
	realHome, _ := pr.evalSymlinks(home)
	paths := []string{p}
	if real, err := pr.evalSymlinks(p); err == nil && real != p {
		paths = append(paths, real)
	}
	for _, d := range deny {
		if d == home || d == realHome {
			continue
		}
		for _, q := range paths {
			if within(q, d) {
				return true
			}
		}
	}
	return false
}

// homeDir is env.Home when it is a home the allow-list can apply to.
func homeDir(env Env) string {
	if !filepath.IsAbs(env.Home) || filepath.Clean(env.Home) == "/" {
		return ""
	}
	return filepath.Clean(env.Home)
}

type allowed struct{ path, why string }

// homeAllowed are the allow-list's paths that exist in this home, then
// the profile's sandbox.allowRead, with why each is readable.
func homeAllowed(pr *fsProbe, env Env) []allowed {
	home := homeDir(env)
	if home == "" {
		return nil
	}
	var out []allowed
	for _, h := range homeReadable {
		p := filepath.Join(home, h.path)
		if pr.exists(p) {
			out = append(out, allowed{p, h.why})
		}
	}
	for _, a := range env.AllowRead {
		out = append(out, allowed{absPath(a, env), "sandbox.allowRead in your profile"})
	}
	return out
}

// AllowExcept lists paths whose union is everything under root except the
// denied paths: a directory with no denied path below it is one entry; one
// with a denied path below it is replaced by its entries. keep (the
// workspace) stays readable: inside a denied directory that holds it, only
// the way down to it is listed. Entries created later in an enumerated
// directory are not readable.
func AllowExcept(root string, deny []string, keep string) []string {
	return allowExcept(nil, root, deny, keep, nil)
}

// allowExcept is AllowExcept that neither lists nor descends into what
// skip covers.
func allowExcept(pr *fsProbe, root string, deny []string, keep string, skip []string) []string {
	clean := func(ps []string) []string {
		out := make([]string, len(ps))
		for i, p := range ps {
			out[i] = filepath.Clean(p)
		}
		return out
	}
	ds, skip := clean(deny), clean(skip)
	if keep != "" {
		keep = filepath.Clean(keep)
	}
	covered := func(p string) bool {
		return slices.ContainsFunc(skip, func(w string) bool { return withinClean(p, w) })
	}
	var out []string
	var walk func(dir string)
	walk = func(dir string) {
		if covered(dir) {
			return
		}
		if !slices.ContainsFunc(ds, func(d string) bool { return withinClean(d, dir) && d != dir }) {
			out = append(out, dir)
			return
		}
		entries, err := pr.readDir(dir)
		if err != nil {
			return
		}
		for _, e := range entries {
			p := filepath.Join(dir, e.Name())
			switch {
			case covered(p):
			case slices.Contains(ds, p):
				if keep != "" && withinClean(keep, p) {
					// Landlock does not check the way down: allowing the
					// workspace itself leaves the rest of p hidden.
					out = append(out, keep)
				}
			case e.IsDir():
				walk(p)
			default:
				out = append(out, p)
			}
		}
	}
	walk(filepath.Clean(root))
	return out
}

// writable are the workspace and temporary files. Tool caches are not:
// what runs from them (~/go/bin, the module cache, ~/.npm/_npx, gradle's
// init scripts) also runs outside the sandbox; builds get a private cache
// (PrivateCache) instead.
func writable(env Env) []string {
	get := env.Getenv
	if get == nil {
		get = func(string) string { return "" }
	}
	var out []string
	if env.Workspace != "" {
		out = append(out, env.Workspace)
	}
	if env.Temp != nil {
		out = append(out, env.Temp...)
	} else {
		out = append(out, "/tmp", "/var/tmp", "/dev/shm")
		if t := get("TMPDIR"); filepath.IsAbs(t) {
			out = append(out, t)
		}
	}
	return out
}

// devices every process may write: the null device, terminals.
func devices() []string {
	return []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/pts", "/dev/ptmx", "/dev/random", "/dev/urandom"}
}

// protected are the trust files under a writable path, and $OLLM_HOME if
// a writable path holds it.
func protected(write []string, env Env) []string {
	var out []string
	if env.Workspace != "" && slices.ContainsFunc(write, func(w string) bool { return within(env.Workspace, w) }) {
		for _, n := range protectedNames {
			out = append(out, filepath.Join(env.Workspace, n))
		}
	}
	if env.OllmHome != "" && slices.ContainsFunc(write, func(w string) bool { return within(env.OllmHome, w) || within(w, env.OllmHome) }) {
		out = append(out, env.OllmHome)
	}
	return out
}

// within reports whether p is base or below it.
func within(p, base string) bool {
	return withinClean(clean(p), clean(base))
}

// clean is filepath.Clean without its work for a path that is clean
// already (nearly every one here).
func clean(p string) string {
	if p == "" || p[0] != '/' {
		return filepath.Clean(p)
	}
	for i := 1; i < len(p); i++ {
		if p[i] == '/' && (p[i-1] == '/' || i == len(p)-1) {
			return filepath.Clean(p)
		}
		if p[i] == '.' && p[i-1] == '/' && (i+1 == len(p) || p[i+1] == '/' || p[i+1] == '.' && (i+2 == len(p) || p[i+2] == '/')) {
			return filepath.Clean(p)
		}
	}
	return p
}

// withinClean is within for paths already clean: no allocation, for the
// loops of allowExcept (a hook's policy is resolved at every start).
func withinClean(p, base string) bool {
	return p == base || base == "/" || len(p) > len(base) && p[len(base)] == filepath.Separator && p[:len(base)] == base
}

func absPath(p string, env Env) string {
	switch {
	case strings.HasPrefix(p, "~/") && env.Home != "":
		return filepath.Join(env.Home, p[2:])
	case filepath.IsAbs(p):
		return filepath.Clean(p)
	case env.Workspace != "":
		return filepath.Join(env.Workspace, p)
	}
	return filepath.Clean(p)
}

func dedupe(ps []string) []string {
	seen := map[string]bool{}
	out := ps[:0:0]
	for _, p := range ps {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}
