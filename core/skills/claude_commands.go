package skills

import (
	"context"
	"errors"
	"fmt"
	"github.com/ollm/ollm/internal/lazyre"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ollm/ollm/internal/claudeperm"
)

// Claude Code commands are Markdown files (commands/**/*.md) with
// optional front matter (description, argument-hint, allowed-tools,
// model, disable-model-invocation). A subdirectory namespaces them as
// dir:name (registered as dir-name, as Gemini's TOML commands are). Their
// body is expanded when the user runs them, in Claude Code's way:
// $ARGUMENTS and $1..$9 (and $ARGUMENTS[N]) take the text typed after
// the name, @path inlines a file of the workspace, and !`cmd` and
// ```! blocks run through the session's gate (the shell tool: hooks,
// policy, confirmation, sandbox) before the prompt is sent, their output
// in their place.

// LoadClaudeCommands reads the Claude Code commands under dir for
// extension ("" for the user's and the project's own). check, when set,
// refuses a file (a link out of the workspace) before it is read.
func LoadClaudeCommands(dir, extension string, check func(path string) error) ([]Skill, []error) {
	return loadCommandFiles(dir, ".md", extension, check, ReadClaudeCommand)
}

// ReadClaudeCommand reads one command file found under dir.
func ReadClaudeCommand(dir, path string) (Skill, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Skill{}, err
	}
	text := strings.TrimPrefix(string(data), "\ufeff")
	meta, body := map[string]string{}, text
	if strings.HasPrefix(text, "---\n") || strings.HasPrefix(text, "---\r\n") {
		if meta, body, err = frontMatter(text); err != nil {
			return Skill{}, fmt.Errorf("%s: %w", path, err)
		}
	}
	rel, _ := filepath.Rel(dir, path)
	claude := strings.ReplaceAll(strings.TrimSuffix(filepath.ToSlash(rel), ".md"), "/", ":")
	s := Skill{Name: CommandName(claude), Description: meta["description"], Prompt: strings.TrimSpace(body),
		Source: SourceFolder, File: path, Kind: KindClaudeCommand}
	if s.Name != claude {
		s.Title = claude
	}
	if s.Name == "" {
		return Skill{}, fmt.Errorf("%s: the file name makes no command name; rename it", path)
	}
	if s.Prompt == "" {
		return Skill{}, fmt.Errorf("%s: command %s is empty; write its prompt below the front matter", path, s.Name)
	}
	if s.Description == "" {
		s.Description = firstLine(s.Prompt)
	}
	claudeMeta(&s, meta)
	return s, nil
}

// claudeMeta reads Claude Code's front matter keys of a command or skill.
func claudeMeta(s *Skill, meta map[string]string) {
	s.AllowedTools = claudeperm.Split(meta["allowed-tools"])
	s.Model = strings.TrimSpace(meta["model"])
	s.ArgumentHint = strings.TrimSpace(meta["argument-hint"])
	s.UserOnly = strings.EqualFold(strings.TrimSpace(meta["disable-model-invocation"]), "true")
}

func firstLine(body string) string {
	for _, l := range strings.Split(body, "\n") {
		if l = strings.TrimSpace(strings.TrimLeft(l, "# ")); l != "" {
			if len(l) > 120 {
				l = l[:120]
			}
			return l
		}
	}
	return ""
}

var (
	shellInline = lazyre.New("!`([^`\n]+)`")
	argRef      = lazyre.New(`\$ARGUMENTS\[(\d+)\]|\$ARGUMENTS|\$([1-9])`)
	fileRef     = lazyre.New(`(^|[\s(])@([A-Za-z0-9_.~/][^\s)]*)`)
)

// segment is a piece of a command's body: text, or a shell command.
type segment struct {
	text  string
	shell bool
}

