package store

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
)

// HomeEnv names the variable that moves ollm's home directory.
const HomeEnv = "OLLM_HOME"

// Home is the layout of OLLM_HOME.
type Home struct{ Dir string }

// DefaultHome resolves OLLM_HOME, falling back to ~/.ollm.
func DefaultHome(getenv func(string) string) (Home, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	if d := getenv(HomeEnv); d != "" {
		abs, err := filepath.Abs(d)
		if err != nil {
			return Home{}, fmt.Errorf("%s=%q: %w", HomeEnv, d, err)
		}
		return Home{Dir: abs}, nil
	}
	h, err := os.UserHomeDir()
	if err != nil {
		return Home{}, fmt.Errorf("cannot find the home directory (%v); set %s", err, HomeEnv)
	}
	return Home{Dir: filepath.Join(h, ".ollm")}, nil
}

func (h Home) path(elem ...string) string { return filepath.Join(append([]string{h.Dir}, elem...)...) }

// Profile is the user profile, the layer above the builtin one.
func (h Home) Profile() string { return h.path("profile.cue") }

// Extensions is the user's extension directory.
func (h Home) Extensions() string { return h.path("extensions") }

// Skills is the user's folder-skill directory.
func (h Home) Skills() string { return h.path("skills") }

// Store is the content-addressed extension store.
func (h Home) Store() string { return h.path("store") }

// Generations holds the immutable generations written by profile apply.
func (h Home) Generations() string { return h.path("generations") }

// Cache holds derived data that can be rebuilt (resolved profiles by digest).
func (h Home) Cache() string { return h.path("cache") }

// TrustedHooks is the approval file for hooks and extensions.
func (h Home) TrustedHooks() string { return h.path("trusted-hooks.json") }

// TrustedWorkspaces is the approval file for workspace profiles.
func (h Home) TrustedWorkspaces() string { return h.path("trusted-workspaces.json") }

// ExtensionState is the enabled/disabled state of extensions.
func (h Home) ExtensionState() string { return h.path("state", "extensions.json") }

// Memory is the global memory file.
func (h Home) Memory() string { return h.path("memory.json") }

// Logs is the directory of per-extension and per-server logs.
func (h Home) Logs() string { return h.path("logs") }

// Sessions holds JSONL session transcripts.
func (h Home) Sessions() string { return h.path("sessions") }

// InputHistory is the file of prompts sent in the TUI in the workspace
// root (0600; one JSON string per line).
func (h Home) InputHistory(root string) string {
	sum := sha256.Sum256([]byte(root))
	return h.path("history", hex.EncodeToString(sum[:8])+"-"+filepath.Base(root)+".jsonl")
}

// Tokens holds OAuth tokens (0600).
func (h Home) Tokens() string { return h.path("tokens") }

// WorkspaceLock is the path whose file lock serialises applies in one
// workspace. It lives under OLLM_HOME so nothing is left in the project.
func (h Home) WorkspaceLock(root string) string {
	sum := sha256.Sum256([]byte(root))
	return h.path("locks", hex.EncodeToString(sum[:8])+"-"+filepath.Base(root))
}

// Workspace is the layout of a project directory. Found says how
// FindWorkspace chose Root (empty when a caller built it).
type Workspace struct {
	Root  string
	Found Found
}

// ProfileFileName is the workspace profile's name.
const ProfileFileName = "ollm.cue"

// LockFileName is the lock file's name, beside ollm.cue.
const LockFileName = "ollm.lock"

// Profile is <root>/ollm.cue.
func (w Workspace) Profile() string { return filepath.Join(w.Root, ProfileFileName) }

// Lock is <root>/ollm.lock.
func (w Workspace) Lock() string { return filepath.Join(w.Root, LockFileName) }

// MCPJSON is the workspace .mcp.json.
func (w Workspace) MCPJSON() string { return filepath.Join(w.Root, ".mcp.json") }

// Dir is <root>/.ollm.
func (w Workspace) Dir() string { return filepath.Join(w.Root, ".ollm") }

// Extensions is <root>/.ollm/extensions.
func (w Workspace) Extensions() string { return filepath.Join(w.Root, ".ollm", "extensions") }

// Skills is <root>/.ollm/skills.
func (w Workspace) Skills() string { return filepath.Join(w.Root, ".ollm", "skills") }

