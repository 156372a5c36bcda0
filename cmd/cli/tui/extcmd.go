package tui

import (
	"context"

	"github.com/ollm/ollm/core/hooks"
)

// ExtCommands are the slash commands extensions registered (persistent
// hooks, core/hooks); *hooks.Engine behind a reload-safe adapter.
type ExtCommands interface {
	Commands() []hooks.Command
	InvokeCommand(ctx context.Context, name, args string) (hooks.CommandResponse, error)
}

// Reserved reports whether name is one of the TUI's own commands, which an
// extension cannot register.
func Reserved(name string) bool {
	_, ok := builtins[name]
	return ok
}

func (r *AgentRuntime) isSkill(name string) bool {
	if r.opt.Skills == nil {
		return false
	}
	_, err := r.opt.Skills.Get(name)
	return err == nil
}

// extCommand reports the extension that owns /name.
func (r *AgentRuntime) extCommand(name string) (string, bool) {
	if r.opt.ExtCommands == nil {
		return "", false
	}
	for _, c := range r.opt.ExtCommands.Commands() {
		if c.Name == name {
			return c.Source, true
		}
	}
	return "", false
}

// runExtCommand invokes an extension's command off the UI's goroutine and
// carries out the action it answers: prompt runs a turn, insert fills the
// input box, display shows a note, noop nothing; an error line is shown
// whatever the action. Everything is labelled with the extension.
func (r *AgentRuntime) runExtCommand(source string, c Command) {
	resp, err := r.opt.ExtCommands.InvokeCommand(r.ctx, c.Name, c.Rest)
	if err != nil {
		r.push(Note{Source: source, Level: "error", Text: err.Error()})
		return
	}
	if resp.Error != "" {
		r.push(Note{Source: source, Level: "error", Text: resp.Error})
	}
	switch resp.Action {
	case hooks.ActionPrompt:
		if resp.Prompt == "" {
			return
		}
		r.push(Note{Source: source, Level: "info", Text: "/" + c.Name + " sends a prompt"})
		if err := r.Submit(resp.Prompt); err != nil {
			r.push(Note{Source: source, Level: "error", Text: "/" + c.Name + ": " + err.Error()})
		}
	case hooks.ActionInsert:
		r.push(InsertText{Text: resp.Insert})
	case hooks.ActionDisplay:
		r.push(Note{Source: source, Level: "display", Text: resp.Display})
	}
}