// splitShell cuts body into text and the shell commands of ```! blocks
// and !`...` spans.
func splitShell(body string) []segment {
	var out []segment
	lines := strings.SplitAfter(body, "\n")
	var text strings.Builder
	inline := func(s string) {
		last := 0
		for _, m := range shellInline.Re().FindAllStringSubmatchIndex(s, -1) {
			text.WriteString(s[last:m[0]])
			out = append(out, segment{text: text.String()}, segment{text: s[m[2]:m[3]], shell: true})
			text.Reset()
			last = m[1]
		}
		text.WriteString(s[last:])
	}
	for i := 0; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) != "```!" {
			inline(lines[i])
			continue
		}
		var cmd strings.Builder
		j := i + 1
		for ; j < len(lines) && strings.TrimSpace(lines[j]) != "```"; j++ {
			cmd.WriteString(lines[j])
		}
		if j == len(lines) { // not closed: text
			inline(lines[i])
			continue
		}
		out = append(out, segment{text: text.String()}, segment{text: strings.TrimSpace(cmd.String()), shell: true})
		text.Reset()
		text.WriteString("\n")
		i = j
	}
	return append(out, segment{text: text.String()})
}

// expandClaude expands a Claude Code command for args.
func expandClaude(ctx context.Context, s Skill, args string, inj Injector) (string, error) {
	args = strings.TrimSpace(args)
	words := splitWords(args)
	usesArgs := argRef.MatchString(s.Prompt)
	var b strings.Builder
	for _, seg := range splitShell(s.Prompt) {
		if !seg.shell {
			text, err := inlineFiles(substArgs(seg.text, args, words, false), inj)
			if err != nil {
				return "", err
			}
			b.WriteString(text)
			continue
		}
		if inj == nil {
			return "", ErrNeedsSession
		}
		cmd := substArgs(seg.text, args, words, true)
		out, err := inj.Shell(ctx, cmd)
		if err != nil {
			return "", fmt.Errorf("!`%s`: %w", cmd, err)
		}
		b.WriteString(out)
	}
	prompt := strings.TrimSpace(b.String())
	if !usesArgs && args != "" {
		prompt += "\n\nARGUMENTS: " + args
	}
	return prompt, nil
}

// substArgs puts the arguments in place of $ARGUMENTS, $ARGUMENTS[N] and
// $N; inside a shell command each is quoted as one word.
func substArgs(text, args string, words []string, quote bool) string {
	q := func(s string) string {
		if quote {
			return ShellQuote(s)
		}
		return s
	}
	return argRef.ReplaceAllStringFunc(text, func(m string) string {
		sub := argRef.FindStringSubmatch(m)
		idx := -1
		switch {
		case sub[1] != "":
			idx, _ = strconv.Atoi(sub[1])
		case sub[2] != "":
			idx, _ = strconv.Atoi(sub[2])
			idx--
		default:
			return q(args)
		}
		if idx < len(words) {
			return q(words[idx])
		}
		return q("")
	})
}

// inlineFiles replaces each @path that names a file of the workspace by
// its text; one that does not exist stays as written, one outside the
// workspace is refused in place.
func inlineFiles(text string, inj Injector) (string, error) {
	var err error
	out := fileRef.ReplaceAllStringFunc(text, func(m string) string {
		sub := fileRef.FindStringSubmatch(m)
		lead, path := sub[1], strings.TrimRight(sub[2], ".,;:")
		if !strings.ContainsAny(path, "./") {
			return m // @name without a path: a mention, not a file
		}
		if inj == nil {
			err = ErrNeedsSession
			return m
		}
		body, ferr := inj.File(path)
		switch {
		case errors.Is(ferr, fs.ErrNotExist):
			return m
		case ferr != nil:
			return lead + "[@" + path + " not read: " + ferr.Error() + "]"
		}
		return lead + "@" + path + ":\n```\n" + strings.TrimRight(body, "\n") + "\n```\n" + strings.TrimPrefix(m, lead+"@"+sub[2])
	})
	return out, err
}

// splitWords splits the arguments into words; single or double quotes
// keep spaces inside one word.
func splitWords(s string) []string {
	var out []string
	var cur strings.Builder
	var quote rune
	in := false
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '"' || r == '\'':
			quote, in = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if in {
		out = append(out, cur.String())
	}
	return out
}
