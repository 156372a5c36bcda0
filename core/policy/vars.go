package policy

import "strings"

// Some variables make programs run code: PROMPT_COMMAND runs a command
// line before each prompt, BASH_ENV names a file bash sources, LD_PRELOAD
// a library every program loads. Setting one, in any form (`NAME=v cmd`,
// `export`, `declare`, `env`, `sudo`, `strace -E`), is judged:
//
//   - a variable whose value is a command line that a program runs
//     (commandVars) is judged as that command line, like `bash -c`; a value
//     that is not literal is unknown;
//   - a variable that makes a shell, the loader or an interpreter run code
//     in any other form (codeVars) is unknown: ask, or deny in yolo mode
//     when a deny rule could match.

type varKind uint8

const (
	varPlain varKind = iota
	varCommand
	varCode
)

var commandVars = map[string]bool{
	"PROMPT_COMMAND": true, "GIT_SSH_COMMAND": true, "GIT_SSH": true, "GIT_PAGER": true,
	"PAGER": true, "MANPAGER": true, "GIT_EDITOR": true, "GIT_SEQUENCE_EDITOR": true,
	"EDITOR": true, "VISUAL": true, "SUDO_EDITOR": true, "GIT_EXTERNAL_DIFF": true,
	"GIT_ASKPASS": true, "SSH_ASKPASS": true,
}

var codeVars = map[string]bool{
	"BASH_ENV": true, "ENV": true, "PS0": true, "PS1": true, "PS2": true, "PS3": true, "PS4": true,
	"SHELLOPTS": true, "BASHOPTS": true, "LD_PRELOAD": true, "LD_LIBRARY_PATH": true, "LD_AUDIT": true,
	"DYLD_INSERT_LIBRARIES": true, "DYLD_LIBRARY_PATH": true, "NODE_OPTIONS": true, "PERL5OPT": true,
	"RUBYOPT": true, "LESSOPEN": true, "LESSCLOSE": true, "GIT_CONFIG_PARAMETERS": true,
	"GIT_CONFIG_COUNT": true,
}

var codeVarPrefixes = []string{"BASH_FUNC_", "GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_"}

func varRisk(name string) varKind {
	switch {
	case commandVars[name]:
		return varCommand
	case codeVars[name]:
		return varCode
	}
	for _, p := range codeVarPrefixes {
		if strings.HasPrefix(name, p) {
			return varCode
		}
	}
	return varPlain
}

// varInners is what setting name to v runs.
func varInners(name string, v any) []inner {
	how := name + "="
	switch varRisk(name) {
	case varCommand:
		s, ok := v.(string)
		switch {
		case !ok:
			return []inner{{note: name + " holds a command line that is not a literal string", how: how, apart: true}}
		case s == "":
			return nil
		}
		return []inner{{script: s, how: how, apart: true}}
	case varCode:
		return []inner{{note: "setting " + name + " can make programs run code the policy cannot see", how: how}}
	}
	return nil
}

// envInners judges NAME=VALUE words (env, sudo, strace -E).
func envInners(words []any) []inner {
	var out []inner
	for _, w := range words {
		if name, v, ok := splitAssign(w); ok {
			out = append(out, varInners(name, v)...)
		}
	}
	return out
}

// splitAssign splits a NAME=VALUE word, also one whose value (or whose
// quotes: "NAME=$x") is known only at run time. The name may be any text,
// as env and the environment take it (BASH_FUNC_ls%%=...).
func splitAssign(w any) (name string, v any, ok bool) {
	switch w := w.(type) {
	case string:
		if isEnvAssignment(w) {
			eq := strings.IndexByte(w, '=')
			return w[:eq], w[eq+1:], true
		}
	case unknown:
		t := strings.TrimLeft(w.text, `"'`)
		if eq := strings.IndexByte(t, '='); eq > 0 && !strings.ContainsAny(t[:eq], "$`") {
			return t[:eq], w, true
		}
	}
	return "", nil, false
}

// isEnvAssignment reports whether env and sudo take a word as NAME=VALUE.
func isEnvAssignment(s string) bool {
	return strings.IndexByte(s, '=') > 0 && s[0] != '-'
}

// appendRisky keeps the NAME=VALUE words whose variable runs code.
func appendRisky(vars []any, w any) []any {
	if name, _, ok := splitAssign(w); ok && varRisk(name) != varPlain {
		return append(vars, w)
	}
	return vars
}
