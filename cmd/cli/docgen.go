package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// exitCodeDocs is the exit-code table of docs/cli.md, one row per ExitCode
// constant of errors.go (docgen_test.go checks that none is missing).
var exitCodeDocs = []struct {
	Code    ExitCode
	Name    string
	Meaning string
}{
	{ExitOK, "ExitOK", "success"},
	{ExitError, "ExitError", "a command failed (the message says what and where)"},
	{ExitConfig, "ExitConfig", "invalid flags or arguments, an invalid profile, manifest or lock, or `--locked` with a missing or stale lock"},
	{ExitSecurity, "ExitSecurity", "a security check refused: a hash mismatch in the store or untrusted code"},
	{ExitBlocked, "ExitBlocked", "a hook or the policy blocked the operation"},
	{ExitCancelled, "ExitCancelled", "interrupted (SIGINT or SIGTERM)"},
}

// GenerateCLIReference writes docs/cli.md: every command of the tree
// NewCmdRoot builds, depth first in name order, with its usage, aliases,
// description, examples and flags, and the exit codes. The output depends
// only on the command tree: no dates, no environment, sorted.
func GenerateCLIReference(w io.Writer) error {
	f := &Factory{
		IO:      &IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard},
		Getenv:  func(string) string { return "" },
		Environ: func() []string { return nil },
		Getwd:   func() (string, error) { return "/", nil },
		Now:     func() time.Time { return time.Time{} },
		Context: context.Background(),
	}
	root := NewCmdRoot(f)
	root.InitDefaultHelpFlag()
	root.InitDefaultCompletionCmd()
	root.DisableAutoGenTag = true

	var b bytes.Buffer
	b.WriteString("# CLI reference\n\n")
	b.WriteString("<!-- Generated from the cobra command tree by cmd/cli/docgen.go. Do not edit:\n")
	b.WriteString("     regenerate with `go test ./cmd/cli -run TestCLIReference -update` (or UPDATE_DOCS=1). -->\n\n")
	b.WriteString("Every command of `ollm`, generated from the code. `ollm <command> --help`\n")
	b.WriteString("prints the same text. Global flags (below) work with every command.\n\n")

	b.WriteString("## Exit codes\n\n")
	b.WriteString("| code | constant | meaning |\n|---|---|---|\n")
	for _, e := range exitCodeDocs {
		fmt.Fprintf(&b, "| %d | `%s` | %s |\n", e.Code, e.Name, e.Meaning)
	}
	b.WriteString("\n")

	b.WriteString("## Global flags\n\n")
	writeFlags(&b, root.PersistentFlags())

	b.WriteString("## Commands\n\n")
	for _, c := range walkCommands(root) {
		depth := strings.Count(c.CommandPath(), " ")
		fmt.Fprintf(&b, "%s- [`%s`](#%s) - %s\n", strings.Repeat("  ", depth), c.CommandPath(), anchor(c), c.Short)
	}
	b.WriteString("\n")

	for _, c := range walkCommands(root) {
		writeCommand(&b, c)
	}
	out := bytes.TrimRight(b.Bytes(), "\n")
	_, err := w.Write(append(out, '\n'))
	return err
}

// walkCommands lists c and its available descendants, depth first, each
// level in name order (cobra sorts Commands()).
func walkCommands(c *cobra.Command) []*cobra.Command {
	out := []*cobra.Command{c}
	for _, sub := range c.Commands() {
		if !sub.IsAvailableCommand() || sub.IsAdditionalHelpTopicCommand() {
			continue
		}
		out = append(out, walkCommands(sub)...)
	}
	return out
}

// anchor is the GitHub heading anchor of a command's section.
func anchor(c *cobra.Command) string {
	return strings.ReplaceAll(c.CommandPath(), " ", "-")
}

func writeCommand(b *bytes.Buffer, c *cobra.Command) {
	fmt.Fprintf(b, "### %s\n\n", c.CommandPath())
	desc := strings.TrimSpace(c.Long)
	if desc == "" {
		desc = c.Short
	}
	b.WriteString(markdownText(desc) + "\n\n")
	if c.Runnable() {
		fmt.Fprintf(b, "```\n%s\n```\n\n", c.UseLine())
	}
	if len(c.Aliases) > 0 {
		fmt.Fprintf(b, "Aliases: `%s`\n\n", strings.Join(c.Aliases, "`, `"))
	}
	if c.HasExample() {
		fmt.Fprintf(b, "Examples:\n\n```sh\n%s\n```\n\n", strings.TrimRight(c.Example, "\n"))
	}
	if c.HasParent() {
		writeFlagsTitled(b, "Flags", c.NonInheritedFlags())
	} else {
		writeFlagsTitled(b, "Flags", c.LocalNonPersistentFlags())
	}
	var subs []string
	for _, sub := range c.Commands() {
		if sub.IsAvailableCommand() && !sub.IsAdditionalHelpTopicCommand() {
			subs = append(subs, fmt.Sprintf("[`%s`](#%s)", sub.Name(), anchor(sub)))
		}
	}
	if len(subs) > 0 {
		fmt.Fprintf(b, "Subcommands: %s\n\n", strings.Join(subs, ", "))
	}
}

func writeFlagsTitled(b *bytes.Buffer, title string, fs *pflag.FlagSet) {
	if !hasVisibleFlags(fs) {
		return
	}
	fmt.Fprintf(b, "%s:\n\n", title)
	writeFlags(b, fs)
}

// writeFlags prints a flag set as cobra's help does, without --help.
func writeFlags(b *bytes.Buffer, fs *pflag.FlagSet) {
	shown := pflag.NewFlagSet("doc", pflag.ContinueOnError)
	shown.SortFlags = true
	fs.VisitAll(func(fl *pflag.Flag) {
		if fl.Name != "help" && !fl.Hidden {
			shown.AddFlag(fl)
		}
	})
	fmt.Fprintf(b, "```\n%s```\n\n", shown.FlagUsagesWrapped(0))
}

func hasVisibleFlags(fs *pflag.FlagSet) bool {
	n := 0
	fs.VisitAll(func(fl *pflag.Flag) {
		if fl.Name != "help" && !fl.Hidden {
			n++
		}
	})
	return n > 0
}

// markdownText keeps help text from turning into markdown structure: a
// line starting with # would become a heading.
func markdownText(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "#") {
			lines[i] = `\` + l
		}
	}
	return strings.Join(lines, "\n")
}
