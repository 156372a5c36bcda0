package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ollm/ollm/core/bus"
	"github.com/ollm/ollm/core/policy"
	"github.com/ollm/ollm/core/tool"
	"github.com/ollm/ollm/schema"
	"github.com/ollm/ollm/store"
	"github.com/ollm/ollm/tools"
	"github.com/spf13/cobra"
)

func newCmdTools(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "tools",
		Short: "List and call the built-in tools",
		Long: `The built-in tools are what the model acts through: reading, writing and
editing files, searching, running commands, fetching web pages, memory and
todos. These commands show them and call one by hand, through the same
validation and policy gate the agent uses.`,
		Example: `  ollm tools list
  ollm tools call read_file '{"path":"README.md","endLine":20}'`,
		Args: noArgs,
	}
	cmd.AddCommand(newCmdToolsList(f), newCmdToolsCall(f))
	return cmd
}

// toolsFor builds the built-in tools for the resolved profile.
func toolsFor(f *Factory, r *schema.Resolved) ([]tool.Tool, store.Workspace, error) {
	home, err := f.Home()
	if err != nil {
		return nil, store.Workspace{}, err
	}
	ws, err := f.Workspace()
	if err != nil {
		return nil, store.Workspace{}, err
	}
	policy, err := shellPolicy(f, r, home)
	if err != nil {
		return nil, store.Workspace{}, err
	}
	cfg := tools.Config{
		Root: ws.Root, ExtraDirs: r.Profile.Tools.ExtraDirs, Tools: r.Profile.Tools,
		Home: home, Workspace: ws, HTTP: &http.Client{Timeout: 60 * time.Second},
		Environ: f.Environ, Getenv: f.Getenv,
		Sandbox: policy, SandboxRequired: r.Profile.Sandbox.Required,
	}
	return tools.Builtin(cfg), ws, nil
}

// ToolsListOptions are the options of `ollm tools list`.
type ToolsListOptions struct {
	IO    *IOStreams
	Load  func() (*schema.Resolved, error)
	Tools func(*schema.Resolved) ([]tool.Tool, error)
	JSON  bool
}

func newCmdToolsList(f *Factory) *cobra.Command {
	opts := &ToolsListOptions{IO: f.IO, Load: f.LoadProfile, Tools: func(r *schema.Resolved) ([]tool.Tool, error) {
		ts, _, err := toolsFor(f, r)
		return ts, err
	}}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the built-in tools with their kind and risk",
		Long: `List the built-in tools in alphabetical order, each with its kind (read,
search, edit, execute, fetch, think), its default risk and the first line of
its description. Tools in tools.disabled are left out. --json prints the
provider-neutral definitions (name, description, parameter schema) the model
is offered.`,
		Args: noArgs,
		Example: `  ollm tools list
  ollm tools list --json | jq '.[].name'`,
		RunE: func(cmd *cobra.Command, args []string) error { return toolsListRun(opts) },
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print name, kind, risk and parameter schema as JSON")
	return cmd
}

// toolListing is one line of `tools list --json`.
type toolListing struct {
	tool.Definition
	Kind tool.Kind `json:"kind"`
	Risk tool.Risk `json:"risk"`
}

