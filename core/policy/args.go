package policy

import (
	"strconv"
	"strings"

	"github.com/ollm/ollm/core/tool"
)

// Facts are what the policy knows about a tool apart from the call's
// arguments.
type Facts struct {
	Name        string // as the model calls it; MCP tools are "server:tool"
	Kind        tool.Kind
	Annotations tool.Annotations // MCP hints, the server it came from
}

// policyNamed is implemented by tools judged by another name than the one
// the model sees: MCP tools are judged as "server:tool".
type policyNamed interface{ PolicyName() string }

// FactsOf reads a tool's facts.
func FactsOf(t tool.Tool) Facts {
	f := Facts{Name: t.Name(), Kind: t.Kind()}
	if n, ok := t.(policyNamed); ok && n.PolicyName() != "" {
		f.Name = n.PolicyName()
	}
	if a, ok := t.(tool.Annotated); ok {
		f.Annotations = a.Annotations()
	}
	return f
}

// isMCP reports whether the tool came from an MCP server: it says so, or
// its name is namespaced (built-in tools never hold a colon).
func (f *Facts) isMCP() bool {
	return f.Annotations.Server != "" || strings.Contains(f.Name, ":")
}

// readOnly reports whether the tool changes nothing: by kind, or by an MCP
// server's readOnlyHint.
func (f *Facts) readOnly() bool {
	if f.Annotations.ReadOnly != nil {
		return *f.Annotations.ReadOnly
	}
	return f.Kind.ReadOnly()
}

// evalCtx is what conditions see for one part of a call.
type evalCtx struct {
	facts    *Facts
	args     map[string]any
	part     *part  // the shell sub-command being judged; nil for other tools
	shellArg string // the argument holding the command line
}

// resolve finds a test's value. For shell tools the command argument
// itself is seen per sub-command, so {arg: "command", startsWith: "git "}
// cannot be satisfied by "git status; rm -rf ~".
func (ec *evalCtx) resolve(r argRef) (any, bool) {
	switch r.pseudo {
	case pTool:
		return ec.facts.Name, true
	case pKind:
		return string(ec.facts.Kind), true
	case pServer:
		return ec.facts.Annotations.Server, ec.facts.Annotations.Server != ""
	case pPath:
		if ec.part != nil && len(r.path) == 1 && r.path[0] == ec.shellArg {
			return ec.part.command, true
		}
		return lookup(ec.args, r.path)
	}
	if ec.part == nil {
		return nil, false
	}
	switch r.pseudo {
	case pProgram:
		return ec.part.program, true
	case pArgs:
		return ec.part.args, true
	case pCommand:
		return ec.part.command, true
	default: // pWrites
		return ec.part.writes, true
	}
}

// lookup follows a dotted path through JSON values. A numeric segment
// indexes a list; any other segment applied to a list is applied to each
// element, so "edits.old" is the list of every edit's old text.
func lookup(v any, path []string) (any, bool) {
	for i, seg := range path {
		switch cur := v.(type) {
		case map[string]any:
			next, ok := cur[seg]
			if !ok {
				return nil, false
			}
			v = next
		case []any:
			if n, err := strconv.Atoi(seg); err == nil {
				if n < 0 || n >= len(cur) {
					return nil, false
				}
				v = cur[n]
				continue
			}
			return lookupEach(cur, path[i:])
		default:
			return nil, false
		}
	}
	return v, true
}

func lookupEach(list []any, path []string) (any, bool) {
	out := make([]any, 0, len(list))
	for _, e := range list {
		if v, ok := lookup(e, path); ok {
			out = append(out, v)
		}
	}
	return out, len(out) > 0
}
