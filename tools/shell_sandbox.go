package tools

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ollm/ollm/core/sandbox"
	"github.com/ollm/ollm/core/tool"
	"github.com/ollm/ollm/internal/lazyre"
)

// sandboxed wraps a shell command in the configured sandbox. It returns a
// note for the output when the command runs unsandboxed because the
// machine cannot sandbox, or a failure when sandbox.required forbids that.
func (e *env) sandboxed(cmd *exec.Cmd) (note string, fail *tool.Error) {
	p := e.policy()
	if p == nil {
		return "", nil
	}
	err := sandbox.Wrap(cmd, *p)
	switch {
	case err == nil:
		return "", nil
	case errors.Is(err, sandbox.ErrUnavailable) && !e.cfg.SandboxRequired:
		note = ""
		e.sandboxWarn.Do(func() {
			note = fmt.Sprintf("warning: running without a sandbox: %v (set sandbox.required: true to refuse instead)\n", err)
		})
		return note, nil
	case errors.Is(err, sandbox.ErrUnavailable):
		return "", &tool.Error{Kind: tool.ErrPermission, Message: fmt.Sprintf("blocked by the sandbox: %v, and sandbox.required is true; nothing ran", err)}
	}
	return "", &tool.Error{Kind: tool.ErrExec, Message: fmt.Sprintf("sandbox: %v", err)}
}

// policy is the shell's sandbox for the command about to run.
func (e *env) policy() *sandbox.Policy {
	if e.cfg.SandboxNow != nil && e.cfg.Sandbox != nil {
		return e.cfg.SandboxNow()
	}
	return e.cfg.Sandbox
}

// sandboxName is shown beside a shell call: the sandbox it ran in.
func (e *env) sandboxName() string {
	if e.cfg.Sandbox == nil {
		return ""
	}
	return e.cfg.Sandbox.String()
}

var (
	deniedPath = lazyre.New(`(?:'([^']+)'|"([^"]+)"|([^\s:'"]+)): (?:Permission denied|Operation not permitted|Read-only file system|Device or resource busy)`)
	noNetwork  = lazyre.New(`(?i)network is unreachable|connection refused|temporary failure in name resolution|could not resolve host|name or service not known|no address associated with hostname|failed to resolve`)
	// Landlock refuses a TCP connect with EACCES: "Permission denied" next
	// to a word about connecting.
	tcpDenied = lazyre.New(`(?i)(connect|connection|socket|urlopen|tcp|dial)[^\n]*(permission denied|operation not permitted)|(permission denied|operation not permitted)[^\n]*(connect|socket)`)
	// Python and others name the path after the error.
	deniedAfter = lazyre.New(`(?:Permission denied|Operation not permitted|Read-only file system|Device or resource busy): '([^']+)'`)
	connecting  = lazyre.New(`(?i)connect|socket|urlopen`)
	denied      = lazyre.New(`(?i)permission denied|operation not permitted`)
)

// explainDenial turns what a program printed when the sandbox stopped it
// into one line for the model and the user: which path or the network,
// and why. It returns "" when stderr shows no denial.
func explainDenial(stderr string, p *sandbox.Policy, root string) string {
	if p == nil || p.Off() {
		return ""
	}
	netOff := "blocked by the sandbox: the network is off for shell commands (sandbox.shell.network: true in your profile allows it)"
	if !p.Network && tcpDenied.MatchString(stderr) {
		return netOff
	}
	path := ""
	if m := deniedAfter.FindStringSubmatch(stderr); m != nil {
		path = m[1]
	} else if m := deniedPath.FindStringSubmatch(stderr); m != nil {
		path = m[1] + m[2] + m[3]
	}
	if path != "" {
		if !filepath.IsAbs(path) {
			path = filepath.Join(root, path)
		}
		path = filepath.Clean(path)
		return "blocked by the sandbox: " + whyDenied(path, p)
	}
	if !p.Network && (noNetwork.MatchString(stderr) || (connecting.MatchString(stderr) && denied.MatchString(stderr))) {
		return netOff
	}
	return ""
}

func whyDenied(path string, p *sandbox.Policy) string {
	for _, pr := range p.Protect {
		if under(path, pr) {
			return fmt.Sprintf("%s decides what ollm trusts and runs; it is read-only inside the sandbox", path)
		}
	}
	readable := false
	for _, r := range append(append([]string(nil), p.Read...), p.Write...) {
		if under(path, r) {
			readable = true
			break
		}
	}
	if _, err := os.Lstat(path); err == nil && !readable {
		return fmt.Sprintf("%s is hidden from sandboxed commands (a secret location, or sandbox.denyRead)", path)
	}
	for _, w := range p.Write {
		if under(path, w) {
			return fmt.Sprintf("access to %s was refused (%s)", path, p)
		}
	}
	return fmt.Sprintf("write to %s outside the workspace (%s; sandbox.shell.write in your profile adds a path)", path, p)
}

