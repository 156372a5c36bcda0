package runtime

import (
	"os"
	"path/filepath"

	"github.com/ollm/ollm/core/agent"
	"github.com/ollm/ollm/internal/claudeagent"
	"github.com/ollm/ollm/schema"
)

// claudeAgentDirs are where Claude Code keeps agent files: the project's
// .claude/agents, then the user's ($CLAUDE_CONFIG_DIR/agents, else
// ~/.claude/agents). A project's agent wins over the user's of the same
// name, as in Claude Code.
func (rt *Runtime) claudeAgentDirs() []string {
	var dirs []string
	if rt.Workspace.Root != "" {
		dirs = append(dirs, filepath.Join(rt.Workspace.Root, ".claude", "agents"))
	}
	if d := rt.opts.Getenv("CLAUDE_CONFIG_DIR"); d != "" {
		dirs = append(dirs, filepath.Join(d, "agents"))
	} else if h, err := os.UserHomeDir(); err == nil {
		dirs = append(dirs, filepath.Join(h, ".claude", "agents"))
	}
	return dirs
}

// readClaudeAgents reads the project's and the user's agent files. A
// project's agents load without approval: an agent widens nothing, as it
// runs through the session's own gate (policy, hooks, sandbox) with a
// subset of its tools. Every field not honoured is one warning.
func (rt *Runtime) readClaudeAgents() ([]schema.Subagent, []string) {
	var out []schema.Subagent
	var warnings []string
	seen := map[string]bool{}
	for i, d := range rt.claudeAgentDirs() {
		within := "" // the user's own folder may link where it likes
		if i == 0 && rt.Workspace.Root != "" {
			within = rt.Workspace.Root // a project's agent files stay in the project
		}
		list, warns := claudeagent.ReadDir(d, within)
		for _, w := range warns {
			warnings = append(warnings, "Claude Code agent "+w.String())
		}
		for _, a := range list {
			if !seen[a.Name] {
				seen[a.Name] = true
				out = append(out, a)
			}
		}
	}
	return out, warnings
}

// subagents are what a session may delegate to: the profile's agents, the
// project's and user's Claude agent files, and the enabled extensions'
// (as <extension>:<agent>); nil when there are none or
// agent.subagents.maxDepth is 0.
func (rt *Runtime) subagents() *agent.Subagents {
	g := rt.Resolved()
	if g == nil || g.Profile.Agent.Subagents.MaxDepth <= 0 {
		return nil
	}
	cfg := g.Profile.Agent.Subagents
	var list []schema.Subagent
	seen := map[string]bool{}
	add := func(a schema.Subagent) {
		if !seen[a.Name] {
			seen[a.Name] = true
			list = append(list, a)
		}
	}
	for _, a := range g.Profile.Agents {
		add(a)
	}
	rt.mu.RLock()
	files := rt.agentFiles
	rt.mu.RUnlock()
	for _, a := range files {
		add(a)
	}
	for _, x := range g.Extensions {
		if len(x.Manifest.Agents) == 0 || rt.Ext.Off(x.Name) != "" {
			continue
		}
		for _, a := range x.Manifest.Agents {
			a.Extension, a.Name = x.Name, x.Name+":"+a.Name
			if a.File != "" && !filepath.IsAbs(a.File) {
				a.File = filepath.Join(x.Dir, a.File)
			}
			add(a)
		}
	}
	if len(list) == 0 {
		return nil
	}
	return &agent.Subagents{Agents: list, MaxDepth: cfg.MaxDepth, MaxParallel: cfg.MaxParallel, Models: cfg.Models}
}
