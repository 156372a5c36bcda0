package agent

import (
	"fmt"
	"path"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/ollm/ollm/core/hooks"
	"github.com/ollm/ollm/core/tool"
	"github.com/ollm/ollm/schema"
)

// Subagents are the agents a session may delegate a task to through the
// Task tool. A subagent is a child Session: its own system prompt, the
// tool subset its definition allows and its model, and everything else
// the parent's: the same hooks, policy (with the parent's "always"
// answers), confirmation bus and tools, so it runs through the same gate
// and sandbox and can never do more than the parent. Depth and the number
// of subagents running at once are bounded for the whole tree.
type Subagents struct {
	// Agents by the name the model calls them: extension agents as
	// "<extension>:<name>", which their bare name also finds when no other
	// agent has it.
	Agents []schema.Subagent
	// MaxDepth: 1 lets the session delegate and no subagent further; 0
	// offers no Task tool.
	MaxDepth int
	// MaxParallel bounds the subagents running at once (0: 4).
	MaxParallel int
	// Models maps an agent's model alias to a model name; unmapped
	// aliases (sonnet, opus, haiku, claude-*) and inherit use the
	// session's model.
	Models map[string]string

	once sync.Once
	sem  chan struct{}
	runs atomic.Int64 // numbers agent ids
}

// DefaultMaxParallel bounds the subagents running at once when the
// profile does not.
const DefaultMaxParallel = 4

func (sa *Subagents) slots() chan struct{} {
	sa.once.Do(func() {
		n := sa.MaxParallel
		if n <= 0 {
			n = DefaultMaxParallel
		}
		sa.sem = make(chan struct{}, n)
	})
	return sa.sem
}

// Find returns the agent the model named: by its full name, or by the
// bare name of one extension agent.
func (sa *Subagents) Find(name string) (schema.Subagent, error) {
	var suffix []schema.Subagent
	for _, a := range sa.Agents {
		if a.Name == name {
			return a, nil
		}
		if strings.HasSuffix(a.Name, ":"+name) {
			suffix = append(suffix, a)
		}
	}
	if len(suffix) == 1 {
		return suffix[0], nil
	}
	return schema.Subagent{}, fmt.Errorf("there is no agent %q; subagent_type is one of: %s", name, strings.Join(sa.names(), ", "))
}

func (sa *Subagents) names() []string {
	out := make([]string, len(sa.Agents))
	for i, a := range sa.Agents {
		out[i] = a.Name
	}
	sort.Strings(out)
	return out
}

// model is the model an agent runs on: its alias mapped, else the session's
// for inherit and Claude's aliases, else the name it gives.
func (sa *Subagents) model(m, session string) string {
	if to, ok := sa.Models[m]; ok && to != "" {
		return to
	}
	switch {
	case m == "" || m == "inherit" || m == "sonnet" || m == "opus" || m == "haiku" || strings.HasPrefix(m, "claude-"):
		return session
	}
	return m
}

// lifecycleEvent: hook events of a whole session or prompt, which a
// subagent does not raise (subagent_start and subagent_stop stand for
// them); its model and tool events run the parent's hooks as usual.
func lifecycleEvent(ev hooks.Event) bool {
	switch ev {
	case hooks.SessionStart, hooks.SessionEnd, hooks.BeforeAgent, hooks.AfterAgent:
		return true
	}
	return false
}

// delegates reports whether this session offers the Task tool.
func (s *Session) delegates() bool {
	sa := s.cfg.Subagents
	return sa != nil && len(sa.Agents) > 0 && s.cfg.depth < sa.MaxDepth
}

// subsetTools are the tools an agent's definition allows of its parent's
// (names or globs such as "github:*"; none listed: all of them).
type subsetTools struct {
	base  Tools
	allow []string
}

