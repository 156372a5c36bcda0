package schema

// Sandbox presets.
const (
	SandboxReadOnly       = "read-only"       // read the allowed tree, write nothing but devices
	SandboxWorkspaceWrite = "workspace-write" // also write the workspace, temporary files and tool caches
	SandboxOff            = "off"             // no sandbox
)

// Sandbox is what one process ollm starts may do: a preset, whether it may
// use the network, and extra paths to read or write. An empty field takes
// the default of where it is used (Resolve in core/sandbox).
type Sandbox struct {
	Preset  string `json:"preset,omitempty"`  // SandboxReadOnly | SandboxWorkspaceWrite | SandboxOff
	Network *bool  `json:"network,omitempty"` // nil: the default
	// Isolate, without network, gives the process a network namespace of
	// its own: no UDP or DNS either, not only no TCP.
	Isolate bool     `json:"isolate,omitempty"`
	Read    []string `json:"read,omitempty"`  // extra readable paths
	Write   []string `json:"write,omitempty"` // extra writable paths (readable too)
	// SSHAgent lets the process use the user's ssh-agent ($SSH_AUTH_SOCK),
	// which signs with the user's keys; network alone does not.
	SSHAgent bool `json:"sshAgent,omitempty"`
}

// IsZero reports whether s declares nothing.
func (s Sandbox) IsZero() bool {
	return s.Preset == "" && s.Network == nil && !s.Isolate && !s.SSHAgent && len(s.Read) == 0 && len(s.Write) == 0
}

// SandboxConfig is the profile's sandbox block.
type SandboxConfig struct {
	// Required refuses to run a process when the kernel cannot sandbox it;
	// false runs it unsandboxed with one warning.
	Required bool `json:"required"`
	// DenyRead are extra paths no sandboxed process may read, beside the
	// built-in secret locations (~/.ssh, ~/.aws, ...).
	DenyRead []string `json:"denyRead,omitempty"`
	// AllowRead are paths in $HOME sandboxed processes may read beside the
	// built-in allow-list (toolchains, git's settings): everything else in
	// $HOME is hidden.
	AllowRead []string `json:"allowRead,omitempty"`
	// Shell is the shell tool's sandbox (commands and background jobs).
	Shell Sandbox `json:"shell"`
	// Hooks and MCP are the defaults for hooks and stdio MCP servers that
	// declare none.
	Hooks Sandbox `json:"hooks"`
	MCP   Sandbox `json:"mcp"`
}
