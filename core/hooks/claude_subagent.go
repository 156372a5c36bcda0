package hooks

// claudeSubagent adds the fields of Claude Code's SubagentStart and
// SubagentStop input: agent_id (the Task call's id), agent_type (the
// agent's name) and, at the stop, last_assistant_message (the result).
func claudeSubagent(e Event, m, data map[string]any) {
	if e != SubagentStart && e != SubagentStop {
		return
	}
	copyAs(m, data, "agent_id", "agent_id")
	copyAs(m, data, "agent_name", "agent_type")
	if e == SubagentStop {
		m["stop_hook_active"] = false
		copyAs(m, data, "result", "last_assistant_message")
		m["agent_transcript_path"] = ""
	}
}
