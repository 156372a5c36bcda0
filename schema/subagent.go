package schema

// Subagent is an agent the model may delegate a task to (the Task tool):
// a child session with its own system prompt, tool subset and model,
// through the parent's gate.
type Subagent struct {
	Name        string `json:"name"`
	Description string `json:"description"` // when to use it, for the model
	Prompt      string `json:"prompt"`      // the child's system prompt
	// Tools are the tool names the child may call; empty: every tool of
	// the parent (never the Task tool beyond agent.subagents.maxDepth).
	Tools []string `json:"tools,omitempty"`
	// Model is a model name, or an alias agent.subagents.models maps
	// (Claude's sonnet, opus, haiku); "" and "inherit": the session's.
	Model string `json:"model,omitempty"`
	// File is where the definition was read ("" for a profile's own);
	// Extension the extension that brought it.
	File      string `json:"file,omitempty"`
	Extension string `json:"-"`
}

// Subagents bounds delegation and maps model aliases.
type Subagents struct {
	// MaxDepth is how deep delegation nests: 1 lets the session delegate
	// and no subagent delegate further; 0 turns the Task tool off.
	MaxDepth int `json:"maxDepth"`
	// MaxParallel is how many subagents run at once.
	MaxParallel int `json:"maxParallel"`
	// Models maps an agent's model (an alias such as "sonnet") to a model
	// name; unmapped aliases and "inherit" use the session's model.
	Models map[string]string `json:"models,omitempty"`
}