func (t subsetTools) allowed(name string) bool {
	if len(t.allow) == 0 {
		return true
	}
	for _, p := range t.allow {
		if p == name {
			return true
		}
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}

func (t subsetTools) List() []tool.Tool {
	if t.base == nil {
		return nil
	}
	var out []tool.Tool
	for _, x := range t.base.List() {
		if t.allowed(x.Name()) {
			out = append(out, x)
		}
	}
	return out
}

func (t subsetTools) Get(name string) (tool.Tool, bool) {
	if t.base == nil || !t.allowed(name) {
		return nil, false
	}
	return t.base.Get(name)
}

// subsetAllows reports whether a subagent's tools name the tool (a
// definition without tools allows every tool).
func subsetAllows(t Tools, name string) bool {
	st, ok := t.(subsetTools)
	return !ok || st.allowed(name)
}

// withTask adds the Task tool to a session's tools.
type withTask struct {
	base Tools
	task tool.Tool
}

func (t withTask) List() []tool.Tool {
	var out []tool.Tool
	if t.base != nil {
		out = t.base.List()
	}
	return append(out, t.task)
}

func (t withTask) Get(name string) (tool.Tool, bool) {
	if name == TaskTool {
		return t.task, true
	}
	if t.base == nil {
		return nil, false
	}
	return t.base.Get(name)
}

// child builds the session a subagent runs in.
func (s *Session) child(a schema.Subagent, agentPath string, out func(tool.Chunk)) (*Session, error) {
	s.mu.Lock()
	provider, model, window := s.cfg.Provider, s.cfg.Model, s.window
	pol, always, alwaysPol := s.pol, append([]schema.PolicyRule(nil), s.always...), s.alwaysPol
	s.mu.Unlock()
	m := s.cfg.Subagents.model(a.Model, model)
	if m != model {
		window = 0
	}
	cfg := Config{
		Provider: provider, Model: m, Tools: subsetTools{base: s.baseTools, allow: a.Tools},
		Hooks: s.cfg.Hooks, Policy: pol, Bus: s.cfg.Bus, SessionID: s.cfg.SessionID, Cwd: s.cfg.Cwd,
		System: a.Prompt, MaxTurns: s.cfg.MaxTurns, ContextWindow: window, CompactAt: s.cfg.CompactAt,
		Options: s.cfg.Options, Now: s.cfg.Now, ReadOnly: s.cfg.ReadOnly, OnAlwaysAllow: s.cfg.OnAlwaysAllow,
		Subagents: s.cfg.Subagents, depth: s.cfg.depth + 1,
		OnEvent: activity(agentPath, out),
	}
	c, err := New(cfg)
	if err != nil {
		return nil, err
	}
	c.always, c.alwaysPol = always, alwaysPol // the parent's "always" answers hold for its subagents
	return c, nil
}

// activity turns a subagent's events into progress lines of the Task call
// that runs it: what it calls, what the gate refused, what failed.
func activity(agentPath string, out func(tool.Chunk)) func(Event) {
	return func(e Event) {
		if e.Type == EvToolProgress && e.Tool != nil && e.Tool.Chunk != nil && e.Tool.Chunk.Agent != "" {
			ch := *e.Tool.Chunk // a nested subagent's own line
			ch.Agent = agentPath + "/" + ch.Agent
			out(ch)
			return
		}
		line := activityLine(e)
		if line == "" {
			return
		}
		out(tool.Chunk{Text: agentPath + ": " + line + "\n", Message: agentPath + ": " + line, Agent: agentPath})
	}
}

func activityLine(e Event) string {
	t := e.Tool
	switch {
	case e.Type == EvToolCall && t != nil:
		return "calls " + t.Name + " " + shorten(string(t.Args), 120)
	case e.Type == EvToolConfirm && t != nil:
		return "asks to confirm " + t.Name
	case e.Type == EvBlocked && e.Block != nil:
		what := e.Block.Event
		if t != nil {
			what = t.Name
		}
		return "refused " + what + ": " + shorten(e.Block.Reason, 200)
	case e.Type == EvToolResult && t != nil && t.Result != nil:
		if t.Result.Error != nil {
			return t.Name + " failed: " + shorten(t.Result.Error.Message, 200)
		}
		return t.Name + " done"
	case e.Type == EvHookFailure || e.Type == EvNotice:
		return shorten(e.Text, 200)
	case e.Type == EvError:
		return "error: " + shorten(e.Error, 200)
	}
	return ""
}

func shorten(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
