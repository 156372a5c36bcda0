package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ollm/ollm/core/bus"
	"github.com/ollm/ollm/core/hooks"
	"github.com/ollm/ollm/core/llm"
	"github.com/ollm/ollm/core/policy"
	"github.com/ollm/ollm/core/skills"
	"github.com/ollm/ollm/core/tool"
	"github.com/ollm/ollm/internal/lazyre"
	"github.com/ollm/ollm/schema"
)

// ScopeSession labels the allow rules an "always" answer adds for the rest
// of the session.
const ScopeSession schema.Scope = "session"

// pending is one tool call on its way through the gate.
type pending struct {
	call     llm.ToolCall
	t        tool.Tool
	inv      tool.Invocation
	args     json.RawMessage // final arguments
	readOnly bool
	refused  bool // res is the refusal; nothing runs
	res      tool.Result
	// before says which paths named in the arguments existed before the
	// call ran (on_file_change's created/modified); dur is how long it ran.
	before map[string]bool
	dur    time.Duration
}

// runCalls sends every call of one reply through the gate in order, runs
// the admitted ones (consecutive read-only calls in parallel, the others one
// at a time in order), then folds after_tool and on_file_change and appends
// the results in the order the model asked.
func (s *Session) runCalls(ctx context.Context, n int, calls []llm.ToolCall, rep *Reply) error {
	ps := make([]*pending, len(calls))
	for i, c := range calls {
		ps[i] = s.gate(ctx, n, c)
	}
	for i := 0; i < len(ps); {
		p := ps[i]
		if p.refused {
			i++
			continue
		}
		if !p.readOnly {
			s.execute(ctx, n, p)
			i++
			continue
		}
		j := i
		var wg sync.WaitGroup
		for ; j < len(ps) && (ps[j].refused || ps[j].readOnly); j++ {
			if ps[j].refused {
				continue
			}
			wg.Add(1)
			go func(p *pending) { defer wg.Done(); s.execute(ctx, n, p) }(ps[j])
		}
		wg.Wait()
		i = j
	}
	results := make([]llm.Message, len(ps))
	for i, p := range ps {
		if !p.refused {
			s.toolContext(p)
			s.afterTool(ctx, n, p)
		}
		content := p.res.ForModel
		if content == "" && p.res.Error != nil {
			content = "Error (" + string(p.res.Error.Kind) + "): " + p.res.Error.Message
		}
		results[i] = llm.ToolResult(p.call, content)
		results[i].Images = p.res.Images
		rec := CallRecord{ID: p.call.ID, Name: p.call.Name, Args: p.args, Result: content}
		if p.res.Error != nil {
			rec.Error = p.res.Error.Message
		}
		rep.ToolCalls = append(rep.ToolCalls, rec)
		if a, ok := p.res.Data.(skills.Activation); ok && p.res.Error == nil {
			s.skillLoaded(a.Skill())
		}
		res := p.res
		s.publish(Event{Type: EvToolResult, Turn: n, Tool: &ToolEvent{ID: p.call.ID, Name: p.call.Name, Args: p.args, Result: &res, Files: res.Files}})
	}
	if err := s.append(results...); err != nil {
		return err
	}
	if err := s.flushSystem(); err != nil {
		return err
	}
	return ctx.Err()
}

// refuse ends p with a result the model reads.
func (p *pending) refuse(kind tool.ErrorKind, format string, args ...any) *pending {
	p.refused, p.res = true, tool.Fail(kind, format, args...)
	return p
}

