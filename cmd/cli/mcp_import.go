package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ollm/ollm/internal/lazyre"
	"github.com/ollm/ollm/profiles"
	"github.com/ollm/ollm/schema"
)

// MCPImportOptions are the options of `ollm mcp import`.
type MCPImportOptions struct {
	Edit   *MCPEditOptions
	Getenv func(string) string
	GOOS   string

	File         string
	From         string // claude-desktop | gemini | mcp-json ("" : by the file's name)
	Only         []string
	To           string // user | workspace
	DryRun       bool
	Replace      bool
	AllowSecrets bool
}

func newCmdMCPImport(f *Factory) *cobra.Command {
	o := &MCPImportOptions{Edit: newMCPEditOptions(f), Getenv: f.Getenv, GOOS: runtime.GOOS}
	cmd := &cobra.Command{
		Use:   "import [<file>] [--from claude-desktop|gemini]",
		Short: "Copy MCP servers from Claude Desktop, Gemini CLI or a .mcp.json into a profile",
		Long: `Read the mcpServers of Claude Desktop's claude_desktop_config.json, Gemini
CLI's settings.json or a .mcp.json and declare each server in the user
profile ($OLLM_HOME/profile.cue), or with --to workspace in the workspace
ollm.cue, the way ` + "`ollm mcp add`" + ` does. Without a file, --from finds the
file in its usual place: claude-desktop is
~/.config/Claude/claude_desktop_config.json (macOS: ~/Library/Application
Support/Claude/claude_desktop_config.json), gemini is ~/.gemini/settings.json.

command, args, env, cwd, url, httpUrl (streamable HTTP; Gemini's url is
SSE), type, headers, timeout (ms), includeTools and excludeTools are
kept; every other field (Gemini's trust, oauth, tcp, ...) is named in one
warning, with what to do instead. Gemini's $VAR references become ${VAR}.

A server already declared in the file is skipped, saying so: remove it
first (ollm mcp remove NAME) or give --replace. Literal secrets do not
belong in a file that is committed: with --to workspace, an env value or
header whose name looks like a secret (*TOKEN*, *KEY*, *SECRET*,
*PASSWORD*, Authorization) and that is not a ${VAR} reference refuses the
import, naming it, unless --allow-secrets. Keep the value in your
environment and write ${VAR} in the source file instead.`,
		Example: `  ollm mcp import --from claude-desktop
  ollm mcp import --from gemini --only github,fs --dry-run
  ollm mcp import ~/.gemini/settings.json --to workspace
  ollm mcp import other/.mcp.json --replace --json`,
		Args: maxArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				o.File = args[0]
			}
			return mcpImportRun(o)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.From, "from", "", "the source's format, and without a file its usual place: `claude-desktop|gemini|mcp-json`")
	fl.StringSliceVar(&o.Only, "only", nil, "import only these servers (`name,...`)")
	fl.StringVar(&o.To, "to", "user", "the profile to write: `user` ($OLLM_HOME/profile.cue) or workspace (its ollm.cue)")
	fl.BoolVar(&o.DryRun, "dry-run", false, "print what would be added and write nothing")
	fl.BoolVar(&o.Replace, "replace", false, "replace servers of the same name declared in the target file")
	fl.BoolVar(&o.AllowSecrets, "allow-secrets", false, "with --to workspace, copy literal secret-looking values as they are")
	fl.BoolVar(&o.Edit.JSON, "json", false, "print the result as JSON")
	return cmd
}

// importedServer is one server read from the source file.
type importedServer struct {
	Name     string           `json:"name"`
	Server   schema.MCPServer `json:"server"`
	Action   string           `json:"action"` // added | replaced | skipped | would-add | would-replace
	Reason   string           `json:"reason,omitempty"`
	Warnings []string         `json:"warnings,omitempty"`
}

// mcpImportResult is what --json prints.
type mcpImportResult struct {
	Source  string           `json:"source"`
	Format  string           `json:"format"`
	File    string           `json:"file"`
	DryRun  bool             `json:"dryRun,omitempty"`
	Servers []importedServer `json:"servers"`
}

