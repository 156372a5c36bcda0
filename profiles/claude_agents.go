package profiles

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/ollm/ollm/internal/claudeagent"
	"github.com/ollm/ollm/schema"
)

// agents reads agents/*.md (and the files or folders plugin.json's agents
// names) into the manifest's subagents. What an agent file holds that
// ollm does not honour is a skipped item each (a warning at load).
func (p *pluginImport) agents(doc jsonDoc, raw json.RawMessage) {
	def := filepath.Join(p.dir, "agents")
	roots := append([]string{def}, p.paths(doc, "agents", raw)...)
	seen := map[string]bool{}
	for _, r := range roots {
		fi, err := os.Stat(r)
		if err != nil && r != def {
			p.skipped("agents "+p.rel(r), doc.pos("agents"), "no such file or folder in the plugin")
		}
		if err != nil || seen[r] {
			continue
		}
		seen[r] = true
		if fi.IsDir() {
			list, warns := claudeagent.ReadDir(r, p.dir)
			p.addAgents(list, warns)
			continue
		}
		data, err := os.ReadFile(r)
		if err != nil {
			p.skipped("agent "+p.rel(r), p.rel(r), "cannot read it")
			continue
		}
		a, warns, err := claudeagent.Parse(r, data)
		if err != nil {
			warns = append(warns, claudeagent.Warning{File: r, Message: "skipped: " + err.Error()})
			p.addAgents(nil, warns)
			continue
		}
		p.addAgents([]schema.Subagent{a}, warns)
	}
}

func (p *pluginImport) addAgents(list []schema.Subagent, warns []claudeagent.Warning) {
	for _, w := range warns {
		what := "agent " + p.rel(w.File)
		if w.Field != "" {
			what += ": " + w.Field
		}
		p.skipped(what, p.rel(w.File), strings.TrimPrefix(w.Message, "skipped: "))
	}
	for _, a := range list {
		if slicesHasAgent(p.m.Agents, a.Name) {
			p.skipped("agent "+p.rel(a.File), p.rel(a.File), "another agent has the same name: "+a.Name)
			continue
		}
		a.File = p.rel(a.File)
		p.m.Agents = append(p.m.Agents, a)
		as := "agent " + p.m.Name + ":" + a.Name
		if len(a.Tools) > 0 {
			as += " (tools " + strings.Join(a.Tools, ", ") + ")"
		}
		p.imported("agent "+a.Name, as, a.File)
	}
}

func slicesHasAgent(list []schema.Subagent, name string) bool {
	for _, a := range list {
		if a.Name == name {
			return true
		}
	}
	return false
}
