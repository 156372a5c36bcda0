package mcp

import (
	"encoding/json"
	"slices"

	"github.com/ollm/ollm/core/tool"
)

// withoutRefusedNulls retries a call its schema refused, taking null
// for an optional parameter as the parameter left out. A model (or a
// script, or the conformance suite, whose test_custom_headers_null sends
// "verbose": null for a boolean) often writes null for "not given";
// SEP-2243 treats a null x-mcp-header value as omitted too. A null the
// schema allows is kept: each null is put back when the call still
// passes with it. It returns the checked parameters, or false when the
// call fails without its optional nulls too.
func withoutRefusedNulls(v *tool.Validator, params json.RawMessage, required []string) (json.RawMessage, bool) {
	var args map[string]json.RawMessage
	if err := json.Unmarshal(params, &args); err != nil {
		return nil, false
	}
	var nulls []string
	for k, val := range args {
		if string(val) == "null" && !slices.Contains(required, k) {
			nulls = append(nulls, k)
			delete(args, k)
		}
	}
	if len(nulls) == 0 {
		return nil, false
	}
	check := func() (json.RawMessage, bool) {
		b, err := json.Marshal(args)
		if err != nil {
			return nil, false
		}
		c, err := v.Validate(b)
		return c, err == nil
	}
	checked, ok := check()
	if !ok {
		return nil, false
	}
	slices.Sort(nulls)
	for _, k := range nulls {
		args[k] = json.RawMessage("null")
		if c, ok := check(); ok {
			checked = c
		} else {
			delete(args, k)
		}
	}
	return checked, true
}

// requiredParams names the tool's required top-level parameters, from
// the schema as the server sent it and from the model's copy.
func (d *toolDef) requiredParams() []string {
	var req []string
	if d.schema != nil {
		req = append(req, d.schema.Required...)
	}
	var raw struct {
		Required []string `json:"required"`
	}
	if d.raw != nil && json.Unmarshal(d.raw, &raw) == nil {
		req = append(req, raw.Required...)
	}
	return req
}