// gate is the one gate: before_tool (rewrites fold in order), the policy on
// the final namespaced name and arguments, a confirmation over the bus
// showing the final arguments, and on_git_commit before a shell call that
// commits.
func (s *Session) gate(ctx context.Context, n int, c llm.ToolCall) *pending {
	p := &pending{call: c, args: c.Arguments}
	if len(p.args) == 0 {
		p.args = json.RawMessage("{}")
	}
	s.publish(Event{Type: EvToolCall, Turn: n, Tool: &ToolEvent{ID: c.ID, Name: c.Name, Args: p.args}})
	if ctx.Err() != nil {
		p.refused, p.res = true, tool.CancelledResult(ctx.Err())
		return p
	}
	var t tool.Tool
	ok := false
	if s.cfg.Tools != nil {
		t, ok = s.cfg.Tools.Get(c.Name)
	}
	if !ok {
		return p.refuse(tool.ErrNotFound, "there is no tool %q; call one of the tools offered", c.Name)
	}
	p.t, p.readOnly = t, s.cfg.ReadOnly(t)

	out, blocked := s.hook(ctx, hooks.BeforeTool, func() map[string]any {
		return withMCP(map[string]any{"tool_name": c.Name, "args": argsValue(p.args), "tool_call_id": c.ID}, p.t)
	})
	s.addSystemAfter(out, hooks.BeforeTool, true)
	if blocked != nil {
		return p.refuse(tool.ErrPolicy, "%s", blockedText(blocked.Block))
	}
	if v, ok := out.Data["args"]; ok {
		if raw, err := json.Marshal(v); err == nil {
			p.args = raw
		}
	}
	inv, err := t.Build(p.args)
	if err != nil {
		p.refused, p.res = true, tool.FromError(err, tool.ErrInvalidParams)
		return p
	}
	p.inv, p.args = inv, inv.Params()

	pol := s.Policy()
	facts := policy.FactsOf(t)
	if r := s.turnRefusal(n, p, facts); r != nil {
		return r
	}
	d, err := pol.DecideJSON(facts, p.args)
	if err != nil {
		return p.refuse(tool.ErrInvalidParams, "%v", err)
	}
	s.publish(Event{Type: EvToolDecision, Turn: n, Tool: &ToolEvent{ID: c.ID, Name: c.Name, Args: p.args, ReadOnly: p.readOnly, Decision: &d}})
	if why := trustOf(p.inv); why != "" && d.Action != policy.Deny {
		// A write to a file that decides what runs: a person confirms this
		// very call, whatever the mode, the rules, an earlier "always"
		// answer or a hook say (docs/security.md, "Trust files").
		d.Action, d.Rule = policy.Ask, nil // no rule asks: ollm does, whatever the rules allow
		d.Reason = joinNonEmpty("; ", "it writes a file that decides what runs; only a person can allow that, one call at a time, in every mode", d.Reason)
		if r := s.confirm(ctx, n, p, facts, d); r != nil {
			return r
		}
		return s.gitCommitHook(ctx, c, p)
	}
	switch d.Action {
	case policy.Deny:
		by := ""
		if d.Rule != nil {
			by = d.Rule.Label()
		}
		s.publish(Event{Type: EvBlocked, Turn: n, Block: &Block{Event: "policy", By: by, Reason: d.Reason},
			Tool: &ToolEvent{ID: c.ID, Name: c.Name, Args: p.args}})
		return p.refuse(tool.ErrPolicy, "the policy denies this call: %s", joinNonEmpty("; ", d.Reason, d.Message))
	case policy.Ask:
		if s.alwaysAllows(facts, p.args) {
			d.Action, d.Reason = policy.Allow, d.Reason+"; allowed always earlier in this session"
			break
		}
		if hookDecision(out) == "allow" {
			d.Action, d.Reason = policy.Allow, d.Reason+"; allowed by a before_tool hook (permissionDecision allow)"
			break
		}
		if r := s.confirm(ctx, n, p, facts, d); r != nil {
			return r
		}
	case policy.Allow:
		if hookDecision(out) == "ask" {
			d.Reason += "; a before_tool hook asks to confirm (permissionDecision ask)"
			if r := s.confirm(ctx, n, p, facts, d); r != nil {
				return r
			}
		}
	}
	return s.gitCommitHook(ctx, c, p)
}

// gitCommitHook runs on_git_commit before a shell call that commits.
func (s *Session) gitCommitHook(ctx context.Context, c llm.ToolCall, p *pending) *pending {
	if cmd, ok := gitCommit(c.Name, p.args); ok {
		out, blocked := s.hook(ctx, hooks.OnGitCommit, func() map[string]any {
			return map[string]any{"files": commitFiles(s.cfg.Cwd, cmd), "message": commitMessage(cmd), "branch": gitBranch(s.cfg.Cwd)}
		})
		s.addSystemAfter(out, hooks.OnGitCommit, true)
		if blocked != nil {
			return p.refuse(tool.ErrPolicy, "%s", blockedText(blocked.Block))
		}
	}
	return p
}

