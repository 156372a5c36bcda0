package profiles

import (
	"fmt"
	"sort"
	"strings"

	"cuelang.org/go/cue/errors"
	"cuelang.org/go/cue/token"

	"github.com/ollm/ollm/internal/lazyre"
)

// Diagnostic is one validation error at a position.
type Diagnostic struct {
	Pos     string   `json:"pos"`               // file:line:col of the offending value
	Path    string   `json:"path,omitempty"`    // profile path, e.g. policy.defaultAction
	Message string   `json:"message"`           // what is wrong
	Related []string `json:"related,omitempty"` // other positions involved (the other layer of a conflict)
}

func (d Diagnostic) String() string {
	var b strings.Builder
	if d.Pos != "" {
		b.WriteString(d.Pos + ": ")
	}
	b.WriteString(d.Message)
	for _, r := range d.Related {
		b.WriteString("\n    " + r)
	}
	return b.String()
}

// Error is an invalid profile: every diagnostic, and what to do.
type Error struct {
	Diags []Diagnostic
	Fix   string
}

func (e *Error) Error() string {
	var parts []string
	for _, d := range e.Diags {
		parts = append(parts, d.String())
	}
	msg := "invalid profile:\n" + strings.Join(parts, "\n")
	if e.Fix != "" {
		msg += "\n" + e.Fix
	}
	return msg
}

const fixProfile = "Fix the values above, then run `ollm profile validate`."

// isSchemaFile reports positions inside the embedded schema or builtin
// profile: they explain a constraint but are not where the user must look.
func isSchemaFile(name string) bool {
	return strings.HasPrefix(name, schemaPrefix) || strings.HasPrefix(name, builtinPrefix)
}

// diagnostics turns CUE errors into deduplicated diagnostics. It drops the
// "N errors in empty disjunction" summaries and, for a path that has a
// clearer error, the conflicts with schema defaults that CUE reports for
// every rejected alternative of a disjunction. userPos finds a position in
// the user's files for a path when CUE gives only schema positions.
func diagnostics(err error, userPos func(path []string) token.Pos) []Diagnostic {
	type entry struct {
		d      Diagnostic
		useful bool
	}
	byPath := map[string][]entry{}
	var order []string
	for _, e := range errors.Errors(err) {
		format, args := e.Msg()
		msg := fmt.Sprintf(format, args...)
		if strings.Contains(msg, "errors in empty disjunction") {
			continue
		}
		path := cleanPath(e.Path())
		var user, schema []string
		for _, p := range positions(e) {
			if isSchemaFile(p.Filename()) {
				schema = append(schema, p.String())
			} else {
				user = append(user, p.String())
			}
		}
		if len(user) == 0 && userPos != nil {
			if p := userPos(path); p.IsValid() && !isSchemaFile(p.Filename()) {
				user = append(user, p.String())
			}
		}
		d := Diagnostic{Path: strings.Join(path, "."), Message: msg}
		if strings.Contains(msg, stdioURLMarker) {
			// cue/profile.cue's marker for a url on a stdio server.
			d.Message = "a stdio server takes no url; remove url (and keep command), or set transport: \"http\" (streamable HTTP) or \"sse\""
		}
		if d.Path != "" && !strings.HasPrefix(d.Message, d.Path) {
			d.Message = d.Path + ": " + d.Message
		}
		if len(user) > 0 {
			d.Pos, d.Related = user[0], user[1:]
		} else if len(schema) > 0 {
			d.Pos = schema[0]
		}
		// A conflict with a schema default ("conflicting values 30000 and -1")
		// is noise when the same path has another error.
		useful := !(strings.Contains(msg, "conflicting values") && len(schema) > 0 && len(user) < 2)
		key := d.Path
		if _, ok := byPath[key]; !ok {
			order = append(order, key)
		}
		byPath[key] = append(byPath[key], entry{d, useful})
	}
	var out []Diagnostic
	seen := map[string]bool{}
	for _, key := range order {
		entries := byPath[key]
		anyUseful := false
		for _, en := range entries {
			anyUseful = anyUseful || en.useful
		}
		var kept []Diagnostic
		for _, en := range entries {
			if !anyUseful || en.useful {
				kept = append(kept, en.d)
			}
		}
		for _, d := range collapseDisjunction(kept) {
			s := d.String()
			if !seen[s] {
				seen[s] = true
				out = append(out, d)
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Pos < out[j].Pos })
	return out
}

// stdioURLMarker is the value cue/profile.cue gives url on a stdio
// server, so that a url there is a conflict CUE reports with its path.
const stdioURLMarker = `"<no url for a stdio server>"`

var conflictRE = lazyre.New(`conflicting values (.+?) and (.+?)(?: \(mismatched types .*\))?$`)

// collapseDisjunction turns CUE's one-error-per-alternative report for a
// value that matches none of a disjunction into one diagnostic listing the
// allowed values.
func collapseDisjunction(ds []Diagnostic) []Diagnostic {
	if len(ds) < 2 {
		return ds
	}
	count := map[string]int{}
	var pairs [][2]string
	for _, d := range ds {
		m := conflictRE.FindStringSubmatch(d.Message)
		if m == nil {
			return ds
		}
		pairs = append(pairs, [2]string{m[1], m[2]})
		count[m[1]]++
		count[m[2]]++
	}
	var value string
	for v, n := range count {
		if n == len(ds) {
			value = v
		}
	}
	if value == "" {
		return ds
	}
	var allowed []string
	hasType := false
	for _, p := range pairs {
		alt := p[0]
		if alt == value {
			alt = p[1]
		}
		allowed = append(allowed, alt)
		hasType = hasType || !strings.ContainsAny(alt[:1], "\"0123456789-tf")
	}
	if hasType { // "30000 and int": the type says more than the default
		var types []string
		for _, a := range allowed {
			if !strings.ContainsAny(a[:1], "\"0123456789-tf") {
				types = append(types, a)
			}
		}
		allowed = types
	}
	d := ds[0]
	d.Message = fmt.Sprintf("%s: %s is not allowed; want %s", d.Path, value, strings.Join(allowed, " | "))
	return []Diagnostic{d}
}

func positions(e errors.Error) []token.Pos {
	var ps []token.Pos
	if p := e.Position(); p.IsValid() {
		ps = append(ps, p)
	}
	for _, p := range e.InputPositions() {
		if p.IsValid() {
			ps = append(ps, p)
		}
	}
	// unique, keeping order
	var out []token.Pos
	seen := map[string]bool{}
	for _, p := range ps {
		if s := p.String(); !seen[s] {
			seen[s] = true
			out = append(out, p)
		}
	}
	return out
}

func cleanPath(p []string) []string {
	if len(p) > 0 && strings.HasPrefix(p[0], "#") {
		return p[1:]
	}
	return p
}
