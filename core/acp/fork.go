package acp

import (
	"context"
	"encoding/json"
	"fmt"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/ollm/ollm/core/agent"
)

var _ interface {
	UnstableForkSession(context.Context, sdk.UnstableForkSessionRequest) (sdk.UnstableForkSessionResponse, error)
} = (*Agent)(nil)

// UnstableForkSession (session/fork) starts a new saved session whose
// transcript begins with a copy of the given session's conversation; the
// given session's transcript is only read. An open session of this
// connection also lends its model and approval mode. No replay: the
// editor already shows the conversation.
func (a *Agent) UnstableForkSession(ctx context.Context, p sdk.UnstableForkSessionRequest) (sdk.UnstableForkSessionResponse, error) {
	if !validID(string(p.SessionId)) {
		return sdk.UnstableForkSessionResponse{}, sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("session id %s is not one", p.SessionId)})
	}
	history, err := agent.Load(agent.Path(a.opts.Home.Sessions(), string(p.SessionId)))
	if err != nil {
		return sdk.UnstableForkSessionResponse{}, notFound(fmt.Sprintf("session %s: cannot fork it: %v", p.SessionId, err))
	}
	var servers []sdk.McpServer
	if err := convert(p.McpServers, &servers); err != nil {
		return sdk.UnstableForkSessionResponse{}, sdk.NewInvalidParams(map[string]any{"error": "mcpServers: " + err.Error()})
	}
	id := agent.NewID(a.opts.Now())
	s, err := a.open(ctx, p.Cwd, id, nil, history, servers, p.AdditionalDirectories)
	if err != nil {
		return sdk.UnstableForkSessionResponse{}, err
	}
	if src := a.session(string(p.SessionId)); src != nil {
		s.applyMode(src.currentMode()) // told in the response, not an update
		if name := src.s.Model(); name != s.s.Model() && a.opts.SwitchModel != nil {
			if _, err := a.opts.SwitchModel(ctx, s.rt, s.s, name); err != nil {
				a.logf("session %s: forked from %s, which uses model %s: %v", id, p.SessionId, name, err)
			}
		}
	}
	go s.advertise()
	resp := sdk.UnstableForkSessionResponse{SessionId: sdk.SessionId(id), Modes: s.modeState()}
	if err := convert(s.configOptions(), &resp.ConfigOptions); err != nil {
		return resp, failure(err)
	}
	return resp, nil
}

// validID keeps a session id one file name in the sessions directory.
func validID(id string) bool { return agent.ValidID(id) }

// convert moves a value between the SDK's stable and unstable copies of
// the same wire type.
func convert(from, to any) error {
	b, err := json.Marshal(from)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, to)
}