func mcpImportRun(o *MCPImportOptions) error {
	e := o.Edit
	switch o.To {
	case "user", "workspace":
		e.User = o.To == "user"
	default:
		return &FlagError{Err: fmt.Errorf("--to %q: want user or workspace", o.To)}
	}
	src, format, err := o.source()
	if err != nil {
		return err
	}
	data, err := os.ReadFile(src)
	if errors.Is(err, fs.ErrNotExist) {
		return &ConfigError{Err: fmt.Errorf("%s does not exist; give the file to import: ollm mcp import FILE", src)}
	}
	if err != nil {
		return &ConfigError{Err: fmt.Errorf("read %s: %w", src, err)}
	}
	servers, err := parseImport(src, format, data)
	if err != nil {
		return &ConfigError{Err: err}
	}
	if servers, err = onlyServers(src, servers, o.Only); err != nil {
		return &FlagError{Err: err}
	}
	if !e.User && !o.AllowSecrets {
		if err := refuseSecrets(src, servers); err != nil {
			return &ConfigError{Err: err}
		}
	}
	if e.User {
		for i := range servers {
			s := &servers[i]
			s.Server.Command, s.Server.Args = absTyped(filepath.Dir(src), s.Server.Command, s.Server.Args)
			for _, w := range secretsIn(*s) {
				s.Warnings = append(s.Warnings, fmt.Sprintf("%s: mcpServers.%s: %s is copied as a literal secret into your user profile; a ${VAR} reference keeps it out of files", src, s.Name, strings.SplitN(w, " (", 2)[0]))
			}
		}
	}
	pf, err := e.files()
	if err != nil {
		return err
	}
	res := mcpImportResult{Source: src, Format: format, File: pf.path, DryRun: o.DryRun}
	if err := o.write(pf, servers); err != nil {
		return err
	}
	res.Servers = servers
	return o.report(res)
}

// source is the file to read and its format.
func (o *MCPImportOptions) source() (string, string, error) {
	switch o.From {
	case "", "claude-desktop", "gemini", "mcp-json":
	default:
		return "", "", &FlagError{Err: fmt.Errorf("--from %q: want claude-desktop, gemini or mcp-json", o.From)}
	}
	if o.File != "" {
		format := o.From
		if format == "" {
			format = formatOfFile(o.File)
		}
		path, err := filepath.Abs(o.File)
		return path, format, err
	}
	home := o.Getenv("HOME")
	switch {
	case o.From == "" || o.From == "mcp-json":
		return "", "", &FlagError{Err: errors.New("give the file to import, or --from claude-desktop or --from gemini to read it from its usual place")}
	case home == "":
		return "", "", &ConfigError{Err: errors.New("HOME is not set, so the usual place of the file is unknown; give the file to import")}
	case o.From == "gemini":
		return filepath.Join(home, ".gemini", "settings.json"), o.From, nil
	case o.GOOS == "darwin":
		return filepath.Join(home, "Library", "Application Support", "Claude", "claude_desktop_config.json"), o.From, nil
	}
	config := o.Getenv("XDG_CONFIG_HOME")
	if config == "" {
		config = filepath.Join(home, ".config")
	}
	return filepath.Join(config, "Claude", "claude_desktop_config.json"), o.From, nil
}

// formatOfFile guesses the format from the file's name: Gemini's
// settings.json, Claude Desktop's config, else the .mcp.json shape.
func formatOfFile(path string) string {
	switch base := filepath.Base(path); {
	case base == "settings.json" && filepath.Base(filepath.Dir(path)) == ".gemini":
		return "gemini"
	case strings.HasPrefix(base, "claude_desktop_config"):
		return "claude-desktop"
	}
	return "mcp-json"
}