// trustOf is what the trust file inv writes decides, or "" when it
// writes none (tool.Confirmation.Trust).
func trustOf(inv tool.Invocation) string {
	if c := inv.Confirmation(); c != nil {
		return c.Trust
	}
	return ""
}

// confirm asks over the bus; it returns p refused, or nil when the call may
// run.
func (s *Session) confirm(ctx context.Context, n int, p *pending, facts policy.Facts, d policy.Decision) *pending {
	det := policy.Confirm(facts, p.inv, d)
	if det.Trust == "" {
		s.alwaysText(&det, d) // a trust file's dialog offers no "always"
	}
	out, blocked := s.hook(ctx, hooks.OnApprovalRequest, func() map[string]any {
		return withMCP(map[string]any{"operation": "tool_call", "details": det, "requester": p.call.Name,
			"tool_name": p.call.Name, "args": argsValue(p.args)}, p.t)
	})
	s.addSystemAfter(out, hooks.OnApprovalRequest, true)
	if blocked != nil {
		return p.refuse(tool.ErrPolicy, "%s", blockedText(blocked.Block))
	}
	if out.Data["approved"] == true && det.Trust == "" {
		return s.hookApproved(n, p, facts, out)
	}
	s.publish(Event{Type: EvToolConfirm, Turn: n, Tool: &ToolEvent{ID: p.call.ID, Name: p.call.Name, Args: p.args, Confirm: &det, Decision: &d}})
	r, err := s.cfg.Bus.Ask(ctx, det)
	if err != nil {
		return p.refuse(tool.ErrPolicy, "the call was not confirmed: %v", err)
	}
	s.publish(Event{Type: EvToolDecision, Turn: n, Tool: &ToolEvent{ID: p.call.ID, Name: p.call.Name, Args: p.args, Decision: &d, Answer: string(r.Answer)}})
	if !r.Answer.Allowed() {
		by := ""
		if d.Rule != nil {
			by = d.Rule.Label()
		}
		reason := r.Feedback
		if reason == "" {
			reason = "you answered no" // never a bare "blocked: shell:"
		}
		s.publish(Event{Type: EvBlocked, Turn: n, Block: &Block{Event: "confirmation", By: by, Reason: reason},
			Tool: &ToolEvent{ID: p.call.ID, Name: p.call.Name, Args: p.args}})
		if r.Headless {
			return p.refuse(tool.ErrPolicy, "%s", r.Feedback)
		}
		return p.refuse(tool.ErrPolicy, "the user denied this call%s", prefixed(": ", r.Feedback))
	}
	if (r.Answer == bus.AllowAlways || r.Answer == bus.AllowAlwaysNarrow) && det.Trust == "" {
		s.mu.Lock()
		rules, _ := s.pol.AlwaysAllow(d)
		if narrow, ok := s.pol.AlwaysAllowNarrow(d); ok && r.Answer == bus.AllowAlwaysNarrow {
			rules = narrow
		}
		if len(rules) > 0 {
			s.always = append(s.always, rules...)
			// Allow rules cannot beat the profile's ask rules (an ask is
			// more severe), so the answers form a policy of their own that
			// turns this session's asks into allows; denies still hold.
			s.alwaysPol, _ = policy.Compile(schema.Policy{DefaultAction: string(policy.Ask), Rules: s.always},
				policy.Options{Layers: slices.Repeat([]schema.Scope{ScopeSession}, len(s.always))})
		}
		s.mu.Unlock()
		if len(rules) > 0 && s.cfg.OnAlwaysAllow != nil {
			s.cfg.OnAlwaysAllow(rules)
		}
	}
	return nil
}

// execute runs an admitted call.
func (s *Session) execute(ctx context.Context, n int, p *pending) {
	if ctx.Err() != nil {
		p.res = tool.CancelledResult(ctx.Err())
		return
	}
	if s.has(hooks.OnFileChange) && !p.readOnly {
		p.before = existing(s.cfg.Cwd, p.args)
	}
	began := time.Now()
	defer func() { p.dur = time.Since(began) }()
	res, err := p.inv.Execute(ctx, func(ch tool.Chunk) {
		s.publish(Event{Type: EvToolProgress, Turn: n, Tool: &ToolEvent{ID: p.call.ID, Name: p.call.Name, Chunk: &ch}})
	})
	if err != nil {
		if ctx.Err() != nil {
			res = tool.CancelledResult(ctx.Err())
		} else {
			res = tool.FromError(err, tool.ErrExec)
			s.failed(ctx, "tool "+p.call.Name, err)
		}
	} else if res.Error != nil && res.Error.Kind != tool.ErrCancelled && ctx.Err() == nil {
		// A call that ran and failed (a command's non-zero exit, a file
		// not found): on_error hears of it as of any failure; the card
		// already shows it, so nothing more is published.
		e := res.Error
		s.hook(context.WithoutCancel(ctx), hooks.OnError, func() map[string]any {
			return map[string]any{"error": errorData(e), "operation": "tool " + p.call.Name}
		})
	}
	p.res = res
}

