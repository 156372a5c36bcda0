package hook_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/ollm/ollm/sdk/hook"
)

// TestOnce answers one event: a block for shell, an allow otherwise.
func TestOnce(t *testing.T) {
	guard := func(ctx context.Context, in hook.Input) hook.Output {
		if in.Data["tool_name"] == "shell" {
			return hook.Block("no shell")
		}
		return hook.Allow()
	}
	for in, want := range map[string]string{
		`{"event":"before_tool","data":{"tool_name":"shell"}}`:     `{"continue":false,"reason":"no shell"}`,
		`{"event":"before_tool","data":{"tool_name":"read_file"}}`: `{}`,
	} {
		var out bytes.Buffer
		if err := hook.Once(strings.NewReader(in), &out, guard); err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimSpace(out.String()); got != want {
			t.Errorf("%s -> %s, want %s", in, got, want)
		}
	}
	if err := hook.Once(strings.NewReader("nope"), io.Discard, guard); err == nil || !strings.Contains(err.Error(), "not an ollm hook input") {
		t.Errorf("bad input: %v", err)
	}
}

// TestRunProtocol: the hello answer lists the commands, events and
// invocations are answered with their ids, Notify is an error before Run.
func TestRunProtocol(t *testing.T) {
	h := hook.New()
	if err := h.Notify("info", "early"); err == nil {
		t.Error("Notify before Run is not an error")
	}
	h.Command("hi", "say hi", func(ctx context.Context, args string) hook.CommandResponse { return hook.Display("hi " + args) })
	h.On("*", func(ctx context.Context, in hook.Input) hook.Output { return hook.Message("seen " + in.Event) })
	in := strings.Join([]string{
		`{"type":"hello","protocolVersion":"1.0.0"}`,
		`{"type":"command_invoked","id":5,"name":"hi","args":"Ann"}`,
		`{"id":6,"event":"after_tool","data":{}}`,
		`{"type":"command_invoked","id":7,"name":"nope","args":""}`,
		`{"type":"shutdown"}`,
	}, "\n") + "\n"
	var out bytes.Buffer
	if err := h.Run(strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	got := map[string]map[string]any{}
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatal(err)
		}
		key := "hello"
		if id, ok := m["id"].(float64); ok {
			key = string(rune('0' + int(id)))
		}
		got[key] = m
	}
	if cmds := got["hello"]["commands"].([]any); len(cmds) != 1 || cmds[0].(map[string]any)["name"] != "hi" {
		t.Errorf("hello = %v", got["hello"])
	}
	if got["5"]["type"] != "command_response" || got["5"]["action"] != "display" || got["5"]["display"] != "hi Ann" {
		t.Errorf("command 5 = %v", got["5"])
	}
	if got["6"]["systemMessage"] != "seen after_tool" {
		t.Errorf("event 6 = %v", got["6"])
	}
	if got["7"]["error"] != "no handler for /nope" {
		t.Errorf("command 7 = %v", got["7"])
	}
}
