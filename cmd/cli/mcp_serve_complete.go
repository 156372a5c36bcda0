package cli

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/ollm/ollm/core/agent"
	"github.com/ollm/ollm/core/policy"
	"github.com/ollm/ollm/core/skills"
	"github.com/ollm/ollm/core/tool"
)

// maxCompletions is the most values one completion/complete answer holds
// (MCP's limit).
const maxCompletions = 100

// skillArgCompleter answers completion/complete for a skill prompt's
// argument with the workspace's paths that start with the value typed so
// far: the entries of its directory, when the policy lets ls list that
// directory without asking (a denied or asked-about directory completes
// to nothing). Lookups stay inside the workspace (os.Root: no .., no
// symlink out).
type skillArgCompleter struct {
	root   string
	skills *skills.Registry
	policy func() *policy.Policy
	ls     policy.Facts
}

func newSkillArgCompleter(root string, reg *skills.Registry, pol func() *policy.Policy, tools agent.Tools) *skillArgCompleter {
	facts := policy.Facts{Name: "ls", Kind: tool.KindRead}
	if t, ok := tools.Get("ls"); ok {
		facts = policy.FactsOf(t)
	}
	return &skillArgCompleter{root: root, skills: reg, policy: pol, ls: facts}
}

func (c *skillArgCompleter) CompletePromptArgument(ctx context.Context, prompt string, arg mcp.CompleteArgument, _ mcp.CompleteContext) (*mcp.Completion, error) {
	known := false
	for _, e := range c.skills.List() {
		if e.Name == prompt {
			known = slices.Contains(e.Placeholders, arg.Name)
			if !known {
				return nil, fmt.Errorf("skill %s has no argument %q (it has %s)", prompt, arg.Name, strings.Join(e.Placeholders, ", "))
			}
		}
	}
	if !known {
		return nil, fmt.Errorf("no skill %q: prompts/list names them", prompt)
	}
	vals := c.paths(arg.Value)
	comp := &mcp.Completion{Values: vals, Total: len(vals)}
	if len(vals) > maxCompletions {
		comp.Values, comp.HasMore = vals[:maxCompletions], true
	}
	return comp, nil
}

// paths are the workspace paths that complete value, directories ending
// in "/"; hidden entries only when value names a hidden prefix.
func (c *skillArgCompleter) paths(value string) []string {
	dir, prefix := path.Split(value)
	d := path.Clean(dir)
	if dir == "" {
		d = "."
	}
	if !filepath.IsLocal(d) {
		return []string{}
	}
	if dec := c.policy().Decide(c.ls, map[string]any{"path": d}); dec.Action != policy.Allow {
		return []string{}
	}
	r, err := os.OpenRoot(c.root)
	if err != nil {
		return []string{}
	}
	defer r.Close()
	f, err := r.Open(d)
	if err != nil {
		return []string{}
	}
	defer f.Close()
	entries, err := f.ReadDir(-1)
	if err != nil {
		return []string{}
	}
	out := []string{}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, prefix) || (strings.HasPrefix(name, ".") && !strings.HasPrefix(prefix, ".")) {
			continue
		}
		v := dir + name
		if e.IsDir() {
			v += "/"
		}
		out = append(out, v)
	}
	slices.Sort(out)
	return out
}
