package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/ollm/ollm/core/llm"
	"github.com/ollm/ollm/schema"
)

// ModelOptions are the options of `ollm model list|pull`.
type ModelOptions struct {
	IO      *IOStreams
	Context context.Context
	// Model is the profile's model section (--model applied).
	Model func() (schema.Model, error)
	// Provider builds its client.
	Provider func(schema.Model) (llm.Provider, error)
	JSON     bool
}

func newCmdModel(f *Factory) *cobra.Command {
	opts := &ModelOptions{IO: f.IO, Context: f.Context,
		Model: func() (schema.Model, error) {
			r, err := f.LoadProfile()
			if err != nil {
				return schema.Model{}, err
			}
			return doctorModel(&DoctorOptions{Getenv: f.Getenv}, r), nil
		},
		Provider: func(m schema.Model) (llm.Provider, error) { return llm.New(m, llm.Config{Getenv: f.Getenv}) }}
	cmd := &cobra.Command{
		Use:   "model",
		Short: "List the models the profile's server offers and pull one into Ollama",
		Long: `The model commands talk to the server of the profile's model section
(model.provider, model.endpoint; $OLLAMA_HOST wins over Ollama's default
address): list shows what it offers, pull downloads a model into Ollama.
In a session, /model does the same: it lists the models to pick from and
offers to pull one that is not installed.`,
		Example: `  ollm model list                 # installed models, the profile's marked with *
  ollm model list --json
  ollm model pull qwen3:8b        # download into Ollama, with progress
  ollm model pull                 # the profile's model`,
	}
	list := &cobra.Command{
		Use:   "list",
		Short: "List the models the server offers (Ollama: installed models with size and parameters)",
		Args:  noArgs,
		Example: `  ollm model list
  ollm model list --json | jq -r '.[].name'`,
		RunE: func(cmd *cobra.Command, args []string) error { return modelListRun(opts) },
	}
	list.Flags().BoolVar(&opts.JSON, "json", false, "print the list as JSON")
	pull := &cobra.Command{
		Use:   "pull [NAME]",
		Short: "Download a model into Ollama (the profile's model without NAME)",
		Long: `pull downloads NAME (default: the profile's model) into the Ollama server
the profile points at, showing its progress on stderr. It is what
Ollama's own "ollama pull" does, through the same address ollm uses.`,
		Args: maxArgs(1),
		Example: `  ollm model pull qwen3:8b
  ollm model pull --json qwen3:8b   # one JSON progress object per line on stdout`,
		RunE: func(cmd *cobra.Command, args []string) error {
			name := ""
			if len(args) > 0 {
				name = args[0]
			}
			return modelPullRun(opts, name)
		},
	}
	pull.Flags().BoolVar(&opts.JSON, "json", false, "print each progress line as JSON on stdout")
	cmd.AddCommand(list, pull)
	return cmd
}

func modelProvider(opts *ModelOptions) (schema.Model, llm.Provider, error) {
	m, err := opts.Model()
	if err != nil {
		return m, nil, err
	}
	p, err := opts.Provider(m)
	if err != nil {
		return m, nil, err
	}
	return m, p, nil
}

func modelListRun(opts *ModelOptions) error {
	m, p, err := modelProvider(opts)
	if err != nil {
		return err
	}
	list, err := llm.InstalledModels(opts.Context, p)
	if err != nil {
		return err
	}
	if opts.JSON {
		if list == nil {
			list = []llm.InstalledModel{}
		}
		missingNote(opts, list, m)
		return writeJSON(opts.IO.Out, list)
	}
	if len(list) == 0 {
		fmt.Fprintf(opts.IO.Out, "no models installed; `ollm model pull %s` downloads the profile's\n", m.Name)
		return nil
	}
	tw := tabwriter.NewWriter(opts.IO.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  NAME\tSIZE\tPARAMETERS\tQUANTIZATION")
	for _, x := range list {
		mark := "  "
		if x.Name == m.Name || x.Name == m.Name+":latest" {
			mark = "* "
		}
		size := ""
		if x.Size > 0 {
			size = llm.FormatSize(x.Size)
		}
		fmt.Fprintf(tw, "%s%s\t%s\t%s\t%s\n", mark, x.Name, size, x.ParameterSize, x.Quantization)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	missingNote(opts, list, m)
	return nil
}

// missingNote says on stderr how to get the profile's model when the
// server lacks it.
func missingNote(opts *ModelOptions, list []llm.InstalledModel, m schema.Model) {
	if m.Name == "" || llm.HasModel(list, m.Name) {
		return
	}
	if m.Provider == "" || m.Provider == "ollama" {
		fmt.Fprintf(opts.IO.ErrOut, "the profile's model %s is not installed: `ollm model pull %s` downloads it\n", m.Name, m.Name)
		return
	}
	fmt.Fprintf(opts.IO.ErrOut, "the profile's model %s is not offered by the server\n", m.Name)
}

func modelPullRun(opts *ModelOptions, name string) error {
	m, p, err := modelProvider(opts)
	if err != nil {
		return err
	}
	if name == "" {
		name = m.Name
	}
	pl, ok := p.(llm.Puller)
	if !ok {
		return fmt.Errorf("model.provider %q cannot download models: install %s on that server, or use Ollama", m.Provider, name)
	}
	show := pullPrinter(opts.IO.ErrOut, opts.IO.StderrTTY)
	if opts.JSON {
		show = func(pp llm.PullProgress) { _ = writeJSONLine(opts.IO.Out, pp) }
	}
	if err := pl.Pull(opts.Context, name, show); err != nil {
		if errors.Is(opts.Context.Err(), context.Canceled) {
			return opts.Context.Err()
		}
		return err
	}
	if !opts.JSON {
		fmt.Fprintf(opts.IO.Out, "pulled %s\n", name)
	}
	return nil
}

// pullPrinter prints a pull's progress: on a terminal one line redrawn
// with a bar, otherwise one line per status change.
func pullPrinter(w io.Writer, tty bool) func(llm.PullProgress) {
	last := ""
	return func(pp llm.PullProgress) {
		if tty && pp.Total > 0 {
			f := float64(pp.Completed) / float64(pp.Total)
			k := int(f * 30)
			fmt.Fprintf(w, "\r%s [%s%s] %3.0f%% %s/%s", pp.Status, strings.Repeat("█", k), strings.Repeat("░", 30-k), f*100, llm.FormatSize(pp.Completed), llm.FormatSize(pp.Total))
			if pp.Completed >= pp.Total {
				fmt.Fprintln(w)
			}
			last = pp.Status
			return
		}
		if pp.Status != last {
			if pp.Total > 0 {
				fmt.Fprintf(w, "%s (%s)\n", pp.Status, llm.FormatSize(pp.Total))
			} else {
				fmt.Fprintln(w, pp.Status)
			}
			last = pp.Status
		}
	}
}

func writeJSONLine(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