// afterTool folds after_tool (a result rewrite, or a block that withholds
// the result) and emits on_file_change for every file the call wrote.
func (s *Session) afterTool(ctx context.Context, n int, p *pending) {
	out, blocked := s.hook(ctx, hooks.AfterTool, func() map[string]any {
		return afterToolData(p)
	})
	s.addSystemAfter(out, hooks.AfterTool, true)
	if blocked != nil {
		p.res.ForModel = "The result of this call was withheld: " + blockedText(blocked.Block)
	} else if r, ok := out.Data["result"].(string); ok {
		p.res.ForModel = r
	}
	for _, f := range p.res.Files {
		s.publish(Event{Type: EvFileChange, Turn: n, Tool: &ToolEvent{ID: p.call.ID, Name: p.call.Name, Files: []string{f}}})
		out, blocked := s.hook(ctx, hooks.OnFileChange, func() map[string]any {
			return map[string]any{"file": f, "changes": []any{fileChange(f, p.before, s.cfg.Now())},
				"tool_name": p.call.Name, "kind": string(p.t.Kind()), "display": p.res.Display}
		})
		s.addSystemAfter(out, hooks.OnFileChange, true)
		if blocked != nil {
			p.res.ForModel += "\n[on_file_change: " + blockedText(blocked.Block) + "]"
		}
	}
}

// argsValue is the arguments as hooks see them: a JSON object.
func argsValue(raw json.RawMessage) any {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	return v
}

func blockedText(b Block) string {
	by := ""
	if b.By != "" {
		by = " " + b.By
	}
	return fmt.Sprintf("blocked by %s hook%s%s", b.Event, by, prefixed(": ", b.Reason))
}

func prefixed(p, s string) string {
	if s == "" {
		return ""
	}
	return p + s
}

var gitCommitRE = lazyre.New(`(^|[;&|(\s])git(\s+-[^\s]+(\s+[^-\s][^\s]*)?)*\s+commit\b`)

// gitCommit reports whether a shell-like call runs `git commit`.
func gitCommit(name string, args json.RawMessage) (string, bool) {
	key, ok := policy.DefaultShellTools[name]
	if !ok {
		return "", false
	}
	var m map[string]any
	if json.Unmarshal(args, &m) != nil {
		return "", false
	}
	cmd, _ := m[key].(string)
	return cmd, gitCommitRE.MatchString(cmd)
}

var commitMsgRE = lazyre.New(`(?:-m|--message)[= ]?\s*(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+))`)

// commitMessage is the -m message of a commit command line, if literal.
func commitMessage(cmd string) string {
	m := commitMsgRE.FindStringSubmatch(cmd)
	if m == nil {
		return ""
	}
	return m[1] + m[2] + m[3]
}

// gitBranch reads the current branch from .git/HEAD above dir.
func gitBranch(dir string) string {
	for d := dir; d != ""; {
		if b, err := os.ReadFile(filepath.Join(d, ".git", "HEAD")); err == nil {
			h := strings.TrimSpace(string(b))
			return strings.TrimPrefix(h, "ref: refs/heads/")
		}
		up := filepath.Dir(d)
		if up == d {
			break
		}
		d = up
	}
	return ""
}

// alwaysAllows reports whether an "always" answer of this session covers
// the call.
func (s *Session) alwaysAllows(f policy.Facts, args json.RawMessage) bool {
	s.mu.Lock()
	ap := s.alwaysPol
	s.mu.Unlock()
	if ap == nil {
		return false
	}
	d, err := ap.DecideJSON(f, args)
	return err == nil && d.Action == policy.Allow
}
