package cli

import (
	"bufio"
	"cmp"
	"context"
	"fmt"
	"github.com/ollm/ollm/internal/secrets"
	"github.com/ollm/ollm/profiles"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ollm/ollm/core/hooks"
	"github.com/ollm/ollm/core/skills"
	"github.com/ollm/ollm/schema"
	"github.com/ollm/ollm/store"
)

// TrustOptions are the options of `ollm trust`.
type TrustOptions struct {
	IO      *IOStreams
	Context context.Context // ends on Ctrl-C: the question stops waiting
	Load    func() (*hookSet, error)
	Now     func() time.Time
	By      string
	Revoke  bool
	Yes     bool
}

func newCmdTrust(f *Factory) *cobra.Command {
	opts := &TrustOptions{IO: f.IO, Context: f.Context, Load: func() (*hookSet, error) { return loadHooks(f) }, Now: f.Now}
	cmd := &cobra.Command{
		Use:   "trust",
		Short: "Review and approve what this workspace's profile runs",
		Long: `A workspace cannot trust itself. Until you approve it, nothing the
workspace brings that widens what runs takes effect: every value of its
ollm.cue (and of the team profiles it extends) that makes something run,
read, send or be allowed - hooks, MCP servers, server env, endpoints and
key variables, extra directories, env pass-through, allow rules, looser
modes, extension directories, switching off or shortening hooks - its
.mcp.json servers and its .ollm/extensions. Narrowing values (deny and ask
rules, lower limits, disabled tools) apply at once.

trust prints the plan it approves: the hooks and servers that would run
(the workspace's own and those of the store extensions its ollm.lock
pins) and every widening value with its file:line. It then approves the
digest over everything the workspace brings (profile files, ollm.lock,
.mcp.json, .claude/settings*.json, .ollm/extensions, local paths inside
it) and the listed hooks at their current hashes, so one review covers
both. Any change asks again. --revoke takes the approval back.`,
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
	if s.none != nil {
		return s.none // the home directory: no workspace to approve
	}
	t := s.r.Trust
	if t.Digest == "" {
		fmt.Fprintf(opts.IO.Out, "the workspace %s brings no profile, lock, .mcp.json, Claude settings or extensions: nothing to approve\n", s.ws.Root)
		return nil
	}
	printTrustPlan(opts.IO.Out, s)
	if t.Unapprovable != "" {
		return &SecurityError{Err: fmt.Errorf("the workspace cannot be approved: %s", t.Unapprovable)}
	}
	if t.Approved && !t.Gated && approvedAt(s) {
		fmt.Fprintln(opts.IO.Out, "this workspace is approved at this digest already")
		return nil
	}
	if err := confirmTrust(opts); err != nil {
		return err
	}
	return approveWorkspace(opts, s, t.Digest)
}

// approvedAt reports whether the approval file holds this digest (not only
// hooks.trustWorkspace from the user profile).
func approvedAt(s *hookSet) bool {
	tw, err := store.LoadTrustedWorkspaces(s.home.TrustedWorkspaces())
	return err == nil && tw.Approved(s.ws.Root, s.r.Trust.Digest)
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
	opts.IO.DropTypeAhead()
	line, err := opts.IO.ReadAnswer(opts.Context, bufio.NewReader(opts.IO.In))
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
		approvals = append(approvals, store.HookApproval{Source: h.ID(), Hash: hash, Permissions: h.Permissions(), Code: hooks.ApprovalOf(h, hash).Code, ApprovedAt: now, ApprovedBy: opts.By})
	}
	if len(approvals) > 0 {
		if err := store.ApproveHooks(s.home.TrustedHooks(), approvals...); err != nil {
			return err
		}
	}
	fmt.Fprintf(opts.IO.Out, "approved workspace %s (%d hooks)\n", s.ws.Root, len(approvals))
	return nil
}

// workspaceHooks are the hooks the workspace brings: its own (profile,
// team profiles it extends, .ollm/extensions, directories it declares)
// and those of the store extensions its lock pins.
func workspaceHooks(s *hookSet) []*hooks.Hook {
	var out []*hooks.Hook
	for _, h := range s.reg.All() {
		if h.Scope == schema.ScopeWorkspace || h.Scope == schema.ScopeStore {
			out = append(out, h)
		}
	}
	return out
}

