package cli

// starterProfile is what `ollm profile init` writes.
const starterProfile = `// ollm workspace profile. Commit this file and ollm.lock.
//
// It is unified with the builtin defaults and your user profile
// ($OLLM_HOME/profile.cue). Values written *x | type are defaults: any
// layer may choose its own (your profile.cue picking another model wins).
// A plain value is forced: another layer setting the field differently is
// an error naming both places. Durations are in milliseconds.
// Reference: docs/profile.md. Check it with: ollm profile validate
version: 1

model: {
	provider: *"ollama" | "openai" // "openai" for an OpenAI-compatible server
	name:     *"{{model}}" | string
	// endpoint: "http://127.0.0.1:11434"
}

policy: {
	// What happens when no rule matches: "allow", "deny" or "ask".
	defaultAction: *"ask" | "allow" | "deny"
	rules: [
		{tool: "read_file", action: "allow"},
		{tool: "grep", action: "allow"},
		{tool: "glob", action: "allow"},
		// Deny rules win over allow rules of the same specificity:
		{tool: "shell", action: "deny", when: {arg: "$program", oneOf: ["sudo", "mkfs", "dd"]}, message: "not in this project"},
	]
}

// hooks: definitions: [{
// 	name:       "guard"
// 	event:      "before_tool"
// 	matcher:    "shell"
// 	command:    "./.ollm/hooks/guard.sh"
// 	failClosed: true
// }]

// mcp: servers: {
// 	files: {command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "."]}
// }

// extensions: sources: {
// 	guard: {git: "https://example.com/you/ollm-guard.git", ref: "v1.0.0"}
// }
`
