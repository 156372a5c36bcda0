package cli

// starterProfile is what `ollm profile init` writes.
const starterProfile = `// ollm workspace profile. Commit this file and ollm.lock.
//
// It is unified with the builtin defaults and your user profile
// ($OLLM_HOME/profile.cue). Two layers that set the same field to different
// values are an error naming both places, so values set here cannot be
// silently replaced. Durations are in milliseconds.
// Reference: docs/profile.md. Check it with: ollm profile validate
version: 1

model: {
	provider: "ollama" // or "openai" for an OpenAI-compatible server
	name:     "{{model}}"
	// endpoint: "http://127.0.0.1:11434"
}

policy: {
	// What happens when no rule matches: "allow", "deny" or "ask".
	defaultAction: "ask"
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
