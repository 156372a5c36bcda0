package sandbox

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// Support is what this machine offers.
type Support struct {
	ABI        int    `json:"landlockABI"` // 0: no Landlock
	UserNS     bool   `json:"userNamespaces"`
	Trampoline bool   `json:"trampoline"` // built with cgo on Linux
	Reason     string `json:"reason,omitempty"`
}

// Available reports whether processes can be sandboxed at all.
func (s Support) Available() bool { return s.ABI >= 1 && s.Trampoline }

// Describe is one line for doctor and warnings.
func (s Support) Describe() string {
	if !s.Available() {
		return "no sandbox: " + s.Reason
	}
	ns := "user, mount and network namespaces"
	if !s.UserNS {
		ns = "no user namespaces (trust files inside the workspace are not made read-only; without network only TCP is denied)"
	}
	return fmt.Sprintf("Landlock ABI %d, %s", s.ABI, ns)
}

var (
	probeOnce sync.Once
	probed    Support
)

// Probe reports what the kernel supports, once per process.
func Probe() Support {
	probeOnce.Do(func() { probed = probe() })
	return probed
}

func probe() Support {
	var s Support
	s.Trampoline = trampolineLinked
	abi, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno == 0 {
		s.ABI = int(abi)
	}
	switch {
	case !s.Trampoline:
		s.Reason = "this ollm was built without cgo, so it cannot apply a sandbox between fork and exec"
	case s.ABI < 1:
		s.Reason = "the kernel has no Landlock (Linux 5.13 or later with landlock in the lsm= boot list)"
	}
	s.UserNS = userNSAllowed()
	return s
}

func userNSAllowed() bool {
	if b, err := os.ReadFile("/proc/sys/kernel/unprivileged_userns_clone"); err == nil && strings.TrimSpace(string(b)) == "0" && os.Getuid() != 0 {
		return false
	}
	if b, err := os.ReadFile("/proc/sys/user/max_user_namespaces"); err == nil {
		if n, _ := strconv.Atoi(strings.TrimSpace(string(b))); n == 0 {
			return false
		}
	}
	return true
}

// ErrUnavailable is returned by Wrap when the machine cannot sandbox.
var ErrUnavailable = errors.New("sandbox unavailable")

// envKey carries the policy to the trampoline.
const envKey = "_OLLM_SANDBOX"

// Wrap rewrites cmd (built by exec.Command, not started) so that it runs
// under p: ollm re-executes itself, the trampoline applies p and executes
// the program. An Off policy leaves cmd as it is. Without Landlock it
// returns ErrUnavailable (wrapped with the reason) and leaves cmd as it is.
func Wrap(cmd *exec.Cmd, p Policy) error {
	if p.Off() {
		return nil
	}
	if cmd.Err != nil {
		return cmd.Err
	}
	s := Probe()
	if !s.Available() {
		return fmt.Errorf("%w: %s", ErrUnavailable, s.Reason)
	}
	exe := cmd.Path
	if !filepath.IsAbs(exe) && strings.Contains(exe, "/") && cmd.Dir != "" {
		exe = filepath.Join(cmd.Dir, exe) // the trampoline runs in cmd.Dir
	}
	if !filepath.IsAbs(exe) {
		abs, err := exec.LookPath(exe)
		if err != nil {
			return err
		}
		exe, _ = filepath.Abs(abs)
	}
	if err := prepareCache(p); err != nil {
		return err
	}
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	cmd.Env = agentEnv(cmd.Env, p)
	ns := sharedNamespaces(s)
	if ownNamespaces {
		ns = shared{}
	}
	spec, err := encode(exe, p, s, ns, agentSockets(cmd.Env))
	if err != nil {
		return err
	}
	// The private caches after the caller's environment: the last value
	// of a name wins, whatever the caller filtered or set.
	cmd.Env = append(append(withoutKey(cmd.Env), p.CacheEnv...), envKey+"="+spec)
	cmd.Path = "/proc/self/exe"
	newSession(cmd)
	if s.UserNS && !ns.ok() {
		namespaces(cmd, !p.Network)
	}
	return nil
}

// inProcess lets Start spawn sandboxed commands itself (ollm_spawn);
// false makes it use the trampoline, which benchmarks compare.
var inProcess = true

