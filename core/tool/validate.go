package tool

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Validator checks parameters against one tool's schema. Compile it once per
// tool and reuse it; it is safe for concurrent use.
type Validator struct {
	tool     string
	compiled *jsonschema.Schema
}

// NewValidator compiles s for the tool named name.
func NewValidator(name string, s *Schema) (*Validator, error) {
	if s == nil {
		s = &Schema{Type: "object"}
	}
	doc, err := schemaDoc(s)
	if err != nil {
		return nil, fmt.Errorf("tool %s: schema: %w", name, err)
	}
	c := jsonschema.NewCompiler()
	url := "mem://tools/" + name + ".json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("tool %s: schema: %w", name, err)
	}
	compiled, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("tool %s: schema does not compile: %w", name, err)
	}
	return &Validator{tool: name, compiled: compiled}, nil
}

// NewRawValidator compiles a schema as its author wrote it (an MCP
// server's inputSchema), every keyword of its draft kept: $defs, allOf,
// if/then/else, a type list with "null". Only references inside the
// document resolve: nothing is loaded from a file or the network, so a
// schema cannot make ollm read a local file by naming it in $ref.
func NewRawValidator(name string, raw json.RawMessage) (*Validator, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("tool %s: schema: %w", name, err)
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(jsonschema.SchemeURLLoader{})
	url := "mem://tools/" + name + ".json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("tool %s: schema: %w", name, err)
	}
	compiled, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("tool %s: schema does not compile: %w", name, err)
	}
	return &Validator{tool: name, compiled: compiled}, nil
}

// schemaDoc turns s into the generic JSON value the compiler reads.
func schemaDoc(s *Schema) (any, error) {
	data, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	return jsonschema.UnmarshalJSON(bytes.NewReader(data))
}

// Validate decodes params (empty or null means {}) and checks them. The
// returned error is an *Error of kind ErrInvalidParams whose message names
// every failing parameter.
func (v *Validator) Validate(params json.RawMessage) (json.RawMessage, error) {
	params = NormalizeParams(params)
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(params))
	if err != nil {
		return nil, &Error{Kind: ErrInvalidParams, Message: fmt.Sprintf("%s: parameters are not valid JSON: %v", v.tool, err)}
	}
	if err := v.compiled.Validate(inst); err != nil {
		var ve *jsonschema.ValidationError
		if errors.As(err, &ve) {
			return nil, &Error{Kind: ErrInvalidParams, Message: v.tool + ": " + describeValidation(ve)}
		}
		return nil, &Error{Kind: ErrInvalidParams, Message: v.tool + ": " + err.Error()}
	}
	return params, nil
}

// NormalizeParams maps empty and null parameters to {}.
func NormalizeParams(params json.RawMessage) json.RawMessage {
	t := bytes.TrimSpace(params)
	if len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return json.RawMessage("{}")
	}
	return t
}

var printer = message.NewPrinter(language.English)

// describeValidation flattens the leaves of a validation error into
// "parameter \"x\": reason" lines, sorted so the message is stable.
func describeValidation(ve *jsonschema.ValidationError) string {
	var lines []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			lines = append(lines, describeLeaf(e))
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	sort.Strings(lines)
	lines = dedupe(lines)
	return strings.Join(lines, "; ")
}

func describeLeaf(e *jsonschema.ValidationError) string {
	msg := e.ErrorKind.LocalizedString(printer)
	if len(e.InstanceLocation) == 0 {
		return "parameters: " + msg
	}
	return fmt.Sprintf("parameter %q: %s", strings.Join(e.InstanceLocation, "."), msg)
}

func dedupe(sorted []string) []string {
	out := sorted[:0]
	for i, s := range sorted {
		if i == 0 || s != sorted[i-1] {
			out = append(out, s)
		}
	}
	return out
}
