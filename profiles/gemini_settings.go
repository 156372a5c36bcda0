package profiles

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/ollm/ollm/core/skills"
	"github.com/ollm/ollm/internal/lazyre"
	"github.com/ollm/ollm/schema"
	"github.com/ollm/ollm/store"
)

// Gemini CLI's settings.json (~/.gemini/settings.json, the user's, and
// <workspace>/.gemini/settings.json) declares MCP servers in mcpServers,
// in the shape of gemini-extension.json: command/args/env/cwd (stdio),
// httpUrl (streamable HTTP), url (SSE, or HTTP with type "http"),
// headers, timeout (ms), includeTools/excludeTools. They load as MCP
// servers of the file's scope: the user's like their own profile's, the
// workspace's held back until the workspace is approved (the file counts
// in the workspace's digest), as .mcp.json's are. A server the profile or
// .mcp.json already declares keeps that definition. A field ollm does not
// apply is one warning naming the file:line and what to do.

// GeminiUserDir is the user's Gemini CLI directory: $GEMINI_CLI_HOME/.gemini
// when set (as Gemini CLI reads it), else ~/.gemini; "" without a home.
func GeminiUserDir() string {
	if h := os.Getenv("GEMINI_CLI_HOME"); h != "" {
		return filepath.Join(h, ".gemini")
	}
	h, err := os.UserHomeDir()
	if err != nil || h == "" {
		return ""
	}
	return filepath.Join(h, ".gemini")
}

// GeminiWorkspaceSettings is the workspace's Gemini CLI settings file.
func GeminiWorkspaceSettings(ws store.Workspace) string {
	if ws.Root == "" {
		return ""
	}
	return filepath.Join(ws.Root, ".gemini", "settings.json")
}

// geminiFile is a Gemini CLI settings file read with the layers: data
// has its comments blanked; err is a read error to report.
type geminiFile struct {
	scope schema.Scope
	path  string
	data  []byte
	err   error
}

// readGeminiSettings reads the user's and the workspace's settings files.
func readGeminiSettings(opts Options) []geminiFile {
	var out []geminiFile
	if d := GeminiUserDir(); d != "" {
		out = append(out, readGeminiFile(schema.ScopeUser, filepath.Join(d, "settings.json")))
	}
	if p := GeminiWorkspaceSettings(opts.Workspace); p != "" {
		out = append(out, readGeminiFile(schema.ScopeWorkspace, p))
	}
	kept := out[:0]
	for _, f := range out {
		if f.data != nil || f.err != nil {
			kept = append(kept, f)
		}
	}
	return kept
}

func readGeminiFile(scope schema.Scope, path string) geminiFile {
	data, err := skills.ReadGeminiSettings(path)
	return geminiFile{scope: scope, path: path, data: data, err: err}
}

// geminiKey adds the settings files to the resolution cache key.
func geminiKey(w interface{ Write([]byte) (int, error) }, files []geminiFile) {
	for _, f := range files {
		fmt.Fprintf(w, "gemini\x00%s\x00%s\x00%v\x00%d\x00", f.scope, f.path, f.err, len(f.data))
		w.Write(f.data)
	}
}

// geminiTrustFiles are the workspace's Gemini CLI files that decide what
// it runs, for its digest; only those present, so a workspace without
// them keeps the digest it had.
func geminiTrustFiles(ws store.Workspace) []string {
	p := GeminiWorkspaceSettings(ws)
	if p == "" {
		return nil
	}
	if _, err := os.Lstat(p); err != nil {
		return nil
	}
	return []string{p}
}

// geminiServerFields are the server fields ollm applies; the others are
// named in a warning with what to do.
var geminiServerFields = map[string]bool{
	"command": true, "args": true, "env": true, "cwd": true, "url": true, "httpUrl": true,
	"type": true, "headers": true, "timeout": true, "includeTools": true, "excludeTools": true,
	"description": true,
}

var geminiServerFix = map[string]string{
	"trust":                "nothing is trusted by a file: allow its tools with policy rules in ollm.cue (tool \"mcp:<server>:*\"), see docs/policy.md",
	"oauth":                "configure OAuth in ollm.cue (mcp.servers.<name>.oauth), then `ollm mcp login <name>`",
	"authProviderType":     "configure OAuth in ollm.cue (mcp.servers.<name>.oauth), then `ollm mcp login <name>`",
	"targetAudience":       "ollm has no Google service-account authentication; pass a token in headers instead",
	"targetServiceAccount": "ollm has no Google service-account authentication; pass a token in headers instead",
	"tcp":                  "ollm speaks stdio, SSE and streamable HTTP; run the server over one of them",
}

