package mcp

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
)

// rawSchemaServer is a streamable HTTP server with one tool whose
// inputSchema uses JSON Schema 2020-12 keywords mcp-go's Tool type does
// not keep, and records the arguments of each call.
func rawSchemaServer(t *testing.T, schema string) (url string, calls *[]string) {
	t.Helper()
	var got []string
	s := mcpserver.NewMCPServer("schemas", "1", mcpserver.WithToolCapabilities(false))
	s.AddTool(mcp.NewToolWithRawSchema("plan", "plans a trip", json.RawMessage(schema)),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			b, _ := json.Marshal(req.GetRawArguments())
			got = append(got, string(b))
			return mcp.NewToolResultText("ok"), nil
		})
	srv := httptest.NewServer(mcpserver.NewStreamableHTTPServer(s))
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp", &got
}

const schema2020 = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "$defs": {"address": {"type": "object", "properties": {"street": {"type": "string"}, "city": {"type": "string"}}, "required": ["city"]}},
  "properties": {
    "name": {"type": "string"},
    "address": {"$ref": "#/$defs/address"},
    "dryRun": {"type": ["boolean", "null"]},
    "kind": {"enum": ["car", "train"]},
    "plate": {"type": "string"}
  },
  "allOf": [{"required": ["name"]}],
  "if": {"properties": {"kind": {"const": "car"}}, "required": ["kind"]},
  "then": {"required": ["plate"]},
  "additionalProperties": false
}`

// TestServerSchemaKeptAndChecked: a tool's inputSchema reaches `mcp
// tools --json` and `mcp serve` as the server sent it, and calls are
// checked against it, not against the simplified copy the model is
// offered: null passes for a nullable boolean, if/then applies.
func TestServerSchemaKeptAndChecked(t *testing.T) {
	url, calls := rawSchemaServer(t, schema2020)
	m := startManager(t, []Spec{{Name: "trips", Config: Config{URL: url, Enabled: true}}}, Options{})
	tl := mustLookup(t, m, "trips:plan")

	raw := tl.(interface{ RawSchema() json.RawMessage }).RawSchema()
	var got map[string]any
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatalf("raw schema %s: %v", raw, err)
	}
	for _, k := range []string{"$schema", "$defs", "allOf", "if", "then"} {
		if _, ok := got[k]; !ok {
			t.Errorf("inputSchema lost %s: %s", k, raw)
		}
	}
	if got["additionalProperties"] != false {
		t.Errorf("additionalProperties = %v, want false", got["additionalProperties"])
	}

	run(t, tl, `{"name": "a", "dryRun": null, "address": {"city": "Oslo"}}`, nil)
	if len(*calls) != 1 || !strings.Contains((*calls)[0], `"dryRun":null`) {
		t.Fatalf("the server got %q, want the call with dryRun null", *calls)
	}
	for params, want := range map[string]string{
		`{"name": "a", "kind": "car"}`:              "plate",
		`{"kind": "train"}`:                         "name",
		`{"name": "a", "address": {"street": "x"}}`: "city",
		`{"name": "a", "dryRun": "yes"}`:            "dryRun",
		`{"name": "a", "colour": "red"}`:            "colour",
	} {
		if _, err := tl.Build(json.RawMessage(params)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Build(%s) = %v, want an error naming %s", params, err, want)
		}
	}
	if len(*calls) != 1 {
		t.Errorf("refused calls reached the server: %q", *calls)
	}
}

// TestServerSchemaLoadsNothing: a $ref to a local file is not followed
// (a server cannot make ollm read a file by naming it): the schema does
// not compile as written, and the simplified copy checks the call. Were
// the file read, its always-false "if" would apply "else", which
// requires a property the call lacks.
func TestServerSchemaLoadsNothing(t *testing.T) {
	f := filepath.Join(t.TempDir(), "never.json")
	if err := os.WriteFile(f, []byte(`{"not": {}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	schema := `{"type": "object", "properties": {"name": {"type": "string"}},
	  "if": {"$ref": "file://` + f + `"}, "then": {}, "else": {"required": ["zzz"]}}`
	url, calls := rawSchemaServer(t, schema)
	m := startManager(t, []Spec{{Name: "trips", Config: Config{URL: url, Enabled: true}}}, Options{})
	run(t, mustLookup(t, m, "trips:plan"), `{"name": "a"}`, nil)
	if len(*calls) != 1 {
		t.Fatalf("calls %q", *calls)
	}
}

// TestServerSchemaFromToolCache: a session that takes a server's tools
// from the tool cache checks calls against the schema as sent too.
func TestServerSchemaFromToolCache(t *testing.T) {
	url, calls := rawSchemaServer(t, schema2020)
	spec := Spec{Name: "trips", Config: Config{URL: url, Enabled: true}}
	opts := Options{ToolCache: filepath.Join(t.TempDir(), "mcp-tools"), ProtocolCache: filepath.Join(t.TempDir(), "p.json"), Snapshot: true}
	startManager(t, []Spec{spec}, opts).Close()
	opts.UseToolCache = true
	m := startManager(t, []Spec{spec}, opts)
	if !m.servers["trips"].conn.fromCache.Load() {
		t.Fatal("the second start listed the tools again")
	}
	tl := mustLookup(t, m, "trips:plan")
	if raw := string(tl.(interface{ RawSchema() json.RawMessage }).RawSchema()); !strings.Contains(raw, `"$defs"`) || !strings.Contains(raw, `"if"`) {
		t.Errorf("cached inputSchema lost keywords: %s", raw)
	}
	run(t, tl, `{"name": "a", "dryRun": null}`, nil)
	if _, err := tl.Build(json.RawMessage(`{"name": "a", "kind": "car"}`)); err == nil {
		t.Error("if/then not applied to a cached tool")
	}
	if len(*calls) != 1 {
		t.Errorf("calls %q", *calls)
	}
}
