package acp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/ollm/ollm/core/mcp"
	"github.com/ollm/ollm/schema"
	"github.com/ollm/ollm/store"
)

// The MCP servers an editor passes in session/new, session/load and
// session/resume come from the editor's settings: the user's own, but
// they start processes or send requests, so each one is asked about in
// the editor's permission prompt the first time (docs/decisions.md).
// "Allow always" records the approval in trusted-hooks.json under
// "acp-mcp:<name>", keyed by the sha256 of the server's configuration
// (transport, command, arguments, environment, URL, headers): any change
// asks again. Approved servers run as the profile's do: in the profile's
// MCP sandbox, their tools through the gate.

// editorServerSource is the approval's stable id.
func editorServerSource(name string) string { return "acp-mcp:" + name }

// Options of the question about an editor's server.
const (
	serverAlways  = "approve_always"
	serverSession = "approve_session"
	serverRefuse  = "refuse"
)

// editorSpec turns an editor's server into ollm's, with the hash its
// approval is keyed by and the lines that describe it (values of
// variables and headers hidden).
func editorSpec(s sdk.McpServer) (spec mcp.Spec, hash string, desc []string, err error) {
	c := schema.MCPServer{Enabled: true}
	switch {
	case s.Stdio != nil:
		c.Transport, c.Command, c.Args = "stdio", s.Stdio.Command, s.Stdio.Args
		c.Env = map[string]string{}
		for _, v := range s.Stdio.Env {
			c.Env[v.Name] = v.Value
		}
		spec.Name = s.Stdio.Name
		desc = append(desc, "command: "+strings.TrimSpace(c.Command+" "+strings.Join(c.Args, " ")))
		desc = append(desc, hidden("env", c.Env)...)
	case s.Http != nil:
		c.Transport, c.URL, c.Headers = "http", s.Http.Url, headers(s.Http.Headers)
		spec.Name = s.Http.Name
		desc = append(desc, "url: "+c.URL)
		desc = append(desc, hidden("header", c.Headers)...)
	case s.Sse != nil:
		c.Transport, c.URL, c.Headers = "sse", s.Sse.Url, headers(s.Sse.Headers)
		spec.Name = s.Sse.Name
		desc = append(desc, "url (SSE): "+c.URL)
		desc = append(desc, hidden("header", c.Headers)...)
	default:
		return spec, "", nil, fmt.Errorf("an MCP server over a transport ollm does not offer (mcpCapabilities: http, sse) was not started")
	}
	if spec.Name == "" {
		return spec, "", nil, fmt.Errorf("an MCP server without a name was not started")
	}
	spec.Config, spec.Scope = c, schema.ScopeUser
	b, _ := json.Marshal(struct {
		T, Cmd, URL string
		Args        []string
		Env, Hdr    map[string]string
	}{c.Transport, c.Command, c.URL, c.Args, c.Env, c.Headers}) // maps marshal sorted
	sum := sha256.Sum256(b)
	return spec, "sha256:" + hex.EncodeToString(sum[:]), desc, nil
}

func headers(hs []sdk.HttpHeader) map[string]string {
	out := map[string]string{}
	for _, h := range hs {
		out[h.Name] = h.Value
	}
	return out
}

// hidden lists names with their values hidden: they are often secrets.
func hidden(what string, m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, fmt.Sprintf("%s: %s=…", what, k))
	}
	sort.Strings(out)
	return out
}

// startEditorServers starts the servers the editor passed that are
// approved, or that the user approves now, in the background; the others
// are not started, and the editor is told so. It returns those started.
func (s *session) startEditorServers(ctx context.Context, servers []sdk.McpServer) []startedServer {
	path := s.a.opts.Home.TrustedHooks()
	var started []startedServer
	for _, es := range servers {
		spec, hash, desc, err := editorSpec(es)
		if err != nil {
			s.notice(err.Error())
			continue
		}
		if !s.editorServerApproved(ctx, path, spec.Name, hash, desc) {
			s.notice(fmt.Sprintf("MCP server %s from the editor was refused and not started", spec.Name))
			continue
		}
		if err := s.rt.StartServer(spec); err != nil {
			s.notice(err.Error())
			continue
		}
		started = append(started, startedServer{name: spec.Name, from: " (from the editor)"})
	}
	return started
}

// editorServerApproved looks the approval up, and asks when there is
// none for this configuration.
func (s *session) editorServerApproved(ctx context.Context, path, name, hash string, desc []string) bool {
	if t, err := store.LoadTrustedHooks(path); err == nil {
		if a, ok := t.Lookup(editorServerSource(name)); ok && a.Hash == hash {
			return true
		}
	}
	title := fmt.Sprintf("Start MCP server %s from the editor's settings?", name)
	detail := "```\n" + strings.Join(desc, "\n") + "\n```\nIt runs with ollm's MCP sandbox, its tools through ollm's policy. " +
		"\"Always\" is remembered while its configuration is unchanged."
	switch s.ask(ctx, "mcp-editor:"+name, title, detail, []sdk.PermissionOption{
		{OptionId: serverAlways, Name: "Always allow", Kind: sdk.PermissionOptionKindAllowAlways},
		{OptionId: serverSession, Name: "Allow for this session", Kind: sdk.PermissionOptionKindAllowOnce},
		{OptionId: serverRefuse, Name: "Refuse", Kind: sdk.PermissionOptionKindRejectOnce},
	}) {
	case serverAlways:
		if err := store.ApproveHooks(path, store.HookApproval{Source: editorServerSource(name), Hash: hash,
			ApprovedAt: s.a.opts.Now().UTC().Truncate(time.Second), ApprovedBy: "ollm acp"}); err != nil {
			s.notice(fmt.Sprintf("the approval of MCP server %s was not saved: %v", name, err))
		}
		return true
	case serverSession:
		return true
	}
	return false
}
