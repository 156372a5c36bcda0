package schema

// ImportReport says what ollm made of an extension written for another
// agent CLI (a Claude Code plugin): each part it imported and each part it
// skipped, with why. `ollm ext info` shows it.
type ImportReport struct {
	Format   string       `json:"format"` // e.g. "claude-plugin"
	Imported []ImportItem `json:"imported,omitempty"`
	Skipped  []ImportItem `json:"skipped,omitempty"`
	// Commands are the plugin's Claude Code commands (Markdown), loaded
	// as such by the extension manager (core/skills).
	Commands []ImportCommand `json:"commands,omitempty"`
}

// ImportCommand is one command file of an imported plugin.
type ImportCommand struct {
	Name string `json:"name"` // the command's name (its file's base name)
	File string `json:"file"` // relative to the plugin's directory
}

// ImportItem is one part of an imported extension.
type ImportItem struct {
	What string `json:"what"`          // e.g. "hook PreToolUse/Bash", "command review"
	As   string `json:"as,omitempty"`  // what it became in ollm, e.g. "before_tool hook PreToolUse.1"
	Pos  string `json:"pos,omitempty"` // file[:line[:col]] it came from
	Why  string `json:"why,omitempty"` // for a skipped part: why
}