// printTrustPlan shows everything the approval covers: what would run, and
// every widening value held back until then.
func printTrustPlan(w io.Writer, s *hookSet) {
	t := s.r.Trust
	fmt.Fprintf(w, "workspace %s\ndigest    %s\n", s.ws.Root, t.Digest)
	n := 0
	line := func(format string, a ...any) {
		n++
		fmt.Fprintf(w, format+"\n", a...)
	}
	// Shown redacted (no literal secret, no URL credential); below each
	// server and hook, every variable or written secret it sends and where.
	red := profiles.Redact(s.r)
	server := func(name string, srv, shown schema.MCPServer) {
		target := strings.TrimSpace(shown.Command + " " + strings.Join(shown.Args, " ") + shown.URL)
		line("mcp server %-24s %s", name, target)
		if shown.URL == "" {
			target = "the server's process"
		}
		for _, what := range profiles.Sends(srv) {
			line("  sends    %-24s %s to %s", name, what, target)
		}
	}
	for _, x := range workspaceHooks(s) {
		line("hook       %-24s %-14s %s (%s)", x.QualifiedName(), x.Event, secrets.RedactURLs(hooks.CommandString(x)), x.Scope)
		for _, what := range profiles.HookSends(x.Def) {
			line("  sends    %-24s %s to the hook's process", x.QualifiedName(), what)
		}
	}
	for _, name := range sortedKeys(s.r.Profile.MCP.Servers) {
		if sc := s.r.ServerScopes[name]; sc != schema.ScopeWorkspace {
			continue
		}
		server(name, s.r.Profile.MCP.Servers[name], red.Profile.MCP.Servers[name])
	}
	for i, x := range s.r.Extensions {
		if x.Scope != schema.ScopeWorkspace && x.Scope != schema.ScopeStore {
			continue
		}
		line("extension  %-24s %s (%s; sandbox %s)", x.Name, x.Dir, x.Scope, permissionsText(x.Manifest.Permissions))
		for _, name := range sortedKeys(x.Manifest.MCPServers) {
			server(x.Name+"/"+name, x.Manifest.MCPServers[name], red.Extensions[i].Manifest.MCPServers[name])
		}
	}
	cmds, errs := skills.LoadProjectCommands(s.ws.GeminiCommands(), s.ws.Root)
	for _, c := range cmds {
		what := "a prompt"
		if strings.Contains(c.Prompt, "!{") {
			what = "runs commands with !{...}"
		}
		rel, _ := filepath.Rel(s.ws.Root, c.File)
		line("command    %-24s %s (Gemini CLI command; %s)", "/"+c.Name, rel, what)
	}
	for _, e := range errs {
		line("refused    %v", e)
	}
	claudeCmds, cwarn := skills.ClaudeCommands("", s.ws.Root, true)
	for _, c := range claudeCmds {
		what := "a prompt"
		if strings.Contains(c.Prompt, "!`") || strings.Contains(c.Prompt, "```!") {
			what = "runs commands with !`...`"
		}
		rel, _ := filepath.Rel(s.ws.Root, c.File)
		line("command    %-24s %s (Claude Code command; %s)", "/"+c.Name, rel, what)
	}
	for _, w := range cwarn {
		line("refused    %s", w)
	}
	styles, swarn := skills.ClaudeOutputStyles("", s.ws.Root, nil, true)
	for _, st := range styles {
		rel, _ := filepath.Rel(s.ws.Root, st.File)
		line("style      %-24s %s (Claude Code output style; changes the system prompt)", st.Name, rel)
	}
	for _, w := range swarn {
		line("refused    %s", w)
	}
	for _, h := range t.Held {
		line("widens     %-24s %s  (%s)", h.Field, h.Value, h.Pos)
	}
	if n == 0 {
		fmt.Fprintln(w, "it runs nothing and widens nothing")
	}
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
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

// permissionsText is what an extension asks its hooks and servers to run
// with, as the plan shows it: the approval covers it.
func permissionsText(p *schema.Sandbox) string {
	if p == nil || p.IsZero() {
		return "default"
	}
	parts := []string{cmp.Or(p.Preset, "default preset")}
	if p.Network != nil {
		parts = append(parts, map[bool]string{true: "network", false: "no network"}[*p.Network])
	}
	if p.Isolate {
		parts = append(parts, "isolated")
	}
	for _, r := range p.Read {
		parts = append(parts, "read "+r)
	}
	for _, w := range p.Write {
		parts = append(parts, "write "+w)
	}
	return strings.Join(parts, ", ")
}
