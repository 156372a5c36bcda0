package tui

import (
	"fmt"
	"strings"
)

// CommandKind names a slash command.
type CommandKind string

const (
	CmdNone    CommandKind = "" // not a command: a prompt
	CmdHelp    CommandKind = "help"
	CmdTools   CommandKind = "tools"
	CmdMCP     CommandKind = "mcp"
	CmdExt     CommandKind = "ext"
	CmdSkills  CommandKind = "skills"
	CmdReload  CommandKind = "reload"
	CmdModel   CommandKind = "model"
	CmdClear   CommandKind = "clear"
	CmdCompact CommandKind = "compact"
	CmdQuit    CommandKind = "quit"
	CmdSkill   CommandKind = "skill"  // /<skill> [args]: Name is the skill
	CmdTrust   CommandKind = "trust"  // trustview.go
	CmdResume  CommandKind = "resume" // resume.go
)

// Command is a parsed slash command.
type Command struct {
	Kind CommandKind
	Name string   // the skill name for CmdSkill
	Args []string // words after the command
	Rest string   // everything after the command word, trimmed
}

// builtins maps command words (and aliases) to kinds.
var builtins = map[string]CommandKind{
	"help": CmdHelp, "?": CmdHelp,
	"tools":   CmdTools,
	"mcp":     CmdMCP,
	"ext":     CmdExt,
	"skills":  CmdSkills,
	"reload":  CmdReload,
	"model":   CmdModel,
	"clear":   CmdClear,
	"compact": CmdCompact,
	"quit":    CmdQuit, "exit": CmdQuit, "q": CmdQuit,
	"trust":  CmdTrust,
	"resume": CmdResume,
}

// takesArgs lists the builtins that accept arguments.
var takesArgs = map[CommandKind]bool{CmdModel: true, CmdSkill: true, CmdCompact: true, CmdMCP: true, CmdExt: true, CmdResume: true}

// HelpText lists the slash commands.
const HelpText = `/help              this list
/tools             the tools the model can call
/mcp               MCP servers and their state
/ext               extensions
/skills            skills; run one with /<skill> [args]
/<skill> [args]    run a skill (key=value or free text)
/reload            re-resolve the profile (hooks, MCP, skills, policy)
/model [name]      show or switch the model
/clear             clear the screen and start a new conversation
/compact           summarize the conversation to free context
/trust             review what this workspace runs and approve it
/resume [id]       switch to a saved session (a picker without an id)
/quit              end the session
Type / for a menu of every command, @ to attach a workspace file.
Keys: Enter send · Alt-Enter/Ctrl-J newline · Up/Down history · Ctrl-R search history · Ctrl-G editor · Ctrl-C cancel turn (twice when idle: quit) · PgUp/PgDn scroll`

// ParseCommand parses one line of input. A line that does not start with
// "/" (or starts with "//", an escaped slash) is a prompt: Kind CmdNone.
func ParseCommand(line string) (Command, error) {
	s := strings.TrimSpace(line)
	if !strings.HasPrefix(s, "/") || strings.HasPrefix(s, "//") || s == "/" {
		return Command{}, nil
	}
	word, rest, _ := strings.Cut(s[1:], " ")
	rest = strings.TrimSpace(rest)
	c := Command{Rest: rest, Args: strings.Fields(rest)}
	if word == "" {
		return Command{}, fmt.Errorf("empty command; /help lists them")
	}
	if k, ok := builtins[strings.ToLower(word)]; ok {
		c.Kind = k
	} else {
		if !validSkillName(word) {
			return Command{}, fmt.Errorf("unknown command /%s; /help lists them", word)
		}
		c.Kind, c.Name = CmdSkill, word
	}
	if !takesArgs[c.Kind] && rest != "" {
		return Command{}, fmt.Errorf("/%s takes no arguments", word)
	}
	if len(c.Args) == 0 {
		c.Args = nil
	}
	return c, nil
}

// PromptText returns the prompt for a non-command line: "//x" sends "/x".
func PromptText(line string) string {
	s := strings.TrimSpace(line)
	if strings.HasPrefix(s, "//") {
		return s[1:]
	}
	return s
}

func validSkillName(s string) bool {
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == ':', r == '.':
		default:
			return false
		}
	}
	return true
}
