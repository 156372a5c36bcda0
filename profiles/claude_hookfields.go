package profiles

import (
	"fmt"

	"github.com/ollm/ollm/internal/claudeperm"
	"github.com/ollm/ollm/schema"
)

// claudeShells are the values of a Claude Code hook's shell field ollm
// runs the command with (Claude Code knows bash and powershell).
var claudeShells = map[string]bool{"bash": true, "sh": true, "zsh": true, "fish": true, "pwsh": true, "powershell": true}

// claudeToolEvents are the canonical events of a tool call, the ones a
// hook's `if` is evaluated on.
var claudeToolEvents = map[string]bool{"before_tool": true, "after_tool": true, "on_approval_request": true}

// hookFields carries a Claude Code hook's if, shell and model into def,
// calling skip(field, value, why) for what ollm does not apply.
//
//   - if: a permission rule the hook runs for only (core/hooks). One
//     claudeperm cannot read is dropped: the hook runs for every call its
//     matcher selects, the safe side for a guard. On an event without a
//     tool call it is kept: the hook never runs there, as in Claude Code.
//   - shell: bash, sh, zsh, fish, pwsh, powershell run the command
//     through that shell, looked up when the hook runs; another value is
//     dropped (the command runs with sh -c).
//   - model (prompt hooks): not applied; the session's model answers.
func hookFields(def *schema.Hook, ev, canon, typ, ifRule, shell, model string, skip func(field, value, why string)) {
	if ifRule != "" {
		_, err := claudeperm.Convert(ifRule, "allow", "if", claudeperm.Base{Root: "/"})
		switch {
		case err != nil:
			skip("if", ifRule, fmt.Sprintf("cannot be applied (%v): the hook runs for every call its matcher selects", err))
		case !claudeToolEvents[canon]:
			def.If = ifRule
			skip("if", ifRule, ev+" has no tool call: the hook never runs, as in Claude Code; remove the field to run it")
		default:
			def.If = ifRule
		}
	}
	if shell != "" {
		switch {
		case typ != "command":
			skip("shell", shell, "a prompt hook runs no command")
		case claudeShells[shell]:
			def.Shell = shell
		default:
			skip("shell", shell, "not a shell ollm knows (bash, sh, zsh, fish, pwsh, powershell): the command runs with sh -c")
		}
	}
	if model != "" && typ == "prompt" {
		skip("model", model, "not applied: prompt hooks are answered by the session's model")
	}
}
