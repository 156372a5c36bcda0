package acp

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/ollm/ollm/core/llm"
	"github.com/ollm/ollm/core/policy"
)

// Session config options (session/new, load, resume and fork responses,
// session/set_config_option, config_option_update): the model, among the
// ones the provider lists, and the approval mode, which mirrors the
// session modes so an editor that only knows modes sees the same state.
const (
	configModel = "model"
	configMode  = "mode"
)

// listTimeout bounds the model list in session/new: a provider that does
// not answer leaves the selector with the current model only.
const listTimeout = 2 * time.Second

// listModels asks the session's provider for its models; the current
// model is always among them. A failure is said once, as a notice.
func (s *session) listModels(ctx context.Context) {
	_, p := s.rt.Model()
	var names []string
	if l, ok := p.(llm.ModelLister); ok {
		ctx, cancel := context.WithTimeout(ctx, listTimeout)
		list, err := l.ListModels(ctx)
		cancel()
		if err != nil {
			s.a.logf("session %s: listing the models: %v", s.id, err)
		}
		names = list
	}
	s.mu.Lock()
	s.models = names
	s.mu.Unlock()
}

// configOptions are the session's options with their current values.
func (s *session) configOptions() []sdk.SessionConfigOption {
	current := s.s.Model()
	s.mu.Lock()
	names := slices.Clone(s.models)
	mode := s.mode
	s.mu.Unlock()
	// Ollama lists "name:latest" for the "name" a profile says.
	if i := slices.IndexFunc(names, func(n string) bool { return n == current || n == current+":latest" }); i >= 0 {
		current = names[i]
	} else {
		names = append([]string{current}, names...)
	}
	var models sdk.SessionConfigSelectOptionsUngrouped
	for _, n := range names {
		models = append(models, sdk.SessionConfigSelectOption{Name: n, Value: sdk.SessionConfigValueId(n)})
	}
	var modeOpts sdk.SessionConfigSelectOptionsUngrouped
	for _, m := range modes {
		d := m.desc
		modeOpts = append(modeOpts, sdk.SessionConfigSelectOption{Name: m.name, Value: sdk.SessionConfigValueId(m.id), Description: &d})
	}
	modelDesc := "the model this session's prompts go to (as /model NAME in the terminal)"
	modeDesc := "when ollm asks before a tool runs (the same as the session mode)"
	catModel, catMode := sdk.SessionConfigOptionCategoryModel, sdk.SessionConfigOptionCategoryMode
	return []sdk.SessionConfigOption{
		{Select: &sdk.SessionConfigOptionSelect{Id: configModel, Name: "Model", Type: "select", Category: &catModel, Description: &modelDesc,
			CurrentValue: sdk.SessionConfigValueId(current), Options: sdk.SessionConfigSelectOptions{Ungrouped: &models}}},
		{Select: &sdk.SessionConfigOptionSelect{Id: configMode, Name: "Approval mode", Type: "select", Category: &catMode, Description: &modeDesc,
			CurrentValue: sdk.SessionConfigValueId(mode), Options: sdk.SessionConfigSelectOptions{Ungrouped: &modeOpts}}},
	}
}

// configChanged tells the editor the options' new values.
func (s *session) configChanged() {
	s.update(sdk.SessionUpdate{ConfigOptionUpdate: &sdk.SessionConfigOptionUpdate{ConfigOptions: s.configOptions(), SessionUpdate: "config_option_update"}})
}

// setConfig sets one option: the mode as session/set_mode does, the
// model as the terminal's /model NAME does (Options.SwitchModel), once
// the provider knows it and between prompts.
func (s *session) setConfig(ctx context.Context, id sdk.SessionConfigId, value string) error {
	switch id {
	case configMode:
		m, err := policy.ParseMode(value)
		if err != nil {
			return sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("config option mode: %v", err)})
		}
		s.setMode(m)
		return nil
	case configModel:
		if value == "" {
			return sdk.NewInvalidParams(map[string]any{"error": "config option model: a model name is required"})
		}
		if s.a.opts.SwitchModel == nil {
			return failure(fmt.Errorf("config option model: this agent cannot switch models"))
		}
		select {
		case s.turn <- struct{}{}:
			defer func() { <-s.turn }()
		default:
			return sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("config option model: a prompt is running in session %s: switch the model when it has ended (or cancel it)", s.id)})
		}
		msg, err := s.a.opts.SwitchModel(ctx, s.rt, s.s, value)
		if err != nil {
			return sdk.NewInvalidParams(map[string]any{"error": err.Error() + hintModels(s)})
		}
		s.notice(msg)
		s.listModels(ctx)
		return nil
	}
	return sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("config option %s: ollm offers %s and %s", id, configModel, configMode)})
}

// hintModels names the models the provider listed, for an error.
func hintModels(s *session) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.models) == 0 {
		return ""
	}
	return " (available: " + strings.Join(s.models, ", ") + ")"
}
