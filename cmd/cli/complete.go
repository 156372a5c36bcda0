package cli

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ollm/ollm/core/hooks"
	"github.com/ollm/ollm/core/mcp"
	"github.com/ollm/ollm/profiles"
	"github.com/ollm/ollm/schema"
	"github.com/ollm/ollm/store"
	"github.com/ollm/ollm/tools"
)

// Shell completion (bash, zsh and fish, through cobra's __complete) of
// the names commands take: extensions, MCP servers and their tools, hook
// events and hooks, built-in tools, models and generations. The names come
// from the workspace's current generation as it is on disk (the profile
// files when none was applied), and completing starts nothing: no MCP
// server (an MCP tool name comes from the tool cache), no hook, no model
// request, no automatic apply, and nothing is printed on stderr.

// completer reads the names once per completion.
type completer struct {
	f    *Factory
	once bool
	r    *schema.Resolved
	home store.Home
	ws   store.Workspace
}

// resolved is the current generation's resolution as written (all of it:
// names only are taken), or the files' when there is none. nil when
// neither loads.
func (c *completer) resolved() *schema.Resolved {
	if c.once {
		return c.r
	}
	c.once = true
	home, err := c.f.Home()
	if err != nil {
		return nil
	}
	c.home = home
	ws, _, err := c.f.WorkspaceOrNone()
	if err != nil {
		return nil
	}
	c.ws = ws
	if ws.Root != "" && len(c.f.Global.Ext) == 0 {
		gens := store.Generations{Dir: home.Generations()}
		if ptr, ok, err := gens.Current(ws.Root); err == nil && ok {
			if g, err := gens.Read(ptr.Generation); err == nil {
				c.r = &g.Resolved
				return c.r
			}
		}
	}
	opts, err := c.f.ProfileOptionsOrUser()
	if err != nil {
		return nil
	}
	if c.r, err = profiles.Load(opts); err != nil {
		c.r = nil
	}
	return c.r
}

// candidates keeps the names that start with prefix; each may carry a
// description after a tab.
func candidates(prefix string, names ...string) []string {
	var out []string
	seen := map[string]bool{}
	for _, n := range names {
		name, _, _ := strings.Cut(n, "\t")
		if name == "" || seen[name] || !strings.HasPrefix(name, prefix) {
			continue
		}
		seen[name] = true
		out = append(out, n)
	}
	return out
}

func described(name, desc string) string {
	desc = firstLine(desc)
	if desc == "" {
		return name
	}
	return name + "\t" + desc
}

func (c *completer) extensions() []string {
	r := c.resolved()
	if r == nil {
		return nil
	}
	var out []string
	for _, x := range r.Extensions {
		out = append(out, described(x.Name, x.Manifest.Description))
	}
	return out
}

