package schema

// Version is the profile schema version this build understands.
const Version = 1

// Durations are integers in milliseconds throughout the profile and the
// manifests, as in the extension manifest format the project grew from.

// Profile is the whole configuration after every layer has been unified.
type Profile struct {
	Version    int                       `json:"version"`
	Name       string                    `json:"name,omitempty"`
	Extends    []Source                  `json:"extends,omitempty"`
	Model      Model                     `json:"model"`
	Agent      Agent                     `json:"agent"`
	Hooks      Hooks                     `json:"hooks"`
	MCP        MCP                       `json:"mcp"`
	Extensions Extensions                `json:"extensions"`
	Policy     Policy                    `json:"policy"`
	Tools      Tools                     `json:"tools"`
	Settings   map[string]map[string]any `json:"settings,omitempty"`
	Skills     []Skill                   `json:"skills,omitempty"`
	Agents     []Subagent                `json:"agents,omitempty"`
	Sandbox    SandboxConfig             `json:"sandbox"`
	Profile    ProfileConfig             `json:"profile"`
}

// ProfileConfig says how the runtime follows the profile's files.
type ProfileConfig struct {
	// AutoApply: "local" (default) builds and switches to a new generation
	// when the inputs changed and that needs no fetch and no new approval;
	// "never" only says so.
	AutoApply string `json:"autoApply,omitempty"`
}

// Auto-apply modes.
const (
	AutoApplyLocal = "local"
	AutoApplyNever = "never"
)

// Model selects the provider and the model the agent talks to.
type Model struct {
	Provider      string         `json:"provider"` // "ollama" | "openai"
	Name          string         `json:"name"`
	Endpoint      string         `json:"endpoint"`
	Options       map[string]any `json:"options,omitempty"`
	KeepAlive     string         `json:"keepAlive,omitempty"`
	ContextWindow int            `json:"contextWindow,omitempty"`
	APIKeyEnv     string         `json:"apiKeyEnv,omitempty"`
}

// Agent holds the loop's limits.
type Agent struct {
	MaxTurns int `json:"maxTurns"`
	// ContextFiles are the names of the project instruction files read
	// into the system prompt (none: OLLM.md, AGENTS.md, GEMINI.md,
	// CLAUDE.md, CLAUDE.local.md; CLAUDE.md also as .claude/CLAUDE.md).
	ContextFiles []string `json:"contextFiles,omitempty"`
	// Subagents bounds the Task tool's delegation.
	Subagents Subagents `json:"subagents"`
}

// Hooks configures the hook system and declares profile-level hooks.
type Hooks struct {
	Enabled        bool `json:"enabled"`
	Timeout        int  `json:"timeout"` // ms, default for every hook
	TrustWorkspace bool `json:"trustWorkspace"`
	// ClaudeUserSettings reads the hooks of ~/.claude/settings.json (user
	// scope); honoured only from the user profile.
	ClaudeUserSettings bool `json:"claudeUserSettings"`
	// AllowEnv names variables of ollm's environment (names or globs)
	// every hook is given besides sandbox.BaseEnv: for hooks that cannot
	// declare env (.claude/settings.json, Gemini extensions).
	AllowEnv []string `json:"allowEnv,omitempty"`
	// MaxMemoryMB and MaxFileSizeMB bound every hook process: what it may
	// allocate (RLIMIT_DATA) and the largest file it may write
	// (RLIMIT_FSIZE), in MiB; 0 is no bound.
	MaxMemoryMB   int                     `json:"maxMemoryMB"`
	MaxFileSizeMB int                     `json:"maxFileSizeMB"`
	Extensions    map[string]HookOverride `json:"extensions,omitempty"`
	Definitions   []Hook                  `json:"definitions,omitempty"`
}

// HookOverride adjusts the hooks of one extension.
type HookOverride struct {
	Enabled *bool    `json:"enabled,omitempty"`
	Timeout int      `json:"timeout,omitempty"`
	Disable []string `json:"disable,omitempty"` // hook names switched off
}

