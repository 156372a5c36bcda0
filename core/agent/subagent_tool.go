package agent

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strings"

	"github.com/ollm/ollm/core/hooks"
	"github.com/ollm/ollm/core/tool"
	"github.com/ollm/ollm/schema"
)

// TaskTool is the name of the tool that delegates to a subagent, Claude
// Code's name, so that plugin commands saying "use the Task tool" and
// hooks matching "Task" work unchanged.
const TaskTool = "Task"

//go:embed subagent_tool.md
var taskMD string

type taskParams struct {
	SubagentType string `json:"subagent_type"`
	Description  string `json:"description"`
	Prompt       string `json:"prompt"`
}

// taskTool builds the Task tool of s: its description lists the agents.
// Its kind is read: delegating changes nothing by itself, and every call
// the subagent makes passes the gate under its own kind.
func taskTool(s *Session) tool.Tool {
	var b strings.Builder
	b.WriteString(taskMD)
	for _, a := range s.cfg.Subagents.Agents {
		fmt.Fprintf(&b, "- %s: %s\n", a.Name, shorten(a.Description, 600))
	}
	str := func(d string) *tool.Schema { return &tool.Schema{Type: "string", Description: d} }
	return &tool.Func[taskParams]{
		Spec: tool.Spec{ToolName: TaskTool, Desc: b.String(), ToolKind: tool.KindRead, Params: &tool.Schema{
			Type: "object", Required: []string{"subagent_type", "description", "prompt"},
			Properties: map[string]*tool.Schema{
				"subagent_type": str("the agent to delegate to, one of those listed"),
				"description":   str("the task in 3 to 5 words, for the user"),
				"prompt":        str("the whole task for the agent: what to do, where, and what to answer"),
			}}},
		New: func(p taskParams) (*tool.Call, error) {
			a, err := s.cfg.Subagents.Find(p.SubagentType)
			if err != nil {
				return nil, &tool.Error{Kind: tool.ErrInvalidParams, Message: err.Error()}
			}
			return &tool.Call{Desc: a.Name + ": " + p.Description, Run: func(ctx context.Context, out func(tool.Chunk)) (tool.Result, error) {
				return s.delegate(ctx, a, p, out), nil
			}}, nil
		},
	}
}

// delegate runs one subagent: subagent_start (a block refuses), the
// child session on the prompt, subagent_stop (a block withholds the
// answer); its final text is the result.
func (s *Session) delegate(ctx context.Context, a schema.Subagent, p taskParams, out func(tool.Chunk)) tool.Result {
	sa := s.cfg.Subagents
	if !s.delegates() {
		return tool.Fail(tool.ErrPolicy, "a subagent cannot delegate further (agent.subagents.maxDepth is %d)", sa.MaxDepth)
	}
	slots := sa.slots()
	select {
	case slots <- struct{}{}:
		defer func() { <-slots }()
	case <-ctx.Done():
		return tool.CancelledResult(ctx.Err())
	}
	id := fmt.Sprintf("%s-%d", a.Name, sa.runs.Add(1))
	c, err := s.child(a, a.Name, out)
	if err != nil {
		return tool.Fail(tool.ErrExec, "starting agent %s: %v", a.Name, err)
	}
	hout, blocked := s.hook(ctx, hooks.SubagentStart, func() map[string]any {
		return map[string]any{"agent_name": a.Name, "agent_id": id, "description": p.Description, "prompt": p.Prompt,
			"model": c.Model(), "depth": s.cfg.depth + 1}
	})
	if blocked != nil {
		return tool.Fail(tool.ErrPolicy, "%s", blockedText(blocked.Block))
	}
	c.addSystem(hout, hooks.SubagentStart) // a start hook's context is the subagent's
	out(tool.Chunk{Text: a.Name + ": started\n", Message: a.Name + ": started", Agent: a.Name})
	rep, runErr := c.Run(ctx, p.Prompt)
	_ = c.Close(context.WithoutCancel(ctx))
	res := taskResult(a.Name, rep, runErr, ctx)
	errText := ""
	if res.Error != nil {
		errText = res.Error.Message
	}
	_, blocked = s.hook(ctx, hooks.SubagentStop, func() map[string]any {
		return map[string]any{"agent_name": a.Name, "agent_id": id, "result": rep.Text, "error": errText, "turns": rep.Turns}
	})
	if blocked != nil {
		return tool.Fail(tool.ErrPolicy, "the answer of agent %s was withheld: %s", a.Name, blockedText(blocked.Block))
	}
	return res
}

// taskResult is the subagent's answer as the parent's model reads it.
func taskResult(name string, rep Reply, err error, ctx context.Context) tool.Result {
	switch {
	case err != nil && ctx.Err() != nil:
		return tool.CancelledResult(ctx.Err())
	case err != nil:
		var b *BlockedError
		kind := tool.ErrExec
		if errors.As(err, &b) {
			kind = tool.ErrPolicy
		}
		r := tool.Fail(kind, "agent %s stopped: %v", name, err)
		if rep.Text != "" {
			r.ForModel = fmt.Sprintf("Error (%s): agent %s stopped: %v\nIts last answer:\n%s", kind, name, err, rep.Text)
		}
		return r
	case strings.TrimSpace(rep.Text) == "":
		return tool.Result{ForModel: "Agent " + name + " finished without an answer.", Display: name + ": no answer"}
	}
	return tool.Result{ForModel: rep.Text, Display: rep.Text}
}
