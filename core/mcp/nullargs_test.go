package mcp

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestNullOptionalArgumentOmitted: null for an optional parameter whose
// schema does not allow null (the conformance suite's
// test_custom_headers_null sends "verbose": null for a boolean) reaches
// the server as the parameter left out, instead of the call being
// refused; a required parameter given as null is still refused, and a
// null the schema allows is sent as null.
func TestNullOptionalArgumentOmitted(t *testing.T) {
	url, calls := rawSchemaServer(t, `{"type": "object",
	  "properties": {"region": {"type": "string"}, "verbose": {"type": "boolean"}, "dry": {"type": ["boolean", "null"]}},
	  "required": ["region"]}`)
	m := startManager(t, []Spec{{Name: "hdr", Config: Config{URL: url, Enabled: true}}}, Options{})
	tl := mustLookup(t, m, "hdr:plan")

	run(t, tl, `{"region": "us-east1", "verbose": null, "dry": null}`, nil)
	if len(*calls) != 1 {
		t.Fatalf("calls %q, want one", *calls)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte((*calls)[0]), &got); err != nil {
		t.Fatal(err)
	}
	if _, ok := got["verbose"]; ok {
		t.Errorf("the server got %s, want verbose left out", (*calls)[0])
	}
	if v, ok := got["dry"]; !ok || v != nil {
		t.Errorf("the server got %s, want dry: null kept (the schema allows it)", (*calls)[0])
	}
	if _, err := tl.Build(json.RawMessage(`{"region": null}`)); err == nil || !strings.Contains(err.Error(), "region") {
		t.Errorf("Build with a required null = %v, want an error naming region", err)
	}
	if _, err := tl.Build(json.RawMessage(`{"region": "x", "verbose": "yes"}`)); err == nil || !strings.Contains(err.Error(), "verbose") {
		t.Errorf("Build with a wrong type = %v, want an error naming verbose", err)
	}
}