// sources are the names of extensions.sources (what `ext update` moves).
func (c *completer) sources() []string {
	r := c.resolved()
	if r == nil {
		return nil
	}
	out := make([]string, 0, len(r.Profile.Extensions.Sources))
	for name := range r.Profile.Extensions.Sources {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// specs are the MCP servers as `ollm mcp` would run them, extension
// settings included (the tool cache keys on them), started never.
func (c *completer) specs() []mcp.Spec {
	r := c.resolved()
	if r == nil {
		return nil
	}
	specs := mcp.Specs(r)
	settings := settingsEnv(r, lookupEnv(c.f.Getenv))
	for i := range specs {
		if specs[i].Extension != "" {
			specs[i].SettingsEnv = settings[specs[i].Extension]
		}
	}
	return specs
}

func (c *completer) servers(profileOnly bool) []string {
	var out []string
	for _, s := range c.specs() {
		if profileOnly && s.Extension != "" {
			continue
		}
		out = append(out, described(s.Name, s.Extension))
	}
	return out
}

// mcpTools are the tools of server the tool cache remembers from an
// earlier `ollm mcp` command or session.
func (c *completer) mcpTools(server string) []string {
	r := c.resolved()
	if r == nil {
		return nil
	}
	opts := mcp.Options{ToolCache: mcpToolCache(c.home), Environ: c.f.Environ()}
	if r.Workspace != "" {
		opts.Roots = []string{r.Workspace}
	}
	for _, s := range c.specs() {
		if s.Name == server {
			return mcp.CachedTools(s, opts)
		}
	}
	return nil
}

func (c *completer) hookNames() []string {
	r := c.resolved()
	if r == nil {
		return nil
	}
	reg, _ := hooks.FromResolved(preparedExtensions(r), hooks.BuildOptions{Home: c.home.Dir})
	var out []string
	for _, h := range reg.All() {
		out = append(out, described(h.QualifiedName(), string(h.Event)))
	}
	return out
}

func hookEvents() []string {
	out := make([]string, len(hooks.Events))
	for i, e := range hooks.Events {
		out[i] = string(e)
	}
	return out
}

func (c *completer) builtinTools() []string {
	var cfg schema.Tools
	if r := c.resolved(); r != nil {
		cfg = r.Profile.Tools
	}
	var out []string
	for _, t := range tools.Builtin(tools.Config{Tools: cfg}) {
		out = append(out, described(t.Name(), t.Description()))
	}
	sort.Strings(out)
	return out
}

// models are the model of the running profile and those the workspace's
// earlier generations ran (ollm keeps no list of installed models and
// asks no server while completing).
func (c *completer) models() []string {
	r := c.resolved()
	if r == nil {
		return nil
	}
	out := []string{described(r.Profile.Model.Name, "the profile's model")}
	if c.ws.Root == "" {
		return out
	}
	all, err := store.Generations{Dir: c.home.Generations()}.All()
	if err != nil {
		return out
	}
	for i := len(all) - 1; i >= 0; i-- {
		if g := all[i]; g.Workspace == c.ws.Root && g.Resolved.Profile.Model.Name != "" {
			out = append(out, described(g.Resolved.Profile.Model.Name, fmt.Sprintf("generation %d", g.Number)))
		}
	}
	return out
}

// generations are this workspace's generations other than the current
// one, newest first, described by when they were made.
func (c *completer) generations() []string {
	c.resolved()
	if c.ws.Root == "" {
		return nil
	}
	gens := store.Generations{Dir: c.home.Generations()}
	all, err := gens.All()
	if err != nil {
		return nil
	}
	cur, _, _ := gens.Current(c.ws.Root)
	var out []string
	for i := len(all) - 1; i >= 0; i-- {
		g := all[i]
		if g.Workspace == c.ws.Root && g.Number != cur.Generation {
			out = append(out, described(strconv.Itoa(g.Number), g.Created.Format("2006-01-02 15:04:05Z")+fmt.Sprintf(", %d extensions", len(g.Lock.Extensions))))
		}
	}
	return out
}

var policyModes = []string{"default", "auto_edit", "plan", "yolo"}

// completion is how one command's positional arguments complete: names
// for the argument at each position (the last repeats), nil after.
type completion func(c *completer, args []string) []string

// argCompletions maps command paths (below ollm) to their completion.
var argCompletions = map[string]completion{
	"ext info":      first((*completer).extensions),
	"ext enable":    first((*completer).extensions),
	"ext disable":   first((*completer).extensions),
	"ext remove":    first((*completer).extensions),
	"ext logs":      first((*completer).extensions),
	"ext update":    every((*completer).sources),
	"mcp tools":     first(servers(false)),
	"mcp resources": first(servers(false)),
	"mcp prompts":   first(servers(false)),
	"mcp read":      first(servers(false)),
	"mcp login":     first(servers(false)),
	"mcp logout":    first(servers(false)),
	"mcp remove":    first(servers(true)),
	"mcp call": func(c *completer, args []string) []string {
		switch len(args) {
		case 0:
			return c.servers(false)
		case 1:
			return c.mcpTools(args[0])
		}
		return nil
	},
	"hooks test":       first(func(*completer) []string { return hookEvents() }),
	"hooks trust":      first((*completer).hookNames),
	"hooks untrust":    first((*completer).hookNames),
	"tools call":       first((*completer).builtinTools),
	"policy check":     first((*completer).builtinTools),
	"profile rollback": first((*completer).generations),
}

func first(names func(*completer) []string) completion {
	return func(c *completer, args []string) []string {
		if len(args) == 0 {
			return names(c)
		}
		return nil
	}
}

func every(names func(*completer) []string) completion {
	return func(c *completer, args []string) []string {
		return slices.DeleteFunc(names(c), func(n string) bool { return slices.Contains(args, n) })
	}
}

func servers(profileOnly bool) func(*completer) []string {
	return func(c *completer) []string { return c.servers(profileOnly) }
}

// flagCompletions maps "command path --flag" (the root's persistent flags
// with an empty path) to the names the flag takes.
var flagCompletions = map[string]func(c *completer) []string{
	" model":                  (*completer).models,
	"tools call mode":         func(*completer) []string { return policyModes },
	"policy check mode":       func(*completer) []string { return policyModes },
	"run approval-mode":       func(*completer) []string { return policyModes },
	"acp approval-mode":       func(*completer) []string { return policyModes },
	"mcp serve approval-mode": func(*completer) []string { return policyModes },
	"profile init model":      (*completer).models,
}

// registerCompletions attaches the completions to the built tree.
func registerCompletions(f *Factory, root *cobra.Command) {
	walk(root, func(cmd *cobra.Command) {
		path := strings.TrimPrefix(strings.TrimPrefix(cmd.CommandPath(), root.Name()), " ")
		if comp, ok := argCompletions[path]; ok && cmd.ValidArgsFunction == nil {
			cmd.ValidArgsFunction = func(_ *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
				return candidates(toComplete, comp(&completer{f: f}, args)...), cobra.ShellCompDirectiveNoFileComp
			}
		}
		for key, names := range flagCompletions {
			p, flag := key[:strings.LastIndex(key, " ")], key[strings.LastIndex(key, " ")+1:]
			if p != path {
				continue
			}
			fl := cmd.Flags()
			if path == "" {
				fl = cmd.PersistentFlags()
			}
			if fl.Lookup(flag) == nil {
				continue
			}
			_ = cmd.RegisterFlagCompletionFunc(flag, func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
				return candidates(toComplete, names(&completer{f: f})...), cobra.ShellCompDirectiveNoFileComp
			})
		}
	})
}

func walk(cmd *cobra.Command, fn func(*cobra.Command)) {
	fn(cmd)
	for _, sub := range cmd.Commands() {
		walk(sub, fn)
	}
}