// spawnable returns the policy of a command Wrap sandboxed that Start can
// spawn in one step: ollm's shared namespaces (nothing clone must create)
// and no process attribute but the session Wrap asked for.
func spawnable(cmd *exec.Cmd) (string, bool) {
	if !inProcess || !spawnLinked || cmd.Path != "/proc/self/exe" || cmd.Process != nil || cmd.Err != nil {
		return "", false
	}
	spec, ok := specOf(cmd)
	if !ok {
		return "", false
	}
	if a := cmd.SysProcAttr; a != nil && !reflect.DeepEqual(*a, syscall.SysProcAttr{Setsid: a.Setsid}) {
		return "", false
	}
	for _, line := range strings.Split(spec, "\n") {
		switch line {
		case "M", "L", "U", "E", "k": // namespaces clone makes; another launcher's lines
			return "", false
		}
		if strings.HasPrefix(line, "A\t") {
			return "", false
		}
	}
	return spec, true
}

// newSession starts the process in a session of its own, which has no
// controlling terminal: nothing it runs can open /dev/tty or push input
// into the user's terminal. A session leader leads its process group too,
// so a caller's Setpgid (to kill the whole group) still holds.
func newSession(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	a := cmd.SysProcAttr
	a.Setpgid, a.Pgid = false, 0
	a.Setsid = true
	a.Setctty, a.Foreground = false, false
}

// shared are ollm's descriptors of the user and network namespaces every
// sandboxed process joins (startKeeper), as paths a child may open.
type shared struct {
	user, net string
}

func (n shared) ok() bool { return n.user != "" }

var (
	keeperOnce sync.Once
	keeperNS   shared
	// ownNamespaces makes each process create its own namespaces, as
	// before the keeper: benchmarks compare the two.
	ownNamespaces bool
)

// sharedNamespaces starts the keeper once per ollm process; a zero value
// when the machine has no user namespaces or the keeper failed, and each
// process then gets namespaces of its own from clone (slower).
func sharedNamespaces(s Support) shared {
	if !s.UserNS {
		return shared{}
	}
	keeperOnce.Do(func() {
		// On failure each process creates its own namespaces: as safe,
		// about 2 ms slower without network.
		keeperNS, _ = startKeeper()
	})
	return keeperNS
}

// startKeeper creates the user and network namespaces (loopback up) that
// the sandboxed processes of this ollm share: one network namespace costs
// about 2 ms to create, joining one a few microseconds. A short-lived
// process (the trampoline in keeper mode) is cloned into them; ollm opens
// /proc/<it>/ns/{user,net} and keeps the descriptors, which keep the
// namespaces alive after it exits.
func startKeeper() (shared, error) {
	cmd := exec.Command("/proc/self/exe")
	cmd.Env = []string{envKey + "=k\n"}
	namespaces(cmd, true)
	cmd.SysProcAttr.Cloneflags &^= syscall.CLONE_NEWNS
	cmd.SysProcAttr.AmbientCaps = nil
	if os.Getuid() != 0 {
		cmd.SysProcAttr.AmbientCaps = []uintptr{unix.CAP_NET_ADMIN}
	}
	in, err := cmd.StdinPipe()
	if err != nil {
		return shared{}, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return shared{}, err
	}
	if err := cmd.Start(); err != nil {
		return shared{}, err
	}
	defer func() { in.Close(); cmd.Wait() }()
	buf := make([]byte, 6)
	if _, err := io.ReadFull(out, buf); err != nil || string(buf) != "ready\n" {
		return shared{}, fmt.Errorf("the keeper process did not start: %v", err)
	}
	var ns shared
	for _, k := range []struct {
		name string
		to   *string
	}{{"user", &ns.user}, {"net", &ns.net}} {
		fd, err := unix.Open(fmt.Sprintf("/proc/%d/ns/%s", cmd.Process.Pid, k.name), unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			return shared{}, fmt.Errorf("open the keeper's %s namespace: %w", k.name, err)
		}
		*k.to = fmt.Sprintf("/proc/%d/fd/%d", os.Getpid(), fd) // kept open for ollm's lifetime
	}
	return ns, nil
}

