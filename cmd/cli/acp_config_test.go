package cli

import (
	"context"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/ollm/ollm/core/llm/llmtest"
)

// configSelect finds a select option by id; it fails the test when the
// option is missing.
func configSelect(t *testing.T, opts []sdk.SessionConfigOption, id string) *sdk.SessionConfigOptionSelect {
	t.Helper()
	for _, o := range opts {
		if o.Select != nil && string(o.Select.Id) == id {
			return o.Select
		}
	}
	t.Fatalf("no config option %q in %+v", id, opts)
	return nil
}

func selectValues(s *sdk.SessionConfigOptionSelect) []string {
	var out []string
	if s.Options.Ungrouped != nil {
		for _, o := range *s.Options.Ungrouped {
			out = append(out, string(o.Value))
		}
	}
	return out
}

func setConfig(conn *acpConn, id sdk.SessionId, option, value string) (sdk.SetSessionConfigOptionResponse, error) {
	return conn.SetSessionConfigOption(context.Background(), sdk.SetSessionConfigOptionRequest{ValueId: &sdk.SetSessionConfigOptionValueId{
		SessionId: id, ConfigId: sdk.SessionConfigId(option), Value: sdk.SessionConfigValueId(value)}})
}

// The editor's model and mode selectors: session/new offers the models
// Ollama lists and the approval modes; choosing a model sends the next
// prompt to it (as /model does); an unknown model is refused with the
// fix; the mode option and the session modes stay in step both ways; a
// model cannot change under a running prompt; session/load offers them
// too.
func TestACPConfigOptions(t *testing.T) {
	e := newSessionEnv(t)
	e.srv.AddModel(llmtest.Model{Name: "qwen3:14b"})
	e.srv.AddModel(llmtest.Model{Name: "qwen3:8b"})
	ctx := context.Background()
	c := newACPClient()
	conn := startACP(t, e, c, false)
	ns, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: e.ws, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	model := configSelect(t, ns.ConfigOptions, "model")
	if got := strings.Join(selectValues(model), " "); got != "qwen3:14b qwen3:8b test-model:latest" || model.CurrentValue != "test-model:latest" ||
		model.Category == nil || *model.Category != sdk.SessionConfigOptionCategoryModel {
		t.Errorf("model option: values %q, current %q, category %v", got, model.CurrentValue, model.Category)
	}
	mode := configSelect(t, ns.ConfigOptions, "mode")
	if got := strings.Join(selectValues(mode), " "); got != "default auto_edit plan yolo" || mode.CurrentValue != "default" {
		t.Errorf("mode option: values %q, current %q", got, mode.CurrentValue)
	}

	resp, err := setConfig(conn, ns.SessionId, "model", "qwen3:8b")
	if err != nil {
		t.Fatal(err)
	}
	if cur := configSelect(t, resp.ConfigOptions, "model").CurrentValue; cur != "qwen3:8b" {
		t.Errorf("after set_config_option the model is %q", cur)
	}
	e.srv.Reply(llmtest.Text("Hi."))
	if _, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: ns.SessionId, Prompt: text("hello")}); err != nil {
		t.Fatal(err)
	}
	if m := e.srv.LastRequest().Model; m != "qwen3:8b" {
		t.Errorf("the prompt went to %q, not the chosen model", m)
	}
	if th := thoughtText(c.take()); !strings.Contains(th, "model qwen3:8b for the rest of the session") {
		t.Errorf("the editor was not told of the switch: %q", th)
	}

	_, err = setConfig(conn, ns.SessionId, "model", "nope:1b")
	if err == nil || !strings.Contains(err.Error(), "nope:1b is not installed") || !strings.Contains(err.Error(), "ollama pull nope:1b") ||
		!strings.Contains(err.Error(), "available: qwen3:14b, qwen3:8b, test-model:latest") {
		t.Errorf("an unknown model: %v", err)
	}
	if _, err := setConfig(conn, ns.SessionId, "temperature", "1"); err == nil || !strings.Contains(err.Error(), "config option temperature: ollm offers model and mode") {
		t.Errorf("an unknown option: %v", err)
	}
	if _, err := setConfig(conn, ns.SessionId, "mode", "reckless"); err == nil || !strings.Contains(err.Error(), "reckless") {
		t.Errorf("an unknown mode: %v", err)
	}

	// The mode option moves the session mode (an editor that only knows
	// modes sees it) ...
	resp, err = setConfig(conn, ns.SessionId, "mode", "plan")
	if err != nil {
		t.Fatal(err)
	}
	if cur := configSelect(t, resp.ConfigOptions, "mode").CurrentValue; cur != "plan" {
		t.Errorf("mode option after set: %q", cur)
	}
	var modeUpdate string
	for _, u := range c.take() {
		if m := u.Update.CurrentModeUpdate; m != nil {
			modeUpdate = string(m.CurrentModeId)
		}
	}
	if modeUpdate != "plan" {
		t.Errorf("current_mode_update: %q", modeUpdate)
	}
	// ... and session/set_mode moves the option.
	if _, err := conn.SetSessionMode(ctx, sdk.SetSessionModeRequest{SessionId: ns.SessionId, ModeId: "yolo"}); err != nil {
		t.Fatal(err)
	}
	var optUpdate []sdk.SessionConfigOption
	for _, u := range c.take() {
		if o := u.Update.ConfigOptionUpdate; o != nil {
			optUpdate = o.ConfigOptions
		}
	}
	if optUpdate == nil || configSelect(t, optUpdate, "mode").CurrentValue != "yolo" || configSelect(t, optUpdate, "model").CurrentValue != "qwen3:8b" {
		t.Errorf("config_option_update after set_mode: %+v", optUpdate)
	}

	// Not under a running prompt.
	hold, started := make(chan struct{}), make(chan struct{})
	e.srv.Reply(llmtest.Signal(started), llmtest.Wait(hold), llmtest.Text("done"))
	prompted := make(chan error, 1)
	go func() {
		_, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: ns.SessionId, Prompt: text("think long")})
		prompted <- err
	}()
	<-started
	if _, err := setConfig(conn, ns.SessionId, "model", "qwen3:14b"); err == nil || !strings.Contains(err.Error(), "a prompt is running") {
		t.Errorf("switch under a prompt: %v", err)
	}
	close(hold)
	if err := <-prompted; err != nil {
		t.Fatal(err)
	}
	if m := e.srv.LastRequest().Model; m != "qwen3:8b" {
		t.Errorf("the running prompt's model changed to %q", m)
	}

	c2 := newACPClient()
	conn2 := startACP(t, e, c2, false)
	if _, err := conn.CloseSession(ctx, sdk.CloseSessionRequest{SessionId: ns.SessionId}); err != nil {
		t.Fatal(err)
	}
	ls, err := conn2.LoadSession(ctx, sdk.LoadSessionRequest{SessionId: ns.SessionId, Cwd: e.ws, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(selectValues(configSelect(t, ls.ConfigOptions, "model")), " "); got != "qwen3:14b qwen3:8b test-model:latest" {
		t.Errorf("session/load's model option: %q", got)
	}
}

// thoughtText is the agent's thoughts among updates.
func thoughtText(ups []sdk.SessionNotification) string {
	var b strings.Builder
	for _, u := range ups {
		if th := u.Update.AgentThoughtChunk; th != nil && th.Content.Text != nil {
			b.WriteString(th.Content.Text.Text)
		}
	}
	return b.String()
}
