package cli

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ollm/ollm/core/hooks"
	"github.com/ollm/ollm/schema"
	"github.com/ollm/ollm/store"
)

// TrustOptions are the options of `ollm trust`.
type TrustOptions struct {
	IO     *IOStreams
	Load   func() (*hookSet, error)
	Now    func() time.Time
	By     string
	Revoke bool
	Yes    bool
}

func newCmdTrust(f *Factory) *cobra.Command {
	opts := &TrustOptions{IO: f.IO, Load: func() (*hookSet, error) { return loadHooks(f) }, Now: f.Now}
	cmd := &cobra.Command{
		Use:   "trust",
		Short: "Review and approve what this workspace's profile runs",
		Long: `A workspace cannot trust itself. Until you approve it, nothing in the
workspace's ollm.cue, ollm.lock and .mcp.json that runs code or loosens
policy takes effect: its hooks, MCP servers, workspace extensions, allow
rules and the auto_edit/yolo modes. Deny and ask rules apply at once.

trust shows what the workspace would run and which rules would loosen
policy, then approves the digest of those three files (and the hooks of the
workspace at their current hashes). Any change to the files asks again.
--revoke takes the approval back.`,
		Args: noArgs,
		Example: `  ollm trust            # review, then answer the prompt
  ollm trust --yes      # approve without a prompt (scripts, CI)
  ollm trust --revoke`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.By = approvedBy(f)
			if opts.Revoke {
				return trustRevokeRun(opts)
			}
			return trustRun(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Revoke, "revoke", false, "withdraw the approval of this workspace")
	cmd.Flags().BoolVarP(&opts.Yes, "yes", "y", false, "approve without asking")
	return cmd
}

func trustRun(opts *TrustOptions) error {
	s, err := opts.Load()
	if err != nil {
		return err
	}
	approved, digest, err := hooks.WorkspaceApproved(s.home, s.ws)
	if err != nil {
		return err
	}
	if digest == "" {
		fmt.Fprintf(opts.IO.Out, "no workspace profile in %s: nothing to approve\n", s.ws.Root)
		return nil
	}
	_, held := hooks.GateWorkspace(s.r, false)
	printHeld(opts.IO.Out, s, held, digest)
	if approved {
		fmt.Fprintln(opts.IO.Out, "this workspace is approved at this digest already")
		return nil
	}
	if err := confirmTrust(opts); err != nil {
		return err
	}
	return approveWorkspace(opts, s, digest)
}

// confirmTrust asks, unless --yes; without a terminal it refuses.
func confirmTrust(opts *TrustOptions) error {
	if opts.Yes {
		return nil
	}
	if !opts.IO.CanPrompt() {
		return &SecurityError{Err: fmt.Errorf("not approved: no terminal to ask; review the list above and run `ollm trust --yes`")}
	}
	fmt.Fprint(opts.IO.Out, "Approve this workspace? [y/N] ")
	line, err := bufio.NewReader(opts.IO.In).ReadString('\n')
	if err != nil && err != io.EOF {
		return err
	}
	if a := strings.ToLower(strings.TrimSpace(line)); a != "y" && a != "yes" {
		return &SecurityError{Err: fmt.Errorf("not approved")}
	}
	return nil
}

func approveWorkspace(opts *TrustOptions, s *hookSet, digest string) error {
	now := opts.Now().UTC()
	err := store.ApproveWorkspace(s.home.TrustedWorkspaces(), store.WorkspaceApproval{Root: s.ws.Root, Digest: digest, ApprovedAt: now, ApprovedBy: opts.By})
	if err != nil {
		return err
	}
	var approvals []store.HookApproval
	for _, h := range workspaceHooks(s) {
		hash, err := hooks.HookHash(h, s.cwd(h), hooks.HashDir)
		if err != nil {
			return fmt.Errorf("hook %s: %w", h.QualifiedName(), err)
		}
		approvals = append(approvals, store.HookApproval{Source: h.ID(), Hash: hash, ApprovedAt: now, ApprovedBy: opts.By})
	}
	if len(approvals) > 0 {
		if err := store.ApproveHooks(s.home.TrustedHooks(), approvals...); err != nil {
			return err
		}
	}
	fmt.Fprintf(opts.IO.Out, "approved workspace %s (%d hooks)\n", s.ws.Root, len(approvals))
	return nil
}

// workspaceHooks are the hooks that came from the workspace itself.
func workspaceHooks(s *hookSet) []*hooks.Hook {
	var out []*hooks.Hook
	for _, h := range s.reg.All() {
		if h.Scope == schema.ScopeWorkspace {
			out = append(out, h)
		}
	}
	return out
}

func printHeld(w io.Writer, s *hookSet, h hooks.Held, digest string) {
	fmt.Fprintf(w, "workspace %s\ndigest    %s\n", s.ws.Root, digest)
	if h.Empty() && len(workspaceHooks(s)) == 0 {
		fmt.Fprintln(w, "it runs nothing and loosens no policy")
		return
	}
	for _, x := range workspaceHooks(s) {
		fmt.Fprintf(w, "hook       %-24s %-14s %s\n", x.QualifiedName(), x.Event, hooks.CommandString(x))
	}
	for _, name := range h.Servers {
		srv := s.r.Profile.MCP.Servers[name]
		fmt.Fprintf(w, "mcp server %-24s %s\n", name, strings.TrimSpace(srv.Command+" "+strings.Join(srv.Args, " ")+srv.URL))
	}
	for _, x := range h.Extensions {
		fmt.Fprintf(w, "extension  %s\n", x)
	}
	for _, d := range h.Directories {
		fmt.Fprintf(w, "extension directory %s\n", d)
	}
	for _, r := range h.AllowRules {
		fmt.Fprintf(w, "allow rule %-24s %s\n", r.Tool, ruleWhen(r))
	}
	if h.Mode != "" {
		fmt.Fprintf(w, "policy mode %s\n", h.Mode)
	}
	if h.Default != "" {
		fmt.Fprintf(w, "policy defaultAction %s\n", h.Default)
	}
}

func ruleWhen(r schema.PolicyRule) string {
	if r.Name != "" {
		return "(" + r.Name + ")"
	}
	if r.When != nil {
		return "(with a condition)"
	}
	return "(always)"
}

func trustRevokeRun(opts *TrustOptions) error {
	s, err := opts.Load()
	if err != nil {
		return err
	}
	found, err := store.RevokeWorkspace(s.home.TrustedWorkspaces(), s.ws.Root)
	if err != nil {
		return err
	}
	var ids []string
	for _, h := range workspaceHooks(s) {
		ids = append(ids, h.ID())
	}
	n := 0
	if len(ids) > 0 {
		if n, err = store.RevokeHooks(s.home.TrustedHooks(), ids...); err != nil {
			return err
		}
	}
	if !found && n == 0 {
		fmt.Fprintf(opts.IO.Out, "workspace %s was not approved\n", s.ws.Root)
		return nil
	}
	fmt.Fprintf(opts.IO.Out, "revoked the approval of workspace %s (%d hook approvals removed)\n", s.ws.Root, n)
	return nil
}
