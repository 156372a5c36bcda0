package mcp

import (
	"fmt"
	"math"
	"net/url"
	"strings"

	"github.com/ollm/ollm/core/tool"
)

// maxSchemaDepth bounds how deep a schema is expanded; deeper parts become
// unconstrained, which keeps huge or adversarial schemas finite.
const maxSchemaDepth = 24

var jsonTypes = map[string]bool{
	"string": true, "number": true, "integer": true, "boolean": true,
	"object": true, "array": true, "null": true,
}

// ConvertSchema converts an MCP tool's inputSchema (decoded JSON) into the
// internal schema: names, types, descriptions, enums, defaults, required
// and optional properties, nested objects and arrays are kept; $ref is
// resolved against the schema's own $defs / definitions / properties, and a
// reference back into itself ends as an object without properties instead of
// looping. warnings list what was simplified; an error means the schema is
// invalid and the tool should be skipped.
func ConvertSchema(root map[string]any) (*tool.Schema, []string, error) {
	c := &converter{root: root}
	s, err := c.convert(root, "inputSchema", 0)
	if err != nil {
		return nil, c.warnings, err
	}
	switch s.Type {
	case "":
		s.Type = "object"
	case "object":
	default:
		return nil, c.warnings, fmt.Errorf("inputSchema: type is %q, want \"object\"", s.Type)
	}
	return s, c.warnings, nil
}

type converter struct {
	root     map[string]any
	refs     []string // $refs being expanded, to stop recursion
	warnings []string
}

func (c *converter) warnf(format string, args ...any) {
	c.warnings = append(c.warnings, fmt.Sprintf(format, args...))
}

func (c *converter) convert(node any, path string, depth int) (*tool.Schema, error) {
	switch n := node.(type) {
	case bool:
		return &tool.Schema{}, nil
	case map[string]any:
		if depth > maxSchemaDepth {
			c.warnf("%s: nested deeper than %d levels; accepting any value there", path, maxSchemaDepth)
			return &tool.Schema{Description: describe(n)}, nil
		}
		if ref, ok := n["$ref"]; ok {
			return c.convertRef(n, ref, path, depth)
		}
		return c.convertObject(n, path, depth)
	default:
		return nil, fmt.Errorf("%s: a schema must be an object or a boolean, not %T", path, node)
	}
}

func describe(n map[string]any) string {
	s, _ := n["description"].(string)
	return s
}

func (c *converter) convertRef(n map[string]any, ref any, path string, depth int) (*tool.Schema, error) {
	r, ok := ref.(string)
	if !ok {
		return nil, fmt.Errorf("%s: $ref must be a string", path)
	}
	target, err := c.resolve(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	for _, seen := range c.refs {
		if seen == r {
			return recursiveStub(n, target, r), nil
		}
	}
	c.refs = append(c.refs, r)
	s, err := c.convert(target, path+"($ref "+r+")", depth+1)
	c.refs = c.refs[:len(c.refs)-1]
	if err != nil {
		return nil, err
	}
	out := *s // the target may be shared; copy before decorating
	if d := describe(n); d != "" {
		out.Description = d
	}
	if d, ok := n["default"]; ok {
		out.Default = d
	}
	return &out, nil
}

// recursiveStub stands for a schema that refers back to itself.
func recursiveStub(n map[string]any, target any, ref string) *tool.Schema {
	s := &tool.Schema{Description: describe(n)}
	if t, ok := target.(map[string]any); ok {
		s.Type, _ = t["type"].(string)
		if s.Description == "" {
			s.Description = describe(t)
		}
	}
	if s.Type == "" || s.Type == "object" {
		s.Type = "object"
		s.AdditionalProperties = true
	}
	s.Description = strings.TrimSpace(s.Description + " (recursive, same shape as " + ref + ")")
	return s
}

// resolve follows a local JSON pointer ("#/$defs/Node") in the root schema.
func (c *converter) resolve(ref string) (any, error) {
	if !strings.HasPrefix(ref, "#") {
		return nil, fmt.Errorf("$ref %q: only references inside the schema (#/...) are supported", ref)
	}
	frag, err := url.PathUnescape(ref[1:])
	if err != nil {
		return nil, fmt.Errorf("$ref %q: %v", ref, err)
	}
	var node any = c.root
	for _, tok := range strings.Split(strings.TrimPrefix(frag, "/"), "/") {
		if tok == "" {
			continue
		}
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		m, ok := node.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("$ref %q does not resolve", ref)
		}
		if node, ok = m[tok]; !ok {
			return nil, fmt.Errorf("$ref %q does not resolve: no %q", ref, tok)
		}
	}
	return node, nil
}

func (c *converter) convertObject(n map[string]any, path string, depth int) (*tool.Schema, error) {
	s := &tool.Schema{Description: describe(n)}
	if err := c.setType(s, n["type"], path); err != nil {
		return nil, err
	}
	if err := setScalars(s, n, path); err != nil {
		return nil, err
	}
	if err := c.setChildren(s, n, path, depth); err != nil {
		return nil, err
	}
	if err := c.setCombinators(s, n, path, depth); err != nil {
		return nil, err
	}
	if s.Type == "" && s.Properties != nil {
		s.Type = "object"
	}
	return s, nil
}