// write declares the servers in one locked edit of the target file (or, for
// a dry run, decides what it would do). Each server's Action says what
// became of it.
func (o *MCPImportOptions) write(pf profileFiles, servers []importedServer) error {
	e := o.Edit
	current, err := os.ReadFile(pf.path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	var todo []int
	for i := range servers {
		s := &servers[i]
		if pos, err := declaredIn(pf.other, s.Name); err != nil || pos != "" {
			if err != nil {
				return err
			}
			s.Action, s.Reason = "skipped", fmt.Sprintf("already declared at %s; remove it there first: ollm mcp remove %s%s", pos, s.Name, userFlag(!e.User))
			continue
		}
		pos, err := profiles.FindMCPServer(pf.path, current, s.Name)
		if err != nil {
			return &ConfigError{Err: err}
		}
		switch {
		case pos != "" && !o.Replace:
			s.Action, s.Reason = "skipped", fmt.Sprintf("already declared at %s; remove it first (ollm mcp remove %s%s) or import with --replace", pos, s.Name, userFlag(e.User))
			continue
		case pos != "":
			s.Action = "replaced"
		default:
			s.Action = "added"
		}
		if o.DryRun {
			s.Action = map[string]string{"added": "would-add", "replaced": "would-replace"}[s.Action]
		}
		todo = append(todo, i)
	}
	if o.DryRun || len(todo) == 0 {
		return nil
	}
	e.Verb = "import"
	return e.edit(pf, func(data []byte) ([]byte, error) {
		for _, i := range todo {
			s := servers[i]
			if s.Action == "replaced" {
				var err error
				if data, err = profiles.RemoveMCPServer(pf.path, data, s.Name); err != nil {
					return nil, err
				}
			}
			var err error
			if data, err = profiles.AddMCPServer(pf.path, data, s.Name, s.Server); err != nil {
				return nil, err
			}
		}
		return data, nil
	})
}

// report prints the warnings (to stderr) and what became of each server.
func (o *MCPImportOptions) report(res mcpImportResult) error {
	io := o.Edit.IO
	for _, s := range res.Servers {
		for _, w := range s.Warnings {
			fmt.Fprintln(io.ErrOut, "warning: "+w)
		}
	}
	if o.Edit.JSON {
		return writeJSON(io.Out, res)
	}
	for _, s := range res.Servers {
		switch s.Action {
		case "skipped":
			fmt.Fprintf(io.Out, "skipped MCP server %s: %s\n", s.Name, s.Reason)
		case "would-add", "would-replace":
			text, err := profiles.AddMCPServer("", nil, s.Name, s.Server)
			if err != nil {
				return err
			}
			fmt.Fprintf(io.Out, "%s MCP server %s in %s:\n%s", strings.Replace(s.Action, "-", " ", 1), s.Name, res.File, text)
		default:
			fmt.Fprintf(io.Out, "%s MCP server %s from %s to %s\n", s.Action, s.Name, res.Source, res.File)
			if o.Edit.Appears != nil {
				fmt.Fprintln(io.Out, o.Edit.Appears(s.Name))
			}
		}
	}
	if len(res.Servers) == 0 {
		fmt.Fprintf(io.Out, "%s declares no MCP servers\n", res.Source)
	}
	return nil
}

// onlyServers keeps the servers named in only (all when only is empty); a
// name the file does not declare is an error.
func onlyServers(src string, servers []importedServer, only []string) ([]importedServer, error) {
	if len(only) == 0 {
		return servers, nil
	}
	want := map[string]bool{}
	for _, n := range only {
		want[strings.TrimSpace(n)] = true
	}
	var out []importedServer
	for _, s := range servers {
		if want[s.Name] {
			out = append(out, s)
			delete(want, s.Name)
		}
	}
	if len(want) > 0 {
		var names []string
		for n := range want {
			names = append(names, n)
		}
		sort.Strings(names)
		return nil, fmt.Errorf("--only: %s declares no MCP server %s", src, strings.Join(names, ", "))
	}
	return out, nil
}

// importKnown are the fields ollm keeps from a server entry.
var importKnown = map[string]bool{
	"command": true, "args": true, "env": true, "cwd": true, "url": true, "httpUrl": true, "type": true,
	"headers": true, "timeout": true, "includeTools": true, "excludeTools": true,
}

// importAdvice says what to do about a field ollm does not honour.
var importAdvice = map[string]string{
	"trust":                "ollm still asks before its tools run; allow them with a policy rule in the profile (docs/policy.md)",
	"oauth":                "ollm finds the authorization server itself; run ollm mcp login NAME, or set mcp.servers.NAME.oauth",
	"authProviderType":     "ollm has no Google credential providers; run ollm mcp login NAME or send a header with a ${VAR} token",
	"targetAudience":       "ollm has no Google credential providers; run ollm mcp login NAME or send a header with a ${VAR} token",
	"targetServiceAccount": "ollm has no Google credential providers; run ollm mcp login NAME or send a header with a ${VAR} token",
	"tcp":                  "ollm speaks stdio, SSE and streamable HTTP only; run the server with one of them",
	"disabled":             "the server is imported enabled; set mcp.servers.NAME.enabled: false to turn it off",
	"description":          "ollm shows the server's own name and instructions",
}

// parseImport reads the mcpServers of a source file, sorted by name, each
// with a warning per field ollm does not honour.
func parseImport(src, format string, data []byte) ([]importedServer, error) {
	var doc struct {
		MCPServers map[string]json.RawMessage `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %v; fix the file or give another", src, err)
	}
	names := make([]string, 0, len(doc.MCPServers))
	for n := range doc.MCPServers {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]importedServer, 0, len(names))
	for _, name := range names {
		s, err := parseImportServer(src, format, name, doc.MCPServers[name])
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// importEntry is the union of the fields the three formats use: Gemini's
// server shape and the type Claude's formats give a url.
type importEntry struct {
	Type string `json:"type"`
	profiles.GeminiServer
}

func parseImportServer(src, format, name string, raw json.RawMessage) (importedServer, error) {
	where := fmt.Sprintf("%s: mcpServers.%s", src, name)
	if !nameRE.MatchString(name) {
		return importedServer{}, fmt.Errorf("%s: the name is not one ollm accepts (letters, digits, '.', '_', '-'); rename it in the file or leave it out with --only", where)
	}
	var fields map[string]json.RawMessage
	var e importEntry
	if err := json.Unmarshal(raw, &fields); err != nil {
		return importedServer{}, fmt.Errorf("%s: %v", where, err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&e); err != nil {
		return importedServer{}, fmt.Errorf("%s: %v", where, err)
	}
	s := importedServer{Name: name}
	for _, k := range sortedKeys(fields) {
		if importKnown[k] || (k == "disabled" && string(fields[k]) == "false") {
			continue
		}
		advice, ok := importAdvice[k]
		if !ok {
			advice = "ollm does not know it"
		}
		s.Warnings = append(s.Warnings, fmt.Sprintf("%s.%s is not imported: %s", where, k, strings.ReplaceAll(advice, "NAME", name)))
	}
	if format == "gemini" {
		e.GeminiServer = e.GeminiServer.WithRefs() // $VAR -> ${VAR}
	}
	cfg, err := importServerConfig(format, e)
	if err != nil {
		return importedServer{}, fmt.Errorf("%s: %v", where, err)
	}
	if cfg.Transport == "" {
		cfg.Transport = "stdio"
	}
	cfg.Enabled = true // as declared (--json shows it so); not written, the default
	s.Server = cfg
	return s, nil
}

// importServerConfig maps an entry onto a server: command is stdio;
// httpUrl is streamable HTTP; url is SSE in Gemini's settings and, in the
// other formats, what type says (or the path: /sse is SSE, else HTTP).
func importServerConfig(format string, e importEntry) (schema.MCPServer, error) {
	cfg := schema.MCPServer{Env: e.Env, Cwd: e.Cwd, Timeout: e.Timeout, IncludeTools: e.IncludeTools, ExcludeTools: e.ExcludeTools}
	if e.Timeout < 0 {
		return cfg, fmt.Errorf("timeout %d: want milliseconds > 0", e.Timeout)
	}
	switch {
	case e.Command != "":
		if e.URL != "" || e.HTTPURL != "" {
			return cfg, errors.New("both command and a url: keep one")
		}
		cfg.Command, cfg.Args = e.Command, e.Args
		return cfg, nil
	case e.HTTPURL != "":
		cfg.URL, cfg.Transport = e.HTTPURL, "http"
	case e.URL != "":
		transport := e.Type
		switch {
		case transport == "streamable-http" || transport == "streamableHttp":
			transport = "http"
		case format == "gemini" && transport == "":
			transport = "sse"
		}
		var err error
		if cfg.Transport, err = urlTransport(e.URL, transport); err != nil {
			return cfg, errors.New(strings.Replace(err.Error(), "--transport", "type", 1))
		}
		cfg.URL = e.URL
	default:
		return cfg, errors.New("no command, url or httpUrl: nothing to start or connect to")
	}
	if len(e.Args) > 0 {
		return cfg, errors.New("args without a command")
	}
	if _, err := urlTransport(cfg.URL, cfg.Transport); err != nil {
		return cfg, errors.New(strings.Replace(err.Error(), "--url", "url", 1))
	}
	cfg.Headers = e.Headers
	return cfg, nil
}

// secretNameRE matches names of env variables, headers, URL parameters
// and --flags that usually hold a credential.
var secretNameRE = lazyre.New(`(?i)token|key|secret|passw(or)?d|credential|authorization|^auth$|cookie`)

// varRefRE is one ${VAR} reference, without a default.
var varRefRE = lazyre.New(`\$\{[A-Za-z_][A-Za-z0-9_]*\}`)

// literalSecret says whether a value under a secret-looking name holds
// more than ${VAR} references (and an auth scheme word before them).
func literalSecret(v string) bool {
	rest := strings.TrimSpace(varRefRE.ReplaceAllString(v, ""))
	for _, scheme := range []string{"Bearer", "Basic", "Token", "token", "bearer"} {
		if rest == scheme {
			return false
		}
	}
	return rest != ""
}

// secretsIn lists where a server holds a literal secret: env keys,
// headers, URL parameters and user info, and --flag=value arguments.
func secretsIn(s importedServer) []string {
	var out []string
	for _, k := range sortedKeys(s.Server.Env) {
		if secretNameRE.MatchString(k) && literalSecret(s.Server.Env[k]) {
			out = append(out, fmt.Sprintf("env %s (write \"${%s}\" and set %s in your environment)", k, k, k))
		}
	}
	for _, k := range sortedKeys(s.Server.Headers) {
		if secretNameRE.MatchString(k) && literalSecret(s.Server.Headers[k]) {
			out = append(out, fmt.Sprintf("header %s (write e.g. \"Bearer ${%s_TOKEN}\")", k, strings.ToUpper(nameEnv(s.Name))))
		}
	}
	if u, err := url.Parse(s.Server.URL); err == nil && s.Server.URL != "" {
		if p, ok := u.User.Password(); ok && literalSecret(p) {
			out = append(out, "the password in url")
		}
		for k, vs := range u.Query() {
			for _, v := range vs {
				if secretNameRE.MatchString(k) && literalSecret(v) {
					out = append(out, fmt.Sprintf("url parameter %s", k))
				}
			}
		}
	}
	for i, a := range s.Server.Args {
		k, v, ok := strings.Cut(a, "=")
		if ok && strings.HasPrefix(k, "-") && secretNameRE.MatchString(k) && literalSecret(v) {
			out = append(out, fmt.Sprintf("args[%d] %s", i, k))
		}
	}
	return out
}

// nameEnv makes a server name usable in a variable name.
func nameEnv(name string) string {
	return strings.Map(func(r rune) rune {
		if r == '.' || r == '-' {
			return '_'
		}
		return r
	}, name)
}

// refuseSecrets is the error naming every literal secret the servers
// would write into a workspace file, nil when there is none.
func refuseSecrets(src string, servers []importedServer) error {
	var lines []string
	for _, s := range servers {
		for _, w := range secretsIn(s) {
			lines = append(lines, fmt.Sprintf("  mcpServers.%s: %s", s.Name, w))
		}
	}
	if len(lines) == 0 {
		return nil
	}
	return fmt.Errorf("%s holds literal values that look like secrets; the workspace ollm.cue is usually committed, so nothing was imported:\n%s\nreplace each with a ${VAR} reference in %s, leave the server out with --only, import it into your user profile (--to user), or copy them as they are with --allow-secrets",
		src, strings.Join(lines, "\n"), src)
}
