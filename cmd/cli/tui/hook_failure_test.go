package tui

import (
	"testing"

	"github.com/ollm/ollm/core/agent"
)

// A hook's failure is a notice in the transcript, with the line the
// session gives it (which hook, which event, what failed, what happened).
func TestHookFailureIsANotice(t *testing.T) {
	f := agent.HookFailure{Hook: "guard", Event: "before_tool", Kind: "timeout", DurationMS: 300, Detail: "timed out"}
	got := (&AgentRuntime{}).translate(agent.Event{Type: agent.EvHookFailure, Failure: &f, Text: f.String()})
	n, ok := got.(Notice)
	if !ok || n.Text != "hook guard (before_tool) failed after 300 ms: timeout: timed out; the operation went on (failOpen)" {
		t.Fatalf("got %#v", got)
	}
}
