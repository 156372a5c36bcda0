package policy

import (
	"path"
	"strconv"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// tri is a three-valued truth: a condition over a shell word whose value is
// only known when the command runs ($HOME, $(...), *.go) is maybe.
type tri uint8

const (
	no tri = iota
	maybe
	yes
)

func (t tri) not() tri { return yes - t }

// unknown stands for a value that cannot be known before the command runs;
// text is how it was written.
type unknown struct{ text string }

// eval evaluates c. strict is the polarity: a rule that loosens (allow)
// must hold for every element of a list argument and every reading of a
// path, a rule that tightens (ask, deny) for any; "not" flips it. So an
// allow rule on paths ["src/a", "/etc/passwd"] does not match because one
// path is outside, and a deny rule does because one path is inside.
func (c *cond) eval(ec *evalCtx, strict bool) tri {
	switch c.op {
	case opNot:
		return c.kids[0].eval(ec, !strict).not()
	case opAny:
		r := no
		for _, k := range c.kids {
			if r = max(r, k.eval(ec, strict)); r == yes {
				break
			}
		}
		return r
	case opAll:
		r := yes
		for _, k := range c.kids {
			if r = min(r, k.eval(ec, strict)); r == no {
				break
			}
		}
		return r
	}
	v, ok := ec.resolve(c.arg)
	if !ok {
		return no
	}
	return c.test(v, strict)
}

// test applies a test to a value; lists are quantified by polarity unless
// equals or oneOf compares a whole list with a list.
func (c *cond) test(v any, strict bool) tri {
	switch v := v.(type) {
	case unknown:
		return maybe
	case []any:
		if c.wholeList() {
			break
		}
		return quantify(v, strict, func(e any) tri { return c.test(e, strict) })
	}
	switch c.op {
	case opEquals:
		return equal(v, c.want)
	case opOneOf:
		r := no
		for _, w := range c.set {
			if r = max(r, equal(v, w)); r == yes {
				break
			}
		}
		return r
	}
	s, ok := scalarString(v)
	if !ok {
		return no
	}
	return c.testString(s, strict)
}

// wholeList reports whether the test compares lists as values.
func (c *cond) wholeList() bool {
	if _, ok := c.want.([]any); ok && c.op == opEquals {
		return true
	}
	if c.op == opOneOf {
		for _, w := range c.set {
			if _, ok := w.([]any); ok {
				return true
			}
		}
	}
	return false
}

func quantify(vs []any, strict bool, f func(any) tri) tri {
	if strict {
		r := yes
		for _, e := range vs {
			if r = min(r, f(e)); r == no {
				return r
			}
		}
		return r
	}
	r := no
	for _, e := range vs {
		if r = max(r, f(e)); r == yes {
			return r
		}
	}
	return r
}

func (c *cond) testString(s string, strict bool) tri {
	switch c.op {
	case opContains:
		return truth(strings.Contains(s, c.str))
	case opStartsWith:
		return truth(strings.HasPrefix(s, c.str))
	case opMatches:
		return truth(c.re.MatchString(s))
	case opGlob:
		return globReadings(c.str, s, strict)
	}
	return no
}

// globReadings matches a path as written and, when it holds "..", as
// cleaned: "src/../.git/config" does not match an allow rule for "src/**"
// but does match a deny rule for ".git/**".
func globReadings(pattern, s string, strict bool) tri {
	m, _ := doublestar.Match(pattern, s)
	if !strings.Contains(s, "..") {
		return truth(m)
	}
	mc, _ := doublestar.Match(pattern, path.Clean(s))
	if strict {
		return truth(m && mc)
	}
	return truth(m || mc)
}

func truth(b bool) tri {
	if b {
		return yes
	}
	return no
}

func scalarString(v any) (string, bool) {
	switch v := v.(type) {
	case string:
		return v, true
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64), true
	case bool:
		return strconv.FormatBool(v), true
	}
	return "", false
}

// equal compares JSON values; anything unknown inside makes it maybe.
func equal(a, b any) tri {
	switch a := a.(type) {
	case unknown:
		return maybe
	case []any:
		bl, ok := b.([]any)
		if !ok || len(bl) != len(a) {
			return no
		}
		r := yes
		for i := range a {
			r = min(r, equal(a[i], bl[i]))
		}
		return r
	case map[string]any:
		bm, ok := b.(map[string]any)
		if !ok || len(bm) != len(a) {
			return no
		}
		r := yes
		for k, av := range a {
			bv, ok := bm[k]
			if !ok {
				return no
			}
			r = min(r, equal(av, bv))
		}
		return r
	}
	switch b.(type) {
	case []any, map[string]any:
		return no
	}
	return truth(a == b)
}
