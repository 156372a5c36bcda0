package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/ollm/ollm/core/tool"
)

// Tasks (MCP 2025-11-25, SEP-1686): a tool whose execution.taskSupport is
// "required" cannot be called directly. The call carries a task
// parameter and the server answers at once with a task; the client polls
// tasks/get (at the server's pollInterval), reports each status message as
// progress, and fetches the result with tasks/result once the task is
// done or needs input (tasks/result then delivers the server's requests,
// elicitation for instance, and waits for the end). A call that is
// cancelled or times out cancels the task with tasks/cancel.

// Polling bounds: the default interval when the server suggests none,
// and the least ollm waits between two polls whatever it suggests.
const (
	taskPollDefault = time.Second
	taskPollMin     = 50 * time.Millisecond
)

// isTask reports whether the server's tool must be called as a task.
func (m *Manager) isTask(s *server, name string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, d := range s.defs {
		if d.key.Tool == name {
			return d.task
		}
	}
	return false
}

// callTask calls a task-augmented tool and waits for its result.
func (c *conn) callTask(ctx context.Context, name string, args json.RawMessage, out func(tool.Chunk)) (*mcp.CallToolResult, error) {
	token := fmt.Sprintf("ollm-task-%d", c.seq.Add(1))
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	if len(args) > 0 && string(args) != "null" {
		req.Params.Arguments = args
	}
	req.Params.Meta = &mcp.Meta{ProgressToken: token}
	req.Params.Task = &mcp.TaskParams{}
	if out != nil {
		c.progressMu.Lock()
		c.progress[token] = out
		c.progressMu.Unlock()
		defer func() {
			c.progressMu.Lock()
			delete(c.progress, token)
			c.progressMu.Unlock()
		}()
	}
	// mcp-go reads the answer as a tool result, which a CreateTaskResult
	// is not ("content is missing"); the wire kept it as it came.
	res, err := c.client.CallTool(ctx, req)
	var created struct {
		Task *mcp.Task `json:"task"`
	}
	if raw := c.wire.takeTaskResult(token); raw != nil {
		_ = json.Unmarshal(raw, &created)
	}
	if created.Task == nil || created.Task.TaskId == "" {
		return res, err // the server answered the call directly, or failed
	}
	c.log.Info("task created", "tool", name, "task", created.Task.TaskId, "status", created.Task.Status)
	return c.awaitTask(ctx, *created.Task, out)
}

// awaitTask polls the task until it ends or needs input, then fetches
// its result; when ctx ends first, the task is cancelled.
func (c *conn) awaitTask(ctx context.Context, t mcp.Task, out func(tool.Chunk)) (*mcp.CallToolResult, error) {
	last := ""
	report := func(t mcp.Task) {
		msg := string(t.Status)
		if t.StatusMessage != "" {
			msg += ": " + t.StatusMessage
		}
		if out != nil && msg != last {
			out(tool.Chunk{Message: msg})
		}
		last = msg
	}
	report(t)
	for !t.Status.IsTerminal() && t.Status != mcp.TaskStatusInputRequired {
		wait := taskPollDefault
		if t.PollInterval != nil && *t.PollInterval > 0 {
			wait = max(time.Duration(*t.PollInterval)*time.Millisecond, taskPollMin)
		}
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			c.cancelTask(t.TaskId, ctx.Err())
			return nil, ctx.Err()
		case <-timer.C:
		}
		got, err := c.client.GetTask(ctx, mcp.GetTaskRequest{Params: mcp.GetTaskParams{TaskId: t.TaskId}})
		if err != nil {
			if ctx.Err() != nil {
				c.cancelTask(t.TaskId, ctx.Err())
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("tasks/get %s: %w", t.TaskId, err)
		}
		t = got.Task
		report(t)
	}
	if t.Status == mcp.TaskStatusCancelled {
		return nil, fmt.Errorf("the server cancelled task %s%s", t.TaskId, colon(t.StatusMessage))
	}
	res, err := c.client.TaskResult(ctx, mcp.TaskResultRequest{Params: mcp.TaskResultParams{TaskId: t.TaskId}})
	if err != nil {
		if ctx.Err() != nil {
			c.cancelTask(t.TaskId, ctx.Err())
			return nil, ctx.Err()
		}
		if t.Status == mcp.TaskStatusFailed {
			return nil, fmt.Errorf("task %s failed%s", t.TaskId, colon(t.StatusMessage))
		}
		return nil, fmt.Errorf("tasks/result %s: %w", t.TaskId, err)
	}
	r := &mcp.CallToolResult{Content: res.Content, StructuredContent: res.StructuredContent, IsError: res.IsError || t.Status == mcp.TaskStatusFailed}
	if r.IsError && len(r.Content) == 0 {
		r.Content = []mcp.Content{mcp.NewTextContent(fmt.Sprintf("task %s failed%s", t.TaskId, colon(t.StatusMessage)))}
	}
	return r, nil
}

// cancelTask asks the server to cancel a task whose call was abandoned;
// best effort, on a context of its own.
func (c *conn) cancelTask(id string, why error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(c.ctx), 5*time.Second)
	defer cancel()
	_, err := c.client.CancelTask(ctx, mcp.CancelTaskRequest{Params: mcp.CancelTaskParams{TaskId: id}})
	if err != nil && !errors.Is(err, context.Canceled) {
		c.log.Warn("tasks/cancel failed", "task", id, "err", err)
		return
	}
	c.log.Info("task cancelled", "task", id, "why", why)
}
