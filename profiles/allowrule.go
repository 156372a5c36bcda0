package profiles

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/parser"

	"github.com/ollm/ollm/schema"
	"github.com/ollm/ollm/store"
)

// AddPolicyRules appends rules (usually the "always allow" answers built by
// policy.AlwaysAllow) to the policy.rules list of the profile file at path,
// normally the user profile store.Home.Profile(). The rest of the file is
// left byte for byte as it was: the entries are spliced in before the
// list's closing bracket, or a new `policy: rules: [...]` declaration is
// appended when the file has no such list (a missing file is created).
// The result is parsed again before it is written, atomically, under the
// file's lock.
func AddPolicyRules(path string, rules ...schema.PolicyRule) error {
	if len(rules) == 0 {
		return nil
	}
	unlock, err := store.Lock(path)
	if err != nil {
		return err
	}
	defer unlock()
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("read %s: %w", path, err)
	}
	out, err := spliceRules(path, data, rules)
	if err != nil {
		return err
	}
	return store.WriteFile(path, out, store.PermShared)
}

// spliceRules returns data with rules added to its policy.rules list.
func spliceRules(path string, data []byte, rules []schema.PolicyRule) ([]byte, error) {
	text, err := rulesText(rules)
	if err != nil {
		return nil, err
	}
	f, err := parser.ParseFile(path, data, parser.ParseComments)
	if err != nil {
		return nil, fmt.Errorf("cannot add the allow rule to %s, which does not parse (%v); fix the file or add by hand:\npolicy: rules: [\n%s]", path, err, indentLines(text, "\t"))
	}
	list, other := policyRulesList(f.Decls)
	var out []byte
	switch {
	case list != nil:
		out = insertIntoList(data, list, text)
	case other != nil:
		return nil, fmt.Errorf("%s: policy.rules at %s is not a list literal, so the allow rule cannot be added to it; add by hand:\n%s", path, other.Pos(), indentLines(text, "\t"))
	default:
		out = appendDecl(data, text)
	}
	if _, err := parser.ParseFile(path, out, parser.ParseComments); err != nil {
		return nil, fmt.Errorf("adding the allow rule to %s would break it (%v); add by hand:\n%s", path, err, text)
	}
	return out, nil
}

// rulesText renders rules as CUE list elements, one per line, each ending
// in a comma: {name: "...", tool: "shell", action: "allow", when: {...}},
func rulesText(rules []schema.PolicyRule) (string, error) {
	var b strings.Builder
	for _, r := range rules {
		js, err := json.Marshal(r)
		if err != nil {
			return "", fmt.Errorf("policy rule for %s: %w", r.Tool, err)
		}
		dec := json.NewDecoder(bytes.NewReader(js))
		dec.UseNumber()
		if err := writeCUEValue(dec, &b); err != nil {
			return "", fmt.Errorf("policy rule for %s: %w", r.Tool, err)
		}
		b.WriteString(",\n")
	}
	return b.String(), nil
}

// writeCUEValue copies one JSON value from dec as single-line CUE: labels
// unquoted where they can be, elements separated by ", ".
func writeCUEValue(dec *json.Decoder, b *strings.Builder) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	d, isDelim := tok.(json.Delim)
	if !isDelim {
		js, err := json.Marshal(tok)
		b.Write(js)
		return err
	}
	b.WriteRune(rune(d))
	for i := 0; dec.More(); i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		if d == '{' {
			k, err := dec.Token()
			if err != nil {
				return err
			}
			b.WriteString(cueLabel(k.(string)) + ": ")
		}
		if err := writeCUEValue(dec, b); err != nil {
			return err
		}
	}
	end, err := dec.Token()
	if err != nil {
		return err
	}
	b.WriteRune(rune(end.(json.Delim)))
	return nil
}

var cueKeywords = map[string]bool{"package": true, "import": true, "for": true, "in": true, "if": true,
	"let": true, "true": true, "false": true, "null": true, "div": true, "mod": true, "quo": true, "rem": true}

// cueLabel is a label as written in CUE: bare when it is a plain
// identifier, quoted otherwise.
func cueLabel(k string) string {
	plain := k != "" && !cueKeywords[k]
	for i, r := range k {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			plain = false
		}
	}
	if plain {
		return k
	}
	js, _ := json.Marshal(k)
	return string(js)
}

// policyRulesList finds the policy.rules field among a file's top-level
// declarations (policy: {rules: [...]} or policy: rules: [...]). list is
// its value when that is a list literal; other is the value otherwise.
func policyRulesList(decls []ast.Decl) (list *ast.ListLit, other ast.Expr) {
	for _, d := range decls {
		f, ok := d.(*ast.Field)
		if !ok || allowLabel(f.Label) != "policy" {
			continue
		}
		s, ok := f.Value.(*ast.StructLit)
		if !ok {
			continue
		}
		for _, e := range s.Elts {
			rf, ok := e.(*ast.Field)
			if !ok || allowLabel(rf.Label) != "rules" {
				continue
			}
			if l, ok := rf.Value.(*ast.ListLit); ok {
				return l, nil
			}
			other = rf.Value
		}
	}
	return nil, other
}

func allowLabel(l ast.Label) string {
	name, _, err := ast.LabelName(l)
	if err != nil {
		return ""
	}
	return name
}

// insertIntoList splices text in before the list's closing bracket, one
// indentation level deeper than the line the bracket is on. CUE inserts
// the commas that newlines imply, so a list with or without a trailing
// comma stays valid.
func insertIntoList(data []byte, list *ast.ListLit, text string) []byte {
	at := list.Rbrack.Offset()
	lineStart := bytes.LastIndexByte(data[:at], '\n') + 1
	indent := leadingSpace(data[lineStart:at])
	var b bytes.Buffer
	if strings.TrimSpace(string(data[lineStart:at])) == "" { // "]" on its own line
		b.Write(data[:lineStart])
		b.WriteString(indentLines(text, indent+"\t"))
		b.Write(data[lineStart:])
		return b.Bytes()
	}
	b.Write(data[:at]) // "[{...}]" or "[]": break the line before "]"
	b.WriteByte('\n')
	b.WriteString(indentLines(text, indent+"\t"))
	b.WriteString(indent)
	b.Write(data[at:])
	return b.Bytes()
}

// appendDecl adds a policy: rules: [...] declaration at the end.
func appendDecl(data []byte, text string) []byte {
	var b bytes.Buffer
	b.Write(data)
	if len(data) > 0 && !bytes.HasSuffix(data, []byte("\n")) {
		b.WriteByte('\n')
	}
	if len(data) > 0 {
		b.WriteByte('\n')
	}
	b.WriteString("// Added by ollm when you answered \"always allow\".\n")
	b.WriteString("policy: rules: [\n" + indentLines(text, "\t") + "]\n")
	return b.Bytes()
}

func leadingSpace(line []byte) string {
	n := 0
	for n < len(line) && (line[n] == ' ' || line[n] == '\t') {
		n++
	}
	return string(line[:n])
}

func indentLines(text, indent string) string {
	lines := strings.SplitAfter(text, "\n")
	var b strings.Builder
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			b.WriteString(indent)
		}
		b.WriteString(l)
	}
	return b.String()
}
