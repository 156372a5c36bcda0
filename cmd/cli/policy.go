package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/ollm/ollm/core/policy"
	"github.com/ollm/ollm/core/tool"
	"github.com/ollm/ollm/schema"
	"github.com/ollm/ollm/store"
	"github.com/spf13/cobra"
)

func newCmdPolicy(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "policy",
		Short: "Inspect the tool-call policy",
		Long: `Every tool call passes one policy gate: the profile's policy.rules, its
defaultAction and its mode decide allow, ask or deny. Shell commands are
judged sub-command by sub-command, so a denied command chained onto an
allowed one is denied.`,
		Example: `  ollm policy check shell '{"command":"ls && rm -rf build"}'`,
		Args:    noArgs,
	}
	cmd.AddCommand(newCmdPolicyCheck(f))
	return cmd
}

// PolicyCheckOptions are the options of `ollm policy check`.
type PolicyCheckOptions struct {
	IO *IOStreams
	// Load resolves the profile as a session would see it: with an
	// unapproved workspace's allow rules and looser modes held back.
	Load func() (*schema.Resolved, error)
	// Facts describes a tool by name (kind, MCP hints).
	Facts func(r *schema.Resolved, name string) policy.Facts
	// Trust says what a path (as a file tool's argument) decides when it
	// is a trust file (store.TrustPath in the workspace).
	Trust func(path string) (string, bool)
	Tool  string
	Args  string
	Mode  string
	Kind  string
	JSON  bool
}

