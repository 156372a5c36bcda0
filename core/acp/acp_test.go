package acp

import (
	"context"
	"errors"
	"fmt"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/ollm/ollm/core/agent"
	"github.com/ollm/ollm/core/tool"
)

// A prompt as the model reads it: text as is, a resource link as an
// @mention, an embedded file with its path.
func TestPromptText(t *testing.T) {
	got := promptText([]sdk.ContentBlock{
		sdk.TextBlock("explain"),
		sdk.ResourceLinkBlock("main.go", "file:///ws/main.go"),
		sdk.TextBlock("and"),
		sdk.ResourceBlock(sdk.EmbeddedResourceResource{TextResourceContents: &sdk.TextResourceContents{Uri: "file:///ws/a.txt", Text: "one"}}),
	})
	want := "explain @/ws/main.go and\n<file path=\"/ws/a.txt\">\none\n</file>"
	if got != want {
		t.Fatalf("got %q\nwant %q", got, want)
	}
}

// write_todos's list (its Result.Data) as the plan.
func TestPlanEntries(t *testing.T) {
	data := []map[string]any{{"id": "1", "text": "read", "done": true}, {"id": "2", "text": "write", "done": false}}
	got, ok := planEntries(data)
	if !ok || len(got) != 2 || got[0].Content != "read" || got[0].Status != sdk.PlanEntryStatusCompleted ||
		got[1].Status != sdk.PlanEntryStatusPending || got[1].Priority != sdk.PlanEntryPriorityMedium {
		t.Fatalf("%+v %v", got, ok)
	}
	if got, ok := planEntries(nil); !ok || len(got) != 0 {
		t.Fatalf("an empty list: %+v %v", got, ok)
	}
}

// The loop's outcomes as stop reasons; other errors reach the editor
// with ollm's message.
func TestStopReason(t *testing.T) {
	for _, c := range []struct {
		err  error
		want sdk.StopReason
	}{
		{nil, sdk.StopReasonEndTurn},
		{fmt.Errorf("%w: %v", agent.ErrCancelled, context.Canceled), sdk.StopReasonCancelled},
		{&agent.TurnLimitError{Max: 3}, sdk.StopReasonMaxTurnRequests},
		{&agent.BlockedError{Block: agent.Block{Event: "before_agent", By: "guard"}}, sdk.StopReasonRefusal},
	} {
		if got, err := stopReason(c.err); err != nil || got != c.want {
			t.Errorf("%v: %s %v, want %s", c.err, got, err, c.want)
		}
	}
	_, err := stopReason(errors.New("ollama is not running at 127.0.0.1:11434"))
	var re *sdk.RequestError
	if !errors.As(err, &re) || re.Message != "ollama is not running at 127.0.0.1:11434" {
		t.Fatalf("%#v", err)
	}
}

func TestToolKinds(t *testing.T) {
	for k, want := range map[tool.Kind]sdk.ToolKind{
		tool.KindRead: sdk.ToolKindRead, tool.KindSearch: sdk.ToolKindSearch, tool.KindEdit: sdk.ToolKindEdit,
		tool.KindDelete: sdk.ToolKindDelete, tool.KindExecute: sdk.ToolKindExecute, tool.KindFetch: sdk.ToolKindFetch,
		tool.KindThink: sdk.ToolKindThink, tool.KindOther: sdk.ToolKindOther,
	} {
		if got := toolKind(k); got != want {
			t.Errorf("%s: %s, want %s", k, got, want)
		}
	}
}
