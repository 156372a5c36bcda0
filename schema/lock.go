package schema

// LockVersion is the ollm.lock format version.
const LockVersion = 1

// LockHeader heads every lock file.
const LockHeader = "This file is maintained by ollm. Do not edit it by hand; run `ollm profile lock`."

// Lock is ollm.lock: what was asked for beside what it resolved to.
// Entries are sorted by name so the same inputs give the same bytes.
type Lock struct {
	Comment    string          `json:"//"`
	Version    int             `json:"version"`
	Profiles   []LockedSource  `json:"profiles,omitempty"`   // team profiles from extends
	Extensions []LockedSource  `json:"extensions,omitempty"` // extension sources
	Packages   []LockedPackage `json:"packages,omitempty"`   // npx/uvx-launched MCP servers
}

// Source types recorded in LockedSource.Type.
const (
	SourceGit  = "git"  // a git repository (Source is the URL or path as written)
	SourcePath = "path" // a local directory (Source is the path as written)
)

// LockedSource pins one git or local source.
type LockedSource struct {
	Name   string `json:"name"`
	Type   string `json:"type"`             // SourceGit | SourcePath
	Source string `json:"source"`           // git URL or local path as written
	Ref    string `json:"ref,omitempty"`    // as asked
	Subdir string `json:"subdir,omitempty"` // as asked
	Plugin string `json:"plugin,omitempty"` // as asked: a marketplace entry
	Commit string `json:"commit,omitempty"` // resolved (git only)
	Hash   string `json:"hash"`             // h1: over files and executable bits
	// Permissions are the extension manifest's permissions as declared
	// (nil: none), pinned beside the hash.
	Permissions *Sandbox `json:"permissions,omitempty"`
}

// LockedPackage pins a package that an MCP server launches through a
// package runner, so the server cannot drift between teammates.
type LockedPackage struct {
	Server  string `json:"server"`  // server name ("ext:server" for extension servers)
	Runner  string `json:"runner"`  // "npx" | "pnpm dlx" | "uvx"
	Package string `json:"package"` // as asked, e.g. "@scope/pkg" or "pkg@latest"
	Version string `json:"version"` // resolved exact version
}