// Hook is one hook definition. In a manifest the event comes from the key
// it is listed under and Event may be empty.
type Hook struct {
	Name       string            `json:"name"`
	Event      string            `json:"event,omitempty"`
	Command    string            `json:"command,omitempty"` // "" for a prompt hook
	Args       []string          `json:"args,omitempty"`
	Env        map[string]string `json:"env,omitempty"`
	Timeout    int               `json:"timeout,omitempty"` // ms; 0 means hooks.timeout
	Matcher    string            `json:"matcher,omitempty"`
	FailClosed bool              `json:"failClosed"`
	Async      bool              `json:"async"`
	Persistent bool              `json:"persistent"`
	Dialect    string            `json:"dialect"` // "ollm" | "claude" | "gemini"
	// Prompt makes a prompt hook: no process, the session's model is
	// asked (the text, $ARGUMENTS the hook input) and answers
	// {"ok": bool, "reason": "..."}; Command is then empty.
	Prompt string `json:"prompt,omitempty"`
	// If is a Claude Code permission rule (Bash(rm *), Edit(src/**),
	// mcp__server__tool): the hook runs only for tool calls it matches.
	If string `json:"if,omitempty"`
	// Shell runs Command through that shell, found on PATH when the
	// hook runs: bash, sh, zsh, fish, pwsh or powershell.
	Shell string `json:"shell,omitempty"`
	// Sandbox is what the hook's process may do; nil: its extension's
	// permissions, else the profile's sandbox.hooks.
	Sandbox *Sandbox `json:"sandbox,omitempty"`
}

// MCP configures the MCP client and declares profile-level servers.
type MCP struct {
	Enabled           bool                   `json:"enabled"`
	ConnectionTimeout int                    `json:"connectionTimeout"` // ms
	Servers           map[string]MCPServer   `json:"servers,omitempty"`
	Overrides         map[string]MCPOverride `json:"overrides,omitempty"`
	Serve             MCPServe               `json:"serve"`
}

// MCPServe configures `ollm mcp serve`.
type MCPServe struct {
	MaxConcurrent  int      `json:"maxConcurrent"`            // tool calls run at once
	AllowedOrigins []string `json:"allowedOrigins,omitempty"` // browser origins allowed besides loopback ones
}

// MCPServer is one MCP server, from the profile, a manifest or .mcp.json.
type MCPServer struct {
	Command      string            `json:"command,omitempty"`
	Args         []string          `json:"args,omitempty"`
	Env          map[string]string `json:"env,omitempty"`
	Cwd          string            `json:"cwd,omitempty"`
	Transport    string            `json:"transport"` // "stdio" | "sse" | "http"
	URL          string            `json:"url,omitempty"`
	Headers      map[string]string `json:"headers,omitempty"`
	Timeout      int               `json:"timeout,omitempty"` // ms per call
	IncludeTools []string          `json:"includeTools,omitempty"`
	ExcludeTools []string          `json:"excludeTools,omitempty"`
	Enabled      bool              `json:"enabled"`
	// Sandbox is what a stdio server's process may do; nil: its
	// extension's permissions, else the profile's sandbox.mcp.
	Sandbox *Sandbox `json:"sandbox,omitempty"`
	// Roots are the directories offered to the server as MCP roots;
	// empty: the workspace and the extra directories its sandbox grants.
	Roots []string `json:"roots,omitempty"`
	// OAuth is how ollm authenticates at an HTTP server's authorization
	// server when it is not to register itself dynamically.
	OAuth *MCPOAuth `json:"oauth,omitempty"`
}

// MCPOAuth is a client registered beforehand, the scopes and the grant.
type MCPOAuth struct {
	ClientID        string   `json:"clientId,omitempty"`
	ClientSecretEnv string   `json:"clientSecretEnv,omitempty"` // the variable holding the secret
	Scopes          []string `json:"scopes,omitempty"`
	Grant           string   `json:"grant,omitempty"` // "authorization_code" | "client_credentials"
	PrivateKeyFile  string   `json:"privateKeyFile,omitempty"`
	KeyID           string   `json:"keyId,omitempty"`
	MetadataURL     string   `json:"metadataUrl,omitempty"` // a client ID metadata document
}