func under(p, base string) bool {
	return p == base || strings.HasPrefix(p, strings.TrimSuffix(base, "/")+"/")
}

// gitScanLimit bounds the directories looked at for a new .git.
const gitScanLimit = 20000

// gitDirs lists the workspace's .git entries before a command that may
// write it, and whether to look again after it: the sandbox cannot stop
// a command from creating a repository where there was none (the kernel
// has no rule per name), so one it created is moved aside afterwards
// (sandbox.HoldNewGitDirs).
//
// The list found after one call is the next call's "before" when no other
// call ran meanwhile, which halves the walks (2.3 ms each for ollm's own
// repository, 27 ms for $GOROOT/src). A repository the user made between
// the two calls is then missing from it: an entry counts as the command's
// only when its inode changed since the command started (ctime; a
// rename, link or creation sets it, and nothing can set it back).
func (e *env) gitDirs() (gitBefore, bool) {
	p := e.policy()
	if p == nil || p.Off() || e.cfg.Root == "" || !slices.ContainsFunc(p.Write, func(w string) bool { return under(e.cfg.Root, w) }) {
		return gitBefore{}, false
	}
	g := &e.gitSeen
	g.mu.Lock()
	reuse := g.valid && g.inflight == 0
	b := gitBefore{found: g.found, reused: reuse, since: time.Now().Add(-ctimeSlack)}
	g.inflight++
	g.valid = false
	g.mu.Unlock()
	if !reuse {
		b.found, _ = sandbox.GitDirsUnder(e.cfg.Root, gitScanLimit)
	}
	return b, true
}

// ctimeSlack allows for the kernel's coarse file timestamps (a tick).
const ctimeSlack = 50 * time.Millisecond

// gitBefore is the workspace's .git entries before a command.
type gitBefore struct {
	found  []string
	reused bool      // the previous call's list, not a walk
	since  time.Time // the command's start, less ctimeSlack
}

// gitSeen is the last call's list (env.gitDirs).
type gitSeen struct {
	mu       sync.Mutex
	found    []string
	valid    bool
	inflight int
}

// holdNewGitDirs moves aside each .git the command created since before
// and says so, one warning line each.
func (e *env) holdNewGitDirs(before gitBefore) []string {
	after, _ := sandbox.GitDirsUnder(e.cfg.Root, gitScanLimit)
	known := before.found
	if before.reused {
		known = slices.Clone(known)
		for _, g := range after {
			if !slices.Contains(known, g) && !changedSince(g, before.since) {
				known = append(known, g) // the user's, made between the calls
			}
		}
	}
	var out []string
	for _, h := range sandbox.HoldNewGitDirs(e.cfg.Root, known, after) {
		out = append(out, "warning: "+h.String())
	}
	g := &e.gitSeen
	g.mu.Lock()
	g.inflight--
	// After a hold the list is stale (what was moved, and where to, may
	// look like a repository itself): the next call walks again.
	g.found, g.valid = after, g.inflight == 0 && len(out) == 0
	g.mu.Unlock()
	return out
}

// gitAbandon ends a call that did not start: the list is looked for
// again at the next one.
func (e *env) gitAbandon() {
	g := &e.gitSeen
	g.mu.Lock()
	g.inflight--
	g.valid = false
	g.mu.Unlock()
}

// missingTrustFiles are the trust files the sandbox could not make
// read-only because they did not exist when the command started.
func (e *env) missingTrustFiles() []string {
	pol := e.policy()
	if pol == nil {
		return nil
	}
	var out []string
	for _, p := range pol.Protect {
		if _, err := os.Lstat(p); os.IsNotExist(err) {
			out = append(out, p)
		}
	}
	return out
}

// createdTrustFiles says which of missing a command created: they escaped
// the read-only mounts, which need an existing path. The workspace digest
// catches ollm's own files (the workspace needs a new approval); git runs
// .git/config and .git/hooks outside any sandbox, so the user must look.
func createdTrustFiles(missing []string, root string) string {
	var made []string
	for _, p := range missing {
		if _, err := os.Lstat(p); err == nil {
			made = append(made, relOr(root, p))
		}
	}
	if len(made) == 0 {
		return ""
	}
	return fmt.Sprintf("warning: the command created %s, which decide what ollm or git runs; review them before you run git or ollm trust here (ollm holds back a changed workspace until you approve it again)", strings.Join(made, ", "))
}

func relOr(root, p string) string {
	if r, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return p
}
