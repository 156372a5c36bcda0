package skills

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Injector runs what a Gemini CLI command's prompt asks for while it is
// expanded: a shell command (!{...}) through the session's one gate (the
// before_tool hooks, the policy, a confirmation, the sandbox) and a file
// (@{...}) read from inside the workspace.
type Injector interface {
	// Shell runs command and returns what the model should read: its
	// output, or its error output and exit status when it failed. A
	// refusal (a hook, the policy, the user) is an error.
	Shell(ctx context.Context, command string) (string, error)
	// File returns the text of path (relative to the workspace, or
	// absolute inside it), or of every file under a directory.
	File(path string) (string, error)
}

// ErrNeedsSession is a command that runs shell commands or reads files
// rendered without a session to do it in (`ollm skills render`).
var ErrNeedsSession = errors.New("its prompt runs shell commands (!{...}) or reads files (@{...}); run it in a session: /<name> in ollm, or ollm run --skill")

// Expand renders the skill called name with values; a command's !{...}
// and @{...} go through inj (nil: they are an ErrNeedsSession error).
func (r *Registry) Expand(ctx context.Context, name string, values map[string]string, inj Injector) (string, error) {
	s, err := r.Get(name)
	if err != nil {
		return "", err
	}
	var out string
	switch s.Kind {
	case KindCommand:
		out, err = expandCommand(ctx, s, values[Arguments], inj)
	case KindClaudeCommand:
		out, err = expandClaude(ctx, s, values[Arguments], inj)
	default:
		out, err = renderSkill(s, values)
	}
	if err != nil {
		return "", fmt.Errorf("skill %s: %w", s.Qualified(), err)
	}
	return out, nil
}

// expandCommand expands a Gemini CLI command's prompt in Gemini's order:
// @{file} first, then !{shell} (with {{args}} shell-quoted inside), then
// {{args}} raw. A prompt without {{args}} gets the command line typed
// appended after a blank line when there were arguments.
func expandCommand(ctx context.Context, s Skill, args string, inj Injector) (string, error) {
	args = strings.TrimSpace(args)
	prompt := s.Prompt
	usesArgs := strings.Contains(prompt, "{{args}}")
	var err error
	prompt, err = injections(prompt, "@{", func(path string) (string, error) {
		if inj == nil {
			return "", ErrNeedsSession
		}
		text, err := inj.File(strings.TrimSpace(path))
		if err != nil {
			return "", fmt.Errorf("@{%s}: %w", path, err)
		}
		return text, nil
	})
	if err != nil {
		return "", err
	}
	prompt, err = injections(prompt, "!{", func(cmd string) (string, error) {
		if inj == nil {
			return "", ErrNeedsSession
		}
		cmd = strings.ReplaceAll(cmd, "{{args}}", ShellQuote(args))
		out, err := inj.Shell(ctx, strings.TrimSpace(cmd))
		if err != nil {
			return "", fmt.Errorf("!{%s}: %w", cmd, err)
		}
		return out, nil
	})
	if err != nil {
		return "", err
	}
	if usesArgs {
		return strings.ReplaceAll(prompt, "{{args}}", args), nil
	}
	if args != "" {
		prompt = strings.TrimRight(prompt, "\n") + "\n\n/" + s.Name + " " + args
	}
	return prompt, nil
}

// injections replaces every open...} (braces inside balanced) with what
// fn returns for the text between them.
func injections(prompt, open string, fn func(string) (string, error)) (string, error) {
	var b strings.Builder
	for {
		i := strings.Index(prompt, open)
		if i < 0 {
			b.WriteString(prompt)
			return b.String(), nil
		}
		b.WriteString(prompt[:i])
		rest := prompt[i+len(open):]
		depth, end := 1, -1
		for j, c := range rest {
			switch c {
			case '{':
				depth++
			case '}':
				depth--
			}
			if depth == 0 {
				end = j
				break
			}
		}
		if end < 0 {
			return "", fmt.Errorf("%s... is not closed: the text inside must have balanced braces", open)
		}
		out, err := fn(rest[:end])
		if err != nil {
			return "", err
		}
		b.WriteString(out)
		prompt = rest[end+1:]
	}
}

// ShellQuote quotes s as one word for a POSIX shell.
func ShellQuote(s string) string {
	if s == "" {
		return "''"
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
