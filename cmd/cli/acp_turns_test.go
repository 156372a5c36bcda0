package cli

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/ollm/ollm/core/llm/llmtest"
)

// A session's cwd must be an existing directory: session/new and
// session/load with a missing path or a file get invalid params naming
// the path, and no session starts.
func TestACPSessionCwdMustBeADirectory(t *testing.T) {
	e := newSessionEnv(t)
	file := filepath.Join(e.ws, "file.txt")
	e.write(file, "x\n")
	missing := filepath.Join(e.ws, "missing")
	c := newACPClient()
	conn := startACP(t, e, c, false)
	ctx := context.Background()
	check := func(what, cwd string, err error, want string) {
		t.Helper()
		var re *sdk.RequestError
		if !errors.As(err, &re) || re.Code != -32602 || !strings.Contains(err.Error(), cwd) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s with cwd %s: %v, want invalid params naming the path (%s)", what, cwd, err, want)
		}
	}
	for cwd, want := range map[string]string{missing: "not an existing directory", file: "not a directory"} {
		_, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: cwd, McpServers: []sdk.McpServer{}})
		check("session/new", cwd, err, want)
	}
	ns, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: e.ws, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.CloseSession(ctx, sdk.CloseSessionRequest{SessionId: ns.SessionId}); err != nil {
		t.Fatal(err)
	}
	_, err = conn.LoadSession(ctx, sdk.LoadSessionRequest{SessionId: ns.SessionId, Cwd: missing, McpServers: []sdk.McpServer{}})
	check("session/load", missing, err, "not an existing directory")
	if _, err := conn.LoadSession(ctx, sdk.LoadSessionRequest{SessionId: ns.SessionId, Cwd: e.ws, McpServers: []sdk.McpServer{}}); err != nil {
		t.Errorf("session/load in the workspace: %v", err)
	}
}

// One turn at a time: a session/prompt while one runs on the same
// session is refused with invalid request, and the running turn goes on
// to its end (not cancelled); the next prompt after it runs.
func TestACPSecondPromptWhileOneRunsIsRefused(t *testing.T) {
	e := newSessionEnv(t)
	c := newACPClient()
	conn := startACP(t, e, c, false)
	ctx := context.Background()
	ns, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: e.ws, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	started, release := make(chan struct{}), make(chan struct{})
	e.srv.Reply(llmtest.Signal(started), llmtest.Wait(release), llmtest.Text("First done."))
	type result struct {
		r   sdk.PromptResponse
		err error
	}
	first := make(chan result, 1)
	go func() {
		r, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: ns.SessionId, Prompt: text("first")})
		first <- result{r, err}
	}()
	<-started
	_, err = conn.Prompt(ctx, sdk.PromptRequest{SessionId: ns.SessionId, Prompt: text("second")})
	var re *sdk.RequestError
	if !errors.As(err, &re) || re.Code != -32600 || !strings.Contains(err.Error(), "is already running a prompt") {
		t.Fatalf("second prompt while the first runs: %v", err)
	}
	close(release)
	res := <-first
	if res.err != nil || res.r.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("the first prompt: %+v %v, want end_turn", res.r, res.err)
	}
	e.srv.Reply(llmtest.Text("Third done."))
	if r, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: ns.SessionId, Prompt: text("third")}); err != nil || r.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("the prompt after: %+v %v", r, err)
	}
	var prompts []string
	for _, r := range e.srv.Requests() {
		prompts = append(prompts, r.Messages[len(r.Messages)-1].Content)
	}
	if strings.Join(prompts, ",") != "first,third" {
		t.Errorf("the model was asked: %q", prompts)
	}
}
