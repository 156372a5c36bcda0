package agent

import (
	"encoding/json"

	"github.com/ollm/ollm/core/hooks"
	"github.com/ollm/ollm/core/policy"
	"github.com/ollm/ollm/core/tool"
)

// hookApproved admits a call an on_approval_request hook answered for
// the user (data.approved: Claude Code's PermissionRequest "allow"), for
// this call only. Arguments the hook rewrote (data.args, Claude's
// updatedInput) are built again and the policy decides on them again: a
// deny still refuses. Only an approved hook runs here (a workspace's
// after the workspace is approved), and only for a call the policy
// asked about. It returns p refused, or nil when the call may run.
func (s *Session) hookApproved(n int, p *pending, facts policy.Facts, out hooks.Outcome) *pending {
	if v, ok := out.Data["args"]; ok {
		raw, err := json.Marshal(v)
		if err != nil {
			return p.refuse(tool.ErrInvalidParams, "the arguments an on_approval_request hook gave are not JSON: %v", err)
		}
		inv, err := p.t.Build(raw)
		if err != nil {
			p.refused, p.res = true, tool.FromError(err, tool.ErrInvalidParams)
			return p
		}
		p.inv, p.args = inv, inv.Params()
		if why := trustOf(inv); why != "" {
			return p.refuse(tool.ErrPolicy, "an on_approval_request hook approved this call with other arguments that write a file that decides what runs (%s); only a person can allow that", why)
		}
	}
	d, err := s.Policy().DecideJSON(facts, p.args)
	if err != nil {
		return p.refuse(tool.ErrInvalidParams, "%v", err)
	}
	if d.Action == policy.Deny {
		by := ""
		if d.Rule != nil {
			by = d.Rule.Label()
		}
		s.publish(Event{Type: EvBlocked, Turn: n, Block: &Block{Event: "policy", By: by, Reason: d.Reason},
			Tool: &ToolEvent{ID: p.call.ID, Name: p.call.Name, Args: p.args}})
		return p.refuse(tool.ErrPolicy, "the policy denies this call: %s", joinNonEmpty("; ", d.Reason, d.Message))
	}
	d.Action, d.Reason = policy.Allow, "allowed by an on_approval_request hook"
	s.publish(Event{Type: EvToolDecision, Turn: n, Tool: &ToolEvent{ID: p.call.ID, Name: p.call.Name, Args: p.args, Decision: &d}})
	return nil
}

// hookDecision is what before_tool hooks said about asking, as Claude
// Code's PreToolUse hookSpecificOutput.permissionDecision: "allow" skips
// the question the policy would ask (its deny still refuses), "ask" asks
// although the policy allows; "" leaves it to the policy.
func hookDecision(out hooks.Outcome) string {
	d, _ := out.Extra["permissionDecision"].(string)
	return d
}