// MCPOverride adjusts one server by name, whichever layer declared it.
// Extension servers are named "<extension>:<server>".
type MCPOverride struct {
	Enabled *bool `json:"enabled,omitempty"`
	// Cwd replaces the server's working directory (relative: to the
	// workspace; ${workspacePath} and ${extensionPath} work).
	Cwd          string            `json:"cwd,omitempty"`
	Timeout      int               `json:"timeout,omitempty"`
	Env          map[string]string `json:"env,omitempty"`
	IncludeTools []string          `json:"includeTools,omitempty"`
	ExcludeTools []string          `json:"excludeTools,omitempty"`
}

// Extensions configures discovery and declares extension sources.
type Extensions struct {
	Enabled     bool              `json:"enabled"`
	Directories []string          `json:"directories,omitempty"`
	AutoEnable  bool              `json:"autoEnable"`
	Enable      map[string]bool   `json:"enable,omitempty"` // per-extension override
	Sources     map[string]Source `json:"sources,omitempty"`
}

// Source says where an extension or a team profile comes from: a git
// repository at a ref, or a local directory.
type Source struct {
	Git    string `json:"git,omitempty"`
	Ref    string `json:"ref,omitempty"`
	Path   string `json:"path,omitempty"`
	Subdir string `json:"subdir,omitempty"`
	// Plugin names an entry of the Claude Code marketplace at Git (in
	// Subdir): the extension is that entry's plugin, its manifest
	// synthesized from the entry inside the hashed tree.
	Plugin string `json:"plugin,omitempty"`
}

// Policy is the tool-call policy.
type Policy struct {
	DefaultAction string       `json:"defaultAction"` // "allow" | "deny" | "ask"
	Mode          string       `json:"mode"`          // "default" | "auto_edit" | "plan" | "yolo"
	Rules         []PolicyRule `json:"rules,omitempty"`
}

// PolicyRule matches a tool by exact name or glob and decides.
type PolicyRule struct {
	Name    string     `json:"name,omitempty"`
	Tool    string     `json:"tool"`
	Action  string     `json:"action"` // "allow" | "deny" | "ask"
	When    *Condition `json:"when,omitempty"`
	Risk    string     `json:"risk,omitempty"` // "low" | "medium" | "high"
	Message string     `json:"message,omitempty"`
}

// Condition is a typed test on the final arguments of a tool call. Arg
// names the argument (a dotted path); for shell tools the pseudo arguments
// "$program" and "$args" see every parsed sub-command. Exactly one test, or
// one combinator, is set.
type Condition struct {
	Arg        string      `json:"arg,omitempty"`
	Equals     any         `json:"equals,omitempty"`
	Contains   string      `json:"contains,omitempty"`
	Matches    string      `json:"matches,omitempty"`
	StartsWith string      `json:"startsWith,omitempty"`
	Glob       string      `json:"glob,omitempty"`
	OneOf      []any       `json:"oneOf,omitempty"`
	Not        *Condition  `json:"not,omitempty"`
	Any        []Condition `json:"any,omitempty"`
	All        []Condition `json:"all,omitempty"`
}

// Tools configures the built-in tools.
type Tools struct {
	ExtraDirs []string `json:"extraDirs,omitempty"`
	Disabled  []string `json:"disabled,omitempty"`
	Shell     Shell    `json:"shell"`
	Web       Web      `json:"web"`
}

// Shell configures the shell tool.
type Shell struct {
	Timeout     int      `json:"timeout"`     // ms
	IdleTimeout int      `json:"idleTimeout"` // ms, 0 = none
	AllowEnv    []string `json:"allowEnv,omitempty"`
}

// Web configures web_fetch and web_search.
type Web struct {
	SearchProvider string `json:"searchProvider"` // "duckduckgo" | "searxng" | "brave"
	SearchURL      string `json:"searchURL,omitempty"`
	APIKeyEnv      string `json:"apiKeyEnv,omitempty"`
	MaxBytes       int    `json:"maxBytes"`
}

// Skill is a named prompt template with {placeholder}s.
type Skill struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Prompt      string `json:"prompt"`
}
