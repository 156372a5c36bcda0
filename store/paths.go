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

// Tokens holds OAuth tokens (0600).
func (h Home) Tokens() string { return h.path("tokens") }

// WorkspaceLock is the path whose file lock serialises applies in one
// workspace. It lives under OLLM_HOME so nothing is left in the project.
func (h Home) WorkspaceLock(root string) string {
	sum := sha256.Sum256([]byte(root))
	return h.path("locks", hex.EncodeToString(sum[:8])+"-"+filepath.Base(root))
}

// Workspace is the layout of a project directory.
type Workspace struct{ Root string }

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

// Memory is the per-workspace memory file.
func (w Workspace) Memory() string { return filepath.Join(w.Root, ".ollm", "memory.json") }

// Todos is the per-workspace todo list.
func (w Workspace) Todos() string { return filepath.Join(w.Root, ".ollm", "todos.json") }

// FindWorkspace walks up from dir to the nearest directory holding ollm.cue
// or .ollm/. With neither, dir itself is the workspace.
func FindWorkspace(dir string) (Workspace, bool) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Workspace{Root: dir}, false
	}
	for d := abs; ; {
		if fileExists(filepath.Join(d, ProfileFileName)) || dirExists(filepath.Join(d, ".ollm")) {
			return Workspace{Root: d}, true
		}
		parent := filepath.Dir(d)
		if parent == d {
			return Workspace{Root: abs}, false
		}
		d = parent
	}
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

func dirExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
