package policy

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/ollm/ollm/schema"
)

// op is a condition's test or combinator.
type op uint8

const (
	opEquals op = iota
	opContains
	opMatches
	opStartsWith
	opGlob
	opOneOf
	opNot
	opAny
	opAll
)

// cond is a compiled schema.Condition.
type cond struct {
	op   op
	arg  argRef
	str  string         // contains, startsWith, glob
	re   *regexp.Regexp // matches
	want any            // equals, normalised to what encoding/json decodes
	set  []any          // oneOf, normalised
	kids []*cond        // not (one), any, all
}

// compileCond checks that c holds exactly one test with an arg, or one
// combinator, and compiles it. at is the condition's path in the rule, for
// errors ("when.all[1]").
func compileCond(c schema.Condition, at string) (*cond, error) {
	n := countSet(c)
	if n != 1 {
		return nil, fmt.Errorf("%s: set exactly one of equals, contains, matches, startsWith, glob, oneOf, not, any, all (found %d)", at, n)
	}
	switch {
	case c.Not != nil:
		k, err := compileCond(*c.Not, at+".not")
		return &cond{op: opNot, kids: []*cond{k}}, err
	case c.Any != nil:
		return compileList(opAny, c.Any, at+".any")
	case c.All != nil:
		return compileList(opAll, c.All, at+".all")
	}
	if c.Arg == "" {
		return nil, fmt.Errorf("%s: a test needs arg: the argument (a dotted path such as \"path\" or \"edits.old\", or $program, $args, $command, $writes, $tool, $kind, $server)", at)
	}
	ref, err := parseArg(c.Arg)
	if err != nil {
		return nil, fmt.Errorf("%s.arg: %w", at, err)
	}
	out, err := compileTest(c, at)
	if err != nil {
		return nil, err
	}
	out.arg = ref
	return out, nil
}

func countSet(c schema.Condition) int {
	n := 0
	for _, set := range []bool{c.Equals != nil, c.Contains != "", c.Matches != "", c.StartsWith != "",
		c.Glob != "", c.OneOf != nil, c.Not != nil, c.Any != nil, c.All != nil} {
		if set {
			n++
		}
	}
	return n
}

func compileList(o op, cs []schema.Condition, at string) (*cond, error) {
	out := &cond{op: o}
	for i, c := range cs {
		k, err := compileCond(c, at+"["+strconv.Itoa(i)+"]")
		if err != nil {
			return nil, err
		}
		out.kids = append(out.kids, k)
	}
	return out, nil
}

func compileTest(c schema.Condition, at string) (*cond, error) {
	switch {
	case c.Equals != nil:
		w, err := normalise(c.Equals)
		return &cond{op: opEquals, want: w}, wrapAt(at+".equals", err)
	case c.Contains != "":
		return &cond{op: opContains, str: c.Contains}, nil
	case c.StartsWith != "":
		return &cond{op: opStartsWith, str: c.StartsWith}, nil
	case c.Matches != "":
		re, err := regexp.Compile(c.Matches)
		if err != nil {
			return nil, fmt.Errorf("%s.matches: invalid regular expression %q: %v (Go RE2 syntax; no look-around or back-references)", at, c.Matches, err)
		}
		return &cond{op: opMatches, re: re}, nil
	case c.Glob != "":
		if !doublestar.ValidatePattern(c.Glob) {
			return nil, fmt.Errorf("%s.glob: %q is not a valid glob (doublestar syntax: *, **, ?, [a-z], {a,b})", at, c.Glob)
		}
		return &cond{op: opGlob, str: c.Glob}, nil
	default:
		set := make([]any, len(c.OneOf))
		for i, v := range c.OneOf {
			w, err := normalise(v)
			if err != nil {
				return nil, wrapAt(fmt.Sprintf("%s.oneOf[%d]", at, i), err)
			}
			set[i] = w
		}
		return &cond{op: opOneOf, set: set}, nil
	}
}

func wrapAt(at string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", at, err)
}

// normalise turns a Go value into what encoding/json would decode from its
// JSON form (float64 numbers, []any, map[string]any), so it compares with
// the call's arguments.
func normalise(v any) (any, error) {
	switch v.(type) {
	case string, bool, float64, nil:
		return v, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("value %v is not JSON: %v", v, err)
	}
	var out any
	err = json.Unmarshal(b, &out)
	return out, err
}

// argRef is what a test looks at: a pseudo argument or a dotted path.
type argRef struct {
	pseudo pseudo
	path   []string
}

type pseudo uint8

const (
	pPath    pseudo = iota // an argument path
	pProgram               // $program: each shell sub-command's program (base name)
	pArgs                  // $args: its arguments
	pCommand               // $command: its words joined by spaces
	pWrites                // $writes: files its output redirections write
	pTool                  // $tool: the tool's name
	pKind                  // $kind: the tool's kind
	pServer                // $server: the MCP server it came from
)

var pseudoNames = map[string]pseudo{
	"$program": pProgram, "$args": pArgs, "$command": pCommand, "$writes": pWrites,
	"$tool": pTool, "$kind": pKind, "$server": pServer,
}

func parseArg(s string) (argRef, error) {
	if strings.HasPrefix(s, "$") {
		p, ok := pseudoNames[s]
		if !ok {
			return argRef{}, fmt.Errorf("unknown pseudo argument %q: use $program, $args, $command, $writes, $tool, $kind or $server", s)
		}
		return argRef{pseudo: p}, nil
	}
	path := strings.Split(s, ".")
	for _, seg := range path {
		if seg == "" {
			return argRef{}, fmt.Errorf("%q has an empty path segment", s)
		}
	}
	return argRef{path: path}, nil
}
