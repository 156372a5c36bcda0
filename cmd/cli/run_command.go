package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/ollm/ollm/cmd/cli/tui"
	"github.com/ollm/ollm/core/agent"
	"github.com/ollm/ollm/core/hooks"
	"github.com/ollm/ollm/core/runtime"
)

// runSlash runs `ollm run -p "/name text"` as a session runs /name, the
// way Claude Code's and Gemini CLI's non-interactive modes run custom
// commands: a skill or command (ollm's, a Claude plugin's, a Gemini TOML
// command, an MCP prompt) with text as its arguments and KEY=VALUE words
// as its placeholders (--var wins), or an extension's command (a
// persistent hook's /name) with its answer carried out. ok is false when
// prompt names no such command ("/etc/hosts: what is this?"): the prompt
// then goes to the model as it is. Piped input comes before -p's text,
// so it never starts with a command.
func runSlash(ctx context.Context, s *agent.Session, rt *runtime.Runtime, prompt string, vars map[string]string, errOut io.Writer) (rep agent.Reply, ok bool, err error) {
	c, perr := tui.ParseCommand(prompt)
	if perr != nil || c.Kind != tui.CmdSkill {
		return agent.Reply{}, false, nil
	}
	if _, serr := rt.Skills.Get(c.Name); serr == nil {
		values := tui.SkillValues(c)
		for k, v := range vars {
			values[k] = v
		}
		rep, err = s.RunSkill(ctx, rt.Skills, c.Name, values)
		return rep, true, err
	}
	e := rt.Hooks()
	if e == nil {
		return agent.Reply{}, false, nil
	}
	var cmd *hooks.Command
	for _, x := range e.Commands() {
		if x.Name == c.Name {
			cmd = &x
			break
		}
	}
	if cmd == nil {
		return agent.Reply{}, false, nil
	}
	resp, err := e.InvokeCommand(ctx, c.Name, c.Rest)
	if err != nil {
		return agent.Reply{}, true, err
	}
	if resp.Error != "" {
		fmt.Fprintf(errOut, "[%s] error: %s\n", cmd.Source, resp.Error)
	}
	switch resp.Action {
	case hooks.ActionPrompt:
		if resp.Prompt == "" {
			break
		}
		fmt.Fprintf(errOut, "notice: /%s (%s) sends a prompt\n", c.Name, cmd.Source)
		rep, err = s.Run(ctx, resp.Prompt)
		return rep, true, err
	case hooks.ActionDisplay, hooks.ActionInsert:
		// No input box to fill here: what a session would insert is
		// printed, like what it would display.
		text := resp.Display
		if resp.Action == hooks.ActionInsert {
			text = resp.Insert
		}
		return agent.Reply{Text: text}, true, nil
	}
	if resp.Error != "" {
		return agent.Reply{}, true, fmt.Errorf("/%s: %s: %s", c.Name, cmd.Source, resp.Error)
	}
	return agent.Reply{}, true, nil
}