func newCmdPolicyCheck(f *Factory) *cobra.Command {
	opts := &PolicyCheckOptions{IO: f.IO, Load: f.LoadProfile, Facts: f.toolFacts, Trust: f.trustPath}
	cmd := &cobra.Command{
		Use:   "check <tool> [json-args]",
		Short: "Show what the policy decides for a tool call, and which rule decided",
		Long: `Decide one tool call against the resolved profile's policy without running
it, and print the action (allow, ask or deny), the rule that made it (its
index in policy.rules, name and layer), the risk and the reason. For a
shell command every sub-command is listed with its own decision.

The arguments are the tool's JSON arguments ({} when left out). Built-in
tools are known by kind; other tools count as kind "other" unless --kind
says otherwise, and names such as github:create_issue count as MCP tools.
A workspace profile that has not been approved has its allow rules and
looser modes held back, as in a session.`,
		Example: `  ollm policy check read_file '{"path":"go.mod"}'
  ollm policy check shell '{"command":"go test ./... && git push --force"}'
  ollm policy check write_file '{"path":"a.txt","content":"x"}' --mode plan
  ollm policy check github:create_issue --json`,
		Args: rangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Tool, opts.Args = args[0], "{}"
			if len(args) == 2 {
				opts.Args = args[1]
			}
			return policyCheckRun(opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&opts.Mode, "mode", "", "decide in policy `MODE` (default, auto_edit, plan, yolo) instead of the profile's")
	fl.StringVar(&opts.Kind, "kind", "", "treat a tool that is not built in as this `KIND` (read, search, edit, delete, execute, fetch, think)")
	fl.BoolVar(&opts.JSON, "json", false, "print the decision as JSON")
	return cmd
}

// policyCheckOutput is the --json shape: the decision and what was held back.
type policyCheckOutput struct {
	policy.Decision
	Held []schema.HeldValue `json:"held,omitempty"`
}

func policyCheckRun(opts *PolicyCheckOptions) error {
	var args map[string]any
	if err := json.Unmarshal([]byte(opts.Args), &args); err != nil {
		return &FlagError{Err: fmt.Errorf("json-args %q is not a JSON object (%v); pass one such as '{\"path\":\"go.mod\"}'", opts.Args, err)}
	}
	r, err := opts.Load()
	if err != nil {
		return err
	}
	pol, err := compilePolicy(r, opts.Mode)
	if err != nil {
		return err
	}
	facts := opts.Facts(r, opts.Tool)
	if opts.Kind != "" {
		if facts.Kind = tool.Kind(opts.Kind); !knownKind(facts.Kind) {
			return &FlagError{Err: fmt.Errorf("--kind %q: use read, search, edit, delete, execute, fetch, think or other", opts.Kind)}
		}
	}
	d := pol.Decide(facts, args)
	if why := opts.trust(args); why != "" && d.Action != policy.Deny {
		d.Action, d.Rule = policy.Ask, nil
		d.Reason = "it writes a file that decides what runs (" + why + "); only a person can allow that, one call at a time, in every mode; " + d.Reason
	}
	if opts.JSON {
		enc := json.NewEncoder(opts.IO.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(policyCheckOutput{Decision: d, Held: r.Trust.Held})
	}
	writeDecision(opts.IO.Out, facts, d)
	if n := len(r.Trust.Held); n > 0 {
		fmt.Fprintf(opts.IO.Out, "note:     %d widening value(s) of the workspace (%d allow rules) are held back until `ollm trust` approves it\n", n, heldRules(r.Trust))
	}
	return nil
}

func knownKind(k tool.Kind) bool {
	switch k {
	case tool.KindRead, tool.KindSearch, tool.KindEdit, tool.KindDelete, tool.KindExecute,
		tool.KindFetch, tool.KindThink, tool.KindOther:
		return true
	}
	return false
}

// compilePolicy compiles the resolved policy, with mode over the profile's.
func compilePolicy(r *schema.Resolved, mode string) (*policy.Policy, error) {
	pol, err := policy.Compile(r.Profile.Policy, policy.Options{Layers: r.RuleScopes})
	if err != nil {
		return nil, &ConfigError{Err: err}
	}
	if mode == "" {
		return pol, nil
	}
	m, err := policy.ParseMode(mode)
	if err != nil {
		return nil, &FlagError{Err: err}
	}
	return pol.WithMode(m), nil
}

func writeDecision(w io.Writer, f policy.Facts, d policy.Decision) {
	fmt.Fprintf(w, "decision: %s\n", d.Action)
	fmt.Fprintf(w, "tool:     %s (%s, risk %s)\n", d.Tool, f.Kind, d.Risk)
	fmt.Fprintf(w, "mode:     %s\n", d.Mode)
	if d.Rule != nil {
		fmt.Fprintf(w, "rule:     %s, tool %q\n", d.Rule.Label(), d.Rule.Tool)
	} else {
		fmt.Fprintf(w, "rule:     none\n")
	}
	fmt.Fprintf(w, "reason:   %s\n", d.Reason)
	if d.Message != "" {
		fmt.Fprintf(w, "message:  %s\n", d.Message)
	}
	if len(d.Parts) == 0 {
		return
	}
	fmt.Fprintln(w, "parts:")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, p := range d.Parts {
		rule := "-"
		if p.Rule != nil {
			rule = p.Rule.Label()
		}
		cmd := strings.Join(strings.Fields(p.Command), " ")
		if p.Via != "" {
			cmd += "  (run by " + p.Via + ")"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", p.Action, cmd, rule)
	}
	tw.Flush()
}

// loadGated resolves the profile and holds back what an unapproved
// workspace profile would loosen, as a session does.
// toolFacts describes a built-in tool by its kind and hints; any other
// tool is of kind "other".
func (f *Factory) toolFacts(r *schema.Resolved, name string) policy.Facts {
	ts, _, err := toolsFor(f, r)
	if err == nil {
		for _, t := range ts {
			if t.Name() == name {
				return policy.FactsOf(t)
			}
		}
	}
	return policy.Facts{Name: name, Kind: tool.KindOther}
}

// trust is what the file a write_file or edit_file call names decides,
// when it is a trust file: the gate asks a person about it whatever the
// policy says.
func (o *PolicyCheckOptions) trust(args map[string]any) string {
	if o.Trust == nil || (o.Tool != "write_file" && o.Tool != "edit_file") {
		return ""
	}
	p, _ := args["path"].(string)
	if p == "" {
		return ""
	}
	why, _ := o.Trust(p)
	return why
}

// trustPath is store.TrustPath for a path relative to the workspace root.
func (f *Factory) trustPath(p string) (string, bool) {
	ws, err := f.Workspace()
	if err != nil {
		return "", false
	}
	home, _ := f.Home()
	if !filepath.IsAbs(p) {
		p = filepath.Join(ws.Root, p)
	}
	return store.TrustPath(ws, home.Dir, p)
}