// agentSockets are the ssh-agent sockets a sandboxed process could reach:
// $SSH_AUTH_SOCK of ollm and of the command's environment, where links
// lead too. They are covered unless the policy grants the agent.
func agentSockets(env []string) []string {
	var out []string
	add := func(p string) {
		if p == "" || !filepath.IsAbs(p) {
			return
		}
		out = append(out, p)
		if real, err := filepath.EvalSymlinks(p); err == nil && real != p {
			out = append(out, real)
		}
	}
	add(os.Getenv("SSH_AUTH_SOCK"))
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "SSH_AUTH_SOCK="); ok {
			add(v)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// encode writes the trampoline's spec (see trampoline_linux.c).
// signalsBySeccomp makes every spec refuse signals out with the seccomp
// filter kernels before Landlock ABI 6 get, instead of Landlock's signal
// scope: tests set it to prove that filter where the scope exists.
var signalsBySeccomp = false

func encode(exe string, p Policy, s Support, ns shared, agents []string) (string, error) {
	userNS := s.UserNS
	var b strings.Builder
	line := func(kind byte, path string) error {
		if strings.ContainsAny(path, "\n\t\x00") {
			return fmt.Errorf("sandbox: path %q holds a newline or tab", path)
		}
		b.WriteByte(kind)
		b.WriteByte('\t')
		b.WriteString(path)
		b.WriteByte('\n')
		return nil
	}
	if err := line('X', exe); err != nil {
		return "", err
	}
	if signalsBySeccomp {
		b.WriteString("S\n")
	}
	if p.MaxData > 0 {
		fmt.Fprintf(&b, "l\tdata=%d\n", p.MaxData)
	}
	if p.MaxFileSize > 0 {
		fmt.Fprintf(&b, "l\tfsize=%d\n", p.MaxFileSize)
	}
	for _, r := range p.Read {
		if err := line('R', r); err != nil {
			return "", err
		}
	}
	for _, w := range p.Write {
		if err := line('W', w); err != nil {
			return "", err
		}
	}
	netns := !p.Network && userNS
	switch {
	case ns.ok():
		if err := line('j', ns.user); err != nil {
			return "", err
		}
		if !p.Network {
			if err := line('n', ns.net); err != nil {
				return "", err
			}
		}
	case userNS:
		b.WriteString("M\n")
	}
	if userNS {
		for _, g := range p.Pin {
			if err := line('G', g); err != nil {
				return "", err
			}
		}
		for _, pr := range p.Protect {
			if err := line('P', pr); err != nil {
				return "", err
			}
		}
		for _, d := range p.Data {
			if err := line('D', d); err != nil {
				return "", err
			}
		}
		for _, h := range hides(p) {
			if err := line('H', h); err != nil {
				return "", err
			}
		}
	}
	switch {
	case netns && ns.ok():
	case netns:
		b.WriteString("L\n")
	case !p.Network:
		b.WriteString("T\n")
	}
	if userNS {
		if !p.Network {
			// Unix sockets of the host, but the workspace's: a test
			// server the command starts there, or one it reaches.
			b.WriteString("o\n")
			if p.Workspace != "" {
				if err := line('i', p.Workspace); err != nil {
					return "", err
				}
			}
		}
		for _, a := range agents {
			kind := byte('u')
			if p.SSHAgent {
				kind = 'i'
			}
			if err := line(kind, a); err != nil {
				return "", err
			}
		}
	}
	return b.String(), nil
}

// namespaces asks for a user and mount namespace (and a network namespace
// for full isolation, or where Landlock has no TCP rules) mapping the caller's own ids; the trampoline keeps the
// capabilities it needs for its mounts and drops them before the exec.
func namespaces(cmd *exec.Cmd, netns bool) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	a := cmd.SysProcAttr
	a.Cloneflags |= syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS
	if netns {
		a.Cloneflags |= syscall.CLONE_NEWNET
	}
	uid, gid := os.Getuid(), os.Getgid()
	a.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
	a.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
	a.GidMappingsEnableSetgroups = false
	if uid != 0 {
		a.AmbientCaps = []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_NET_ADMIN, unix.CAP_SETPCAP}
	}
}

