package cli

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/ollm/ollm/core/ext"
	"github.com/ollm/ollm/core/runtime"
	"github.com/ollm/ollm/core/skills"
)

// SkillsOptions are the options of the `ollm skills` commands.
type SkillsOptions struct {
	IO     *IOStreams
	Ext    *ExtOptions
	Dirs   func() ([]string, error)
	JSON   bool
	Name   string
	Values []string
}

func newCmdSkills(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "skills",
		Short: "List, show and render skills (named prompts and Agent Skills)",
		Long: `Skills are prompt templates with {placeholder}s (the profile's skills, an
extension manifest's skills, MCP prompts), Agent Skills (<dir>/<skill>/SKILL.md
with name and description front matter, in $OLLM_HOME/skills, the workspace
.ollm/skills and an extension's skills/: the body is instructions, with only
the placeholders its front matter declares as arguments) and Gemini CLI
commands (an extension's commands/*.toml). When two extensions use the same
name, call them as extension:skill. In a session, /<name> [text] runs one;
the model loads SKILL.md skills itself with activate_skill.`,
		Example: `  ollm skills list
  ollm skills show review
  ollm skills render review file=main.go`,
	}
	cmd.AddCommand(newCmdSkillsList(f), newCmdSkillsShow(f), newCmdSkillsRender(f))
	return cmd
}

func newSkillsOptions(f *Factory) *SkillsOptions {
	return &SkillsOptions{IO: f.IO, Ext: newExtOptions(f), Dirs: func() ([]string, error) {
		home, err := f.Home()
		if err != nil {
			return nil, err
		}
		ws, _, err := f.WorkspaceOrNone()
		if err != nil {
			return nil, err
		}
		userHome, _ := os.UserHomeDir()
		return runtime.SkillDirs(skills.ClaudeDir(f.Getenv, userHome), home.Skills(), ws), nil
	}}
}

// registry loads every skill: profile, folders, then enabled extensions.
// Problems are printed as warnings; they never stop the others.
func (o *SkillsOptions) registry() (*skills.Registry, error) {
	r, err := o.Ext.Load()
	if err != nil {
		return nil, err
	}
	dirs, err := o.Dirs()
	if err != nil {
		return nil, err
	}
	reg, errs := skills.Base(r.Profile.Skills, dirs...)
	userHome, _ := os.UserHomeDir()
	gem, gwarn := skills.GeminiCommands(userHome, r.Workspace, r.Trust.Approved)
	reg.AddMissing(gem)
	cc, cwarn := skills.ClaudeCommands(skills.ClaudeDir(o.Ext.Getenv, userHome), r.Workspace, r.Trust.Approved)
	reg.AddMissing(cc)
	for _, w := range append(gwarn, cwarn...) {
		errs = append(errs, errors.New(w))
	}
	home, err := o.Ext.Home()
	if err != nil {
		return nil, err
	}
	m := ext.New(r, ext.Options{StateFile: home.ExtensionState(), Home: home.Dir, Skills: reg, Now: o.Ext.Now,
		LookupEnv: lookupEnv(o.Ext.Getenv)})
	// Only skills are registered (no hooks or servers run), so the manager
	// is left open: closing it would take the extensions' skills away.
	st := m.Start(o.Ext.Context)
	errs = append(errs, st.Errors...)
	for _, e := range errs {
		fmt.Fprintf(o.IO.ErrOut, "warning: %v\n", e)
	}
	return reg, nil
}

func newCmdSkillsList(f *Factory) *cobra.Command {
	opts := newSkillsOptions(f)
	cmd := &cobra.Command{
		Use:     "list",
		Short:   "List the skills and their placeholders",
		Args:    noArgs,
		Example: "  ollm skills list\n  ollm skills list --json",
		RunE: func(cmd *cobra.Command, args []string) error {
			reg, err := opts.registry()
			if err != nil {
				return err
			}
			list := reg.List()
			if opts.JSON {
				if list == nil {
					list = []skills.Entry{}
				}
				return writeJSON(opts.IO.Out, list)
			}
			if len(list) == 0 {
				fmt.Fprintln(opts.IO.ErrOut, "no skills; add one to the profile's skills or a SKILL.md under .ollm/skills/<name>/")
				return nil
			}
			tw := tabwriter.NewWriter(opts.IO.Out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tSOURCE\tPLACEHOLDERS\tDESCRIPTION")
			for _, e := range list {
				src := e.Source
				if e.Extension != "" {
					src += " " + e.Extension
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", e.Name, src, dash(strings.Join(e.Placeholders, ",")), e.Description)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the skills as JSON")
	return cmd
}

func newCmdSkillsShow(f *Factory) *cobra.Command {
	opts := newSkillsOptions(f)
	return &cobra.Command{
		Use:     "show <name>",
		Short:   "Print a skill's description, placeholders and template",
		Args:    exactArgs(1),
		Example: "  ollm skills show review\n  ollm skills show my-ext:review",
		RunE: func(cmd *cobra.Command, args []string) error {
			reg, err := opts.registry()
			if err != nil {
				return err
			}
			s, err := reg.Get(args[0])
			if err != nil {
				return err
			}
			w := opts.IO.Out
			fmt.Fprintf(w, "name:         %s\n", s.Qualified())
			if s.Title != "" {
				fmt.Fprintf(w, "title:        %s\n", s.Title)
			}
			fmt.Fprintf(w, "description:  %s\n", s.Description)
			if s.Kind != "" {
				fmt.Fprintf(w, "kind:         %s\n", s.Kind)
			}
			fmt.Fprintf(w, "source:       %s\n", s.Source)
			if s.File != "" {
				fmt.Fprintf(w, "file:         %s\n", s.File)
			}
			fmt.Fprintf(w, "placeholders: %s\n", dash(strings.Join(s.Placeholders(), ", ")))
			fmt.Fprintf(w, "---\n%s\n", s.Prompt)
			return nil
		},
	}
}

func newCmdSkillsRender(f *Factory) *cobra.Command {
	opts := newSkillsOptions(f)
	return &cobra.Command{
		Use:   "render <name> [key=value...]",
		Short: "Print a skill's prompt with its placeholders filled",
		Args:  minArgs(1),
		Example: `  ollm skills render review file=main.go focus="error handling"
  ollm skills render my-ext:review file=main.go`,
		RunE: func(cmd *cobra.Command, args []string) error {
			vals := map[string]string{}
			for _, kv := range args[1:] {
				k, v, ok := strings.Cut(kv, "=")
				if !ok || k == "" {
					return &FlagError{Err: fmt.Errorf("argument %q: want key=value", kv)}
				}
				vals[k] = v
			}
			reg, err := opts.registry()
			if err != nil {
				return err
			}
			out, err := reg.Render(args[0], vals)
			if err != nil {
				return err
			}
			fmt.Fprintln(opts.IO.Out, out)
			return nil
		},
	}
}