// parseGeminiServers reads the mcpServers of a settings file. Problems
// name the file:line of each server or field that is not loaded.
func parseGeminiServers(f geminiFile) (map[string]schema.MCPServer, []schema.Problem) {
	var probs []schema.Problem
	doc, err := parseJSONDoc(f.path, f.data)
	if err != nil {
		return nil, []schema.Problem{{Severity: "error", File: f.path, Pos: doc.errPos(err),
			Message: fmt.Sprintf("Gemini CLI settings are not valid JSON, their mcpServers are not loaded: %v", err),
			Fix:     "fix " + f.path + ", then run `ollm profile validate`"}}
	}
	var top struct {
		MCPServers map[string]json.RawMessage `json:"mcpServers"`
	}
	if err := json.Unmarshal(f.data, &top); err != nil {
		return nil, []schema.Problem{{Severity: "error", File: f.path, Pos: doc.pos("mcpServers"),
			Message: fmt.Sprintf("Gemini CLI settings: mcpServers: %v; no server of this file is loaded", err),
			Fix:     "make mcpServers an object of server names to {command, args, ...} or {httpUrl, ...}"}}
	}
	out := map[string]schema.MCPServer{}
	for _, name := range sortedRawKeys(top.MCPServers) {
		raw := top.MCPServers[name]
		var s struct {
			GeminiServer
			Type string `json:"type"`
		}
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(raw, &s); err != nil || json.Unmarshal(raw, &fields) != nil {
			probs = append(probs, schema.Problem{Severity: "warning", File: f.path, Pos: doc.pos("mcpServers", name),
				Message: fmt.Sprintf("Gemini CLI MCP server %q skipped: not in Gemini's shape (%v)", name, err),
				Fix:     "give it command/args (stdio) or httpUrl (HTTP) or url (SSE), as Gemini CLI documents"})
			continue
		}
		for _, k := range sortedRawKeys(fields) {
			if geminiServerFields[k] {
				continue
			}
			fix, known := geminiServerFix[k]
			if !known {
				fix = "remove it to silence this"
			}
			probs = append(probs, schema.Problem{Severity: "warning", File: f.path, Pos: doc.pos("mcpServers", name, k),
				Message: fmt.Sprintf("Gemini CLI MCP server %q: field %s is not applied by ollm; the server loads without it", name, k), Fix: fix})
		}
		s.GeminiServer = s.GeminiServer.WithRefs()
		ms := schema.MCPServer{Command: s.Command, Args: s.Args, Env: s.Env, Cwd: s.Cwd, Headers: s.Headers,
			Timeout: s.Timeout, IncludeTools: s.IncludeTools, ExcludeTools: s.ExcludeTools, Transport: "stdio", Enabled: true}
		switch {
		case s.HTTPURL != "":
			ms.Transport, ms.URL = "http", s.HTTPURL
		case s.URL != "" && (s.Type == "http" || s.Type == "streamable-http"):
			ms.Transport, ms.URL = "http", s.URL
		case s.URL != "":
			ms.Transport, ms.URL = "sse", s.URL
		case strings.TrimSpace(s.Command) == "":
			probs = append(probs, schema.Problem{Severity: "warning", File: f.path, Pos: doc.pos("mcpServers", name),
				Message: fmt.Sprintf("Gemini CLI MCP server %q skipped: it has no command, httpUrl or url", name),
				Fix:     "give it a command (stdio), httpUrl (streamable HTTP) or url (SSE)"})
			continue
		}
		out[name] = ms
	}
	return out, probs
}

// mergeGeminiSettings adds the mcpServers of the Gemini CLI settings
// files to the resolved profile; an unapproved workspace's are held back
// (named in Trust.HeldServers, so `ollm mcp list` shows them waiting).
// gated is the workspace's gate; ungated views merge them as workspace
// servers.
func mergeGeminiSettings(files []geminiFile, r *schema.Resolved, gated bool) []schema.Problem {
	var probs []schema.Problem
	for _, f := range files {
		if f.err != nil {
			probs = append(probs, schema.Problem{Severity: "error", File: f.path,
				Message: fmt.Sprintf("Gemini CLI settings not read, their mcpServers are not loaded: %v", f.err),
				Fix:     "check the file's permissions and size"})
			continue
		}
		servers, ps := parseGeminiServers(f)
		if gated && f.scope == schema.ScopeWorkspace {
			names := make([]string, 0, len(servers))
			for n := range servers {
				if _, mine := r.Profile.MCP.Servers[n]; !mine && !slices.Contains(r.Trust.HeldServers, n) {
					names = append(names, n)
				}
			}
			sort.Strings(names)
			probs = append(probs, ps...)
			if len(names) > 0 {
				r.Trust.HeldServers = append(r.Trust.HeldServers, names...)
				probs = append(probs, schema.Problem{Severity: "warning", File: f.path,
					Message: fmt.Sprintf("workspace not approved: .gemini/settings.json mcpServers held back: %s", strings.Join(names, ", ")),
					Fix:     "review them with `ollm trust` and approve the workspace there"})
			}
			continue
		}
		probs = append(probs, ps...)
		probs = append(probs, addServers(r, servers, f.scope, func(n string) schema.Problem {
			return schema.Problem{Severity: "warning", File: f.path,
				Message: fmt.Sprintf("Gemini CLI MCP server %q is also declared in the profile or .mcp.json; that definition is used", n)}
		})...)
	}
	return probs
}

func sortedRawKeys(m map[string]json.RawMessage) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// geminiVarRE is Gemini CLI's $VAR reference in a settings value, which
// ollm's substitution knows as ${VAR}.
var geminiVarRE = lazyre.New(`\$([A-Za-z_][A-Za-z0-9_]*)`)

// GeminiRefs turns Gemini CLI's $VAR references in s into ${VAR} (a
// ${VAR} stays as it is).
func GeminiRefs(s string) string { return geminiVarRE.ReplaceAllString(s, "$${$1}") }

// WithRefs is g with Gemini's $VAR references made ${VAR} in every value
// ollm substitutes (command, args, env, cwd, URLs, headers).
func (g GeminiServer) WithRefs() GeminiServer {
	g.Command, g.Cwd, g.URL, g.HTTPURL = GeminiRefs(g.Command), GeminiRefs(g.Cwd), GeminiRefs(g.URL), GeminiRefs(g.HTTPURL)
	g.Args = slices.Clone(g.Args)
	for i, a := range g.Args {
		g.Args[i] = GeminiRefs(a)
	}
	g.Env, g.Headers = maps.Clone(g.Env), maps.Clone(g.Headers)
	for _, m := range []map[string]string{g.Env, g.Headers} {
		for k, v := range m {
			m[k] = GeminiRefs(v)
		}
	}
	return g
}