// setType accepts "type" as a string or a list of strings; "null" in a list
// only marks the value nullable, which the internal schema does not track.
func (c *converter) setType(s *tool.Schema, t any, path string) error {
	switch v := t.(type) {
	case nil:
		return nil
	case string:
		if !jsonTypes[v] {
			return fmt.Errorf("%s: type %q is not a JSON Schema type", path, v)
		}
		s.Type = v
		return nil
	case []any:
		var types []string
		for _, x := range v {
			str, ok := x.(string)
			if !ok || !jsonTypes[str] {
				return fmt.Errorf("%s: type %v is not a JSON Schema type", path, x)
			}
			if str != "null" {
				types = append(types, str)
			}
		}
		switch len(types) {
		case 0:
			s.Type = "null"
		case 1:
			s.Type = types[0]
		default:
			for _, ty := range types {
				s.AnyOf = append(s.AnyOf, &tool.Schema{Type: ty})
			}
		}
		return nil
	default:
		return fmt.Errorf("%s: type must be a string or a list of strings", path)
	}
}

func setScalars(s *tool.Schema, n map[string]any, path string) error {
	if e, ok := n["enum"]; ok {
		list, ok := e.([]any)
		if !ok {
			return fmt.Errorf("%s: enum must be a list", path)
		}
		s.Enum = list
	}
	if v, ok := n["const"]; ok && s.Enum == nil {
		s.Enum = []any{v}
	}
	s.Default = n["default"]
	s.Format, _ = n["format"].(string)
	s.Pattern, _ = n["pattern"].(string)
	s.Minimum = number(n, "minimum", "exclusiveMinimum")
	s.Maximum = number(n, "maximum", "exclusiveMaximum")
	s.MinLength = count(n, "minLength")
	s.MaxLength = count(n, "maxLength")
	s.MinItems = count(n, "minItems")
	s.MaxItems = count(n, "maxItems")
	return nil
}

func number(n map[string]any, keys ...string) *float64 {
	for _, k := range keys {
		if f, ok := n[k].(float64); ok {
			return &f
		}
	}
	return nil
}

func count(n map[string]any, key string) *int {
	f, ok := n[key].(float64)
	if !ok || f < 0 || f != math.Trunc(f) || f > math.MaxInt32 {
		return nil
	}
	i := int(f)
	return &i
}

func (c *converter) setChildren(s *tool.Schema, n map[string]any, path string, depth int) error {
	if p, ok := n["properties"]; ok && p != nil {
		props, ok := p.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: properties must be an object", path)
		}
		s.Properties = make(map[string]*tool.Schema, len(props))
		for _, name := range sortedKeys(props) {
			child, err := c.convert(props[name], path+".properties."+name, depth+1)
			if err != nil {
				return err
			}
			s.Properties[name] = child
		}
	}
	if r, ok := n["required"]; ok && r != nil {
		list, ok := r.([]any)
		if !ok {
			return fmt.Errorf("%s: required must be a list of property names", path)
		}
		for _, x := range list {
			name, ok := x.(string)
			if !ok {
				return fmt.Errorf("%s: required must be a list of property names", path)
			}
			s.Required = append(s.Required, name)
		}
	}
	if err := c.setItems(s, n["items"], path, depth); err != nil {
		return err
	}
	switch ap := n["additionalProperties"].(type) {
	case bool:
		s.AdditionalProperties = ap
	case map[string]any:
		child, err := c.convert(ap, path+".additionalProperties", depth+1)
		if err != nil {
			return err
		}
		s.AdditionalProperties = child
	}
	return nil
}

func (c *converter) setItems(s *tool.Schema, items any, path string, depth int) error {
	switch it := items.(type) {
	case nil, bool:
		return nil
	case []any: // tuple form: the first item's schema stands for all
		if len(it) == 0 {
			return nil
		}
		c.warnf("%s.items: tuple schema simplified to its first element", path)
		items = it[0]
	}
	child, err := c.convert(items, path+".items", depth+1)
	if err != nil {
		return err
	}
	s.Items = child
	if s.Type == "" {
		s.Type = "array"
	}
	return nil
}

// setCombinators folds allOf into s and keeps anyOf / oneOf as AnyOf; a
// {"type": "null"} branch only makes the value nullable and is dropped.
func (c *converter) setCombinators(s *tool.Schema, n map[string]any, path string, depth int) error {
	for _, key := range []string{"anyOf", "oneOf", "allOf"} {
		raw, ok := n[key]
		if !ok {
			continue
		}
		list, ok := raw.([]any)
		if !ok {
			return fmt.Errorf("%s: %s must be a list of schemas", path, key)
		}
		var branches []*tool.Schema
		for i, b := range list {
			child, err := c.convert(b, fmt.Sprintf("%s.%s[%d]", path, key, i), depth+1)
			if err != nil {
				return err
			}
			if child.Type != "null" {
				branches = append(branches, child)
			}
		}
		if key == "allOf" {
			for _, b := range branches {
				mergeInto(s, b)
			}
			continue
		}
		if len(branches) == 1 && s.Type == "" && s.Properties == nil {
			d := s.Description
			*s = *branches[0]
			if d != "" {
				s.Description = d
			}
			continue
		}
		s.AnyOf = append(s.AnyOf, branches...)
	}
	return nil
}

// mergeInto adds b's constraints to s (allOf): properties and required are
// united, the rest fills what s leaves empty.
func mergeInto(s, b *tool.Schema) {
	if s.Type == "" {
		s.Type = b.Type
	}
	if s.Description == "" {
		s.Description = b.Description
	}
	if len(b.Properties) > 0 && s.Properties == nil {
		s.Properties = map[string]*tool.Schema{}
	}
	for k, v := range b.Properties {
		if _, ok := s.Properties[k]; !ok {
			s.Properties[k] = v
		}
	}
	for _, r := range b.Required {
		if !contains(s.Required, r) {
			s.Required = append(s.Required, r)
		}
	}
	if s.Items == nil {
		s.Items = b.Items
	}
	if s.Enum == nil {
		s.Enum = b.Enum
	}
}