// GeminiCommands is <root>/.gemini/commands, Gemini CLI's project
// commands (their !{...} run commands, so they count for the workspace's
// approval).
func (w Workspace) GeminiCommands() string { return filepath.Join(w.Root, ".gemini", "commands") }

// ClaudeCommands is <root>/.claude/commands, Claude Code's project
// commands (their !`...` run commands, so they count for the workspace's
// approval).
func (w Workspace) ClaudeCommands() string { return filepath.Join(w.Root, ".claude", "commands") }

// ClaudeOutputStyles is <root>/.claude/output-styles, Claude Code's
// project output styles.
func (w Workspace) ClaudeOutputStyles() string {
	return filepath.Join(w.Root, ".claude", "output-styles")
}

// ClaudeSkills is <root>/.claude/skills, Claude Code's project skills.
func (w Workspace) ClaudeSkills() string { return filepath.Join(w.Root, ".claude", "skills") }

// Memory is the per-workspace memory file.
func (w Workspace) Memory() string { return filepath.Join(w.Root, ".ollm", "memory.json") }

// Todos is the per-workspace todo list.
func (w Workspace) Todos() string { return filepath.Join(w.Root, ".ollm", "todos.json") }

// Found says how FindWorkspace chose the workspace.
type Found string

const (
	FoundProfile Found = "ollm.cue"          // the nearest directory holding ollm.cue
	FoundGit     Found = "git root"          // the repository's top (.git directory or file)
	FoundDir     Found = "current directory" // neither: the directory itself
)

// NotWorkspaceError says that a directory cannot be a workspace: it is the
// user's home directory or inside OLLM_HOME. A workspace is what the shell
// may write and what relative paths resolve against; the home directory
// holds ~/.bashrc and every credential, OLLM_HOME the approvals.
type NotWorkspaceError struct {
	Dir  string
	What string // "your home directory" or "inside OLLM_HOME (...)"
}

func (e *NotWorkspaceError) Error() string {
	return fmt.Sprintf("%s is %s, which is never a workspace (the model's shell could write all of it); "+
		"start ollm in a project directory (one below your home, a git repository or a directory with ollm.cue), or pass -C DIR", e.Dir, e.What)
}

// FindWorkspace finds the workspace of dir: walking up from dir, the
// nearest directory holding ollm.cue, up to the repository's top (the
// nearest directory with a .git directory or file); else that repository's
// top; else dir itself. The user's home directory (userHome) and OLLM_HOME
// are never a workspace: dir being the first, or the second or inside it,
// is a *NotWorkspaceError, and the walk stops below the home directory, so
// neither ~/ollm.cue nor ~/.ollm/ makes it the workspace of the projects
// under it. .ollm/ alone marks nothing: ollm creates it (memory, todos)
// wherever it ran.
func FindWorkspace(dir, userHome string, h Home) (Workspace, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Workspace{}, fmt.Errorf("workspace %s: %w", dir, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return Workspace{}, fmt.Errorf("workspace: %w", err)
	}
	if !fi.IsDir() {
		return Workspace{}, fmt.Errorf("workspace %s: not a directory", abs)
	}
	homeFI, ollmFI := statDir(userHome), statDir(h.Dir)
	for d := abs; ; d = filepath.Dir(d) {
		if sameDir(d, ollmFI) {
			return Workspace{}, &NotWorkspaceError{Dir: abs, What: "inside " + HomeEnv + " (" + h.Dir + ")"}
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	if sameDir(abs, homeFI) {
		return Workspace{}, &NotWorkspaceError{Dir: abs, What: "your home directory"}
	}
	for d := abs; !sameDir(d, homeFI); d = filepath.Dir(d) {
		if fileExists(filepath.Join(d, ProfileFileName)) {
			return Workspace{Root: d, Found: FoundProfile}, nil
		}
		if exists(filepath.Join(d, ".git")) {
			return Workspace{Root: d, Found: FoundGit}, nil
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	return Workspace{Root: abs, Found: FoundDir}, nil
}

// statDir stats a directory; "" or a missing one is nil and matches nothing.
func statDir(d string) os.FileInfo {
	if d == "" {
		return nil
	}
	fi, err := os.Stat(d)
	if err != nil {
		return nil
	}
	return fi
}

// sameDir reports whether d is the directory of fi (after symbolic links,
// by device and inode).
func sameDir(d string, fi os.FileInfo) bool {
	if fi == nil {
		return false
	}
	di, err := os.Stat(d)
	return err == nil && os.SameFile(di, fi)
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

func dirExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