func toolsListRun(opts *ToolsListOptions) error {
	r, err := opts.Load()
	if err != nil {
		return err
	}
	ts, err := opts.Tools(r)
	if err != nil {
		return err
	}
	list := tool.NewRegistry(ts...).List()
	if opts.JSON {
		out := make([]toolListing, len(list))
		for i, t := range list {
			out[i] = toolListing{Definition: tool.DefinitionOf(t), Kind: t.Kind(), Risk: policy.RiskOf(policy.FactsOf(t))}
		}
		return writeJSON(opts.IO.Out, out)
	}
	tw := tabwriter.NewWriter(opts.IO.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tKIND\tRISK\tDESCRIPTION")
	for _, t := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", t.Name(), t.Kind(), policy.RiskOf(policy.FactsOf(t)), firstLine(t.Description()))
	}
	return tw.Flush()
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// ToolsCallOptions are the options of `ollm tools call`.
type ToolsCallOptions struct {
	IO     *IOStreams
	Load   func() (*schema.Resolved, error)
	Tools  func(*schema.Resolved) ([]tool.Tool, error)
	Name   string
	Args   string
	Mode   string
	Yes    bool
	JSON   bool
	Prompt func(question string) (bool, error)
}

func newCmdToolsCall(f *Factory) *cobra.Command {
	opts := &ToolsCallOptions{IO: f.IO, Load: f.LoadProfile, Tools: func(r *schema.Resolved) ([]tool.Tool, error) {
		ts, _, err := toolsFor(f, r)
		return ts, err
	}}
	opts.Prompt = func(q string) (bool, error) { return promptYesNo(f.Context, f.IO, q) }
	cmd := &cobra.Command{
		Use:   "call <tool> <json-args>",
		Short: "Call a built-in tool through validation and the policy gate",
		Long: `Call one built-in tool with JSON arguments, as the model would. The
arguments are validated against the tool's schema (errors name the
parameter, exit 2), then the profile's policy decides: deny stops the call
(exit 4); ask shows what would run and asks on a terminal, and otherwise
stops the call (exit 4) unless --yes is given. The tool's answer for the
model is printed on stdout; a failed call exits 1.`,
		Args: exactArgs(2),
		Example: `  ollm tools call read_file '{"path":"go.mod"}'
  ollm tools call grep '{"pattern":"TODO","filePattern":"*.go"}'
  ollm tools call shell '{"command":"go test ./..."}' --yes
  ollm tools call write_file '{"path":"x.txt","content":"hi"}' --mode plan   # denied: plan is read-only`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Name, opts.Args = args[0], args[1]
			return toolsCallRun(cmd, opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Mode, "mode", "", "policy `MODE` for this call: default, auto_edit, plan or yolo")
	fl.BoolVarP(&opts.Yes, "yes", "y", false, "approve a call the policy asks about")
	fl.BoolVar(&opts.JSON, "json", false, "print the decision and the result as JSON")
	return cmd
}

func toolsCallRun(cmd *cobra.Command, opts *ToolsCallOptions) error {
	r, err := opts.Load()
	if err != nil {
		return err
	}
	warnHeld(opts.IO, r, true)
	ts, err := opts.Tools(r)
	if err != nil {
		return err
	}
	reg := tool.NewRegistry(ts...)
	t, ok := reg.Get(opts.Name)
	if !ok {
		return &FlagError{Err: fmt.Errorf("no tool %q; `ollm tools list` shows them", opts.Name)}
	}
	inv, err := t.Build(json.RawMessage(opts.Args))
	if err != nil {
		var te *tool.Error
		if errors.As(err, &te) && te.Kind == tool.ErrInvalidParams {
			return &FlagError{Err: err}
		}
		return err
	}
	d, err := decideCall(r, opts.Mode, t, inv)
	if err != nil {
		return err
	}
	if err := gate(opts, t, inv, d); err != nil {
		return err
	}
	res, err := inv.Execute(cmd.Context(), nil)
	if err != nil {
		return err
	}
	return printCallResult(opts, d, res)
}

// decideCall compiles the profile's policy (with --mode over the profile's
// mode) and decides the call on its final arguments. r comes from
// f.LoadProfile (gated), so an unapproved workspace's allow rules and looser modes
// are held back, as in a session and `ollm policy check`.
func decideCall(r *schema.Resolved, mode string, t tool.Tool, inv tool.Invocation) (policy.Decision, error) {
	pol, err := compilePolicy(r, mode)
	if err != nil {
		return policy.Decision{}, err
	}
	return pol.DecideJSON(policy.FactsOf(t), inv.Params())
}

// gate applies the decision: deny and unanswered asks are BlockedErrors.
// A write to a file that decides what runs (tool.Confirmation.Trust) is
// asked on the terminal in every mode, --yes and allow rules
// notwithstanding, and refused without one.
func gate(opts *ToolsCallOptions, t tool.Tool, inv tool.Invocation, d policy.Decision) error {
	c := inv.Confirmation()
	trust := c != nil && c.Trust != ""
	switch {
	case d.Action == policy.Deny:
		return &BlockedError{Err: fmt.Errorf("policy denies %s: %s", t.Name(), d.Reason)}
	case trust:
	case d.Action == policy.Allow:
		return nil
	case opts.Yes:
		return nil
	}
	det := policy.Confirm(policy.FactsOf(t), inv, d)
	if !opts.IO.CanPrompt() {
		if trust {
			return &BlockedError{Err: errors.New(bus.TrustRefusal(det, "--yes and allow rules do not count for such a file and there is no terminal to ask on"))}
		}
		return &BlockedError{Err: fmt.Errorf("policy asks before %s (%s): %s; pass --yes to approve, or add an allow rule", t.Name(), d.Reason, inv.Description())}
	}
	writeConfirmation(opts.IO.ErrOut, det)
	yes, err := opts.Prompt("Run it?")
	if err != nil {
		return err
	}
	if !yes {
		return &BlockedError{Err: fmt.Errorf("%s not approved", t.Name())}
	}
	return nil
}

// writeConfirmation shows a confirmation on a terminal as a person reads
// it: the call, where, what, why, and a diff as a diff (not JSON with the
// diff as an escaped string).
func writeConfirmation(w io.Writer, det policy.Details) {
	head := det.Tool
	if det.Kind != "" || det.Risk != "" {
		head += " (" + joinNonEmpty(", ", string(det.Kind), riskLabel(det.Risk)) + ")"
	}
	if det.Description != "" {
		head += ": " + det.Description
	}
	fmt.Fprintln(w, head)
	row := func(label, v string) {
		if v != "" {
			fmt.Fprintf(w, "  %-8s %s\n", label+":", v)
		}
	}
	row("where", strings.Join(det.Locations, ", "))
	row("command", det.Command)
	if det.Rule != nil {
		row("rule", det.Rule.Label())
	}
	row("reason", det.Reason)
	row("message", det.Message)
	if det.Diff == "" && det.Command == "" && len(det.Params) > 0 && string(det.Params) != "{}" && string(det.Params) != "null" {
		var pretty bytes.Buffer
		if json.Indent(&pretty, det.Params, "    ", "  ") == nil {
			fmt.Fprintf(w, "  args:\n    %s\n", pretty.String())
		}
	}
	if det.Diff != "" {
		fmt.Fprintln(w, "  diff:")
		for _, l := range strings.Split(strings.TrimRight(det.Diff, "\n"), "\n") {
			fmt.Fprintln(w, "    "+l)
		}
	}
}

func riskLabel(r tool.Risk) string {
	if r == "" {
		return ""
	}
	return "risk " + string(r)
}

func promptYesNo(ctx context.Context, io *IOStreams, q string) (bool, error) {
	fmt.Fprintf(io.ErrOut, "%s [y/N] ", q)
	io.DropTypeAhead()
	line, err := io.ReadAnswer(ctx, bufio.NewReader(io.In))
	if err != nil {
		return false, ErrCancelled
	}
	a := strings.ToLower(strings.TrimSpace(line))
	return a == "y" || a == "yes", nil
}

func printCallResult(opts *ToolsCallOptions, d policy.Decision, res tool.Result) error {
	if opts.JSON {
		if err := writeJSON(opts.IO.Out, map[string]any{"decision": d, "result": res}); err != nil {
			return err
		}
	} else {
		fmt.Fprint(opts.IO.Out, res.ForModel)
		if !strings.HasSuffix(res.ForModel, "\n") {
			fmt.Fprintln(opts.IO.Out)
		}
	}
	if res.Error != nil {
		if opts.JSON {
			return &SilentError{Code: ExitError}
		}
		return fmt.Errorf("%s failed: %s", opts.Name, res.Error.Error())
	}
	return nil
}