func withoutKey(env []string) []string {
	out := env[:0:0]
	for _, e := range env {
		if !strings.HasPrefix(e, envKey+"=") {
			out = append(out, e)
		}
	}
	return out
}

// Launch is a command line another program starts as it is, without
// ollm's help: an editor's terminal (ACP terminal/create). Path is ollm's
// own executable; its trampoline reads the policy from Env, enters the
// namespaces itself (an editor cannot pass clone flags), applies the
// policy and executes the command.
type Launch struct {
	Path string   // ollm's executable as this process runs it: /proc/PID/exe
	Args []string // ExecArgs, "--", then the command's argv
	Env  []string // the command's whole environment and the policy, KEY=VALUE
	Dir  string
}

// ExecArgs are ollm's arguments before "--" in a Launch: a hidden command
// that refuses to run anything, so an editor that drops the environment
// (and with it the policy) runs nothing rather than the command unsandboxed.
var ExecArgs = []string{"acp", "terminal-exec"}

// External returns how another program runs argv in dir under p with
// exactly the environment env: the trampoline keeps only env's variables,
// whatever the launching program adds to them. It returns ErrUnavailable
// when the machine cannot sandbox and for an Off policy: such a command
// must run in ollm, not unsandboxed in an editor.
func External(argv []string, dir string, env []string, p Policy) (Launch, error) {
	if p.Off() {
		return Launch{}, fmt.Errorf("%w: the policy is off", ErrUnavailable)
	}
	if len(argv) == 0 || !filepath.IsAbs(dir) {
		return Launch{}, errors.New("sandbox: External needs a command and an absolute directory")
	}
	s := Probe()
	if !s.Available() {
		return Launch{}, fmt.Errorf("%w: %s", ErrUnavailable, s.Reason)
	}
	// Not os.Executable's path: a sandboxed command may write the
	// directory ollm is installed in (~/go/bin under ~/go, a test binary
	// under /tmp) and put another program there, which the editor would
	// then run unsandboxed. /proc/PID/exe is the inode this process runs,
	// which nobody can change while it runs (ETXTBSY) nor swap by a rename;
	// the editor is ollm's parent and of the same user, so it may execute it.
	self := fmt.Sprintf("/proc/%d/exe", os.Getpid())
	exe := argv[0]
	var err error
	if !filepath.IsAbs(exe) {
		if strings.Contains(exe, "/") {
			exe = filepath.Join(dir, exe)
		} else if exe, err = exec.LookPath(exe); err != nil {
			return Launch{}, err
		}
	}
	env = agentEnv(env, p)
	spec, err := encode(exe, p, s, shared{}, agentSockets(env))
	if err != nil {
		return Launch{}, err
	}
	var b strings.Builder
	b.WriteString(spec)
	if s.UserNS {
		b.WriteString("U\n")
	}
	if strings.ContainsAny(dir, "\n\t\x00") {
		return Launch{}, fmt.Errorf("sandbox: path %q holds a newline or tab", dir)
	}
	fmt.Fprintf(&b, "A\t%d\nC\t%s\nE\n", len(ExecArgs)+2, dir)
	if err := prepareCache(p); err != nil {
		return Launch{}, err
	}
	out := append(withoutKey(env), p.CacheEnv...)
	for _, kv := range out {
		name, _, _ := strings.Cut(kv, "=")
		if name == "" || strings.ContainsAny(name, "\n\t\x00") {
			return Launch{}, fmt.Errorf("sandbox: environment variable name %q", name)
		}
		fmt.Fprintf(&b, "K\t%s\n", name)
	}
	// The dynamic loader runs these before the trampoline: an editor's
	// terminal setting (a workspace's, even) must not run code in the
	// process before it is sandboxed. Empty values the request sets win
	// over the editor's; the command does not see them (no K line).
	for _, v := range loaderVars {
		if !slices.ContainsFunc(out, func(kv string) bool { return strings.HasPrefix(kv, v+"=") }) {
			out = append(out, v+"=")
		}
	}
	args := append(append(append([]string(nil), ExecArgs...), "--"), argv...)
	return Launch{Path: self, Args: args, Env: append(out, envKey+"="+b.String()), Dir: dir}, nil
}

// loaderVars make the dynamic loader run code of their choosing.
var loaderVars = []string{"LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT"}
