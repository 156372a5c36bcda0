package mcp

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/ollm/ollm/core/tool"
	"github.com/ollm/ollm/schema"
)

func TestExpand(t *testing.T) {
	env := envLookup([]string{"HOME=/home/u", "EMPTY=", "TOKEN=abc"}, nil)
	tests := []struct {
		in, want string
		missing  []string
	}{
		{"plain", "plain", nil},
		{"${HOME}/bin", "/home/u/bin", nil},
		{"a${TOKEN}b${TOKEN}", "aabcbabc", nil},
		{"${NOPE}", "", []string{"NOPE"}},
		{"${NOPE}-${NOPE}-${ALSO}", "--", []string{"NOPE", "ALSO"}},
		{"${NOPE:-dflt}", "dflt", nil},
		{"${EMPTY:-dflt}", "dflt", nil},
		{"${EMPTY}", "", nil},
		{"${TOKEN:-dflt}", "abc", nil},
		{"${NOPE:-}", "", nil},
		{"$HOME ${unclosed", "$HOME ${unclosed", nil},
		{"${HOME:-a:-b}", "/home/u", nil},
	}
	for _, tt := range tests {
		got, missing := Expand(tt.in, env)
		if got != tt.want || !reflect.DeepEqual(missing, tt.missing) {
			t.Errorf("Expand(%q) = %q, %v; want %q, %v", tt.in, got, missing, tt.want, tt.missing)
		}
	}
}

func TestExpandServer(t *testing.T) {
	cfg := Config{
		Command: "${BIN_DIR}/srv", Args: []string{"--root", "${extensionPath}", "${MISSING}"},
		Env: map[string]string{"API_KEY": "${SECRET}", "MODE": "${MODE:-prod}"},
		URL: "http://127.0.0.1:${PORT:-8080}/mcp", Headers: map[string]string{"Authorization": "Bearer ${SECRET}"},
	}
	parent := []string{"BIN_DIR=/opt", "SECRET=s3", "PATH=/bin", "API_KEY=parent"}
	x := ExpandServer("srv", cfg, parent, map[string]string{"FROM_SETTING": "v"}, map[string]string{"extensionPath": "/ext"})
	if x.Command != "/opt/srv" || !reflect.DeepEqual(x.Args, []string{"--root", "/ext", ""}) {
		t.Errorf("command %q args %q", x.Command, x.Args)
	}
	if x.URL != "http://127.0.0.1:8080/mcp" || x.Headers["Authorization"] != "Bearer s3" {
		t.Errorf("url %q headers %v", x.URL, x.Headers)
	}
	// ollm's environment by allow-list (BIN_DIR and SECRET stay back),
	// then the settings, then the server's env, expanded against all of it;
	// no bytecode written into the directories its approval covers.
	want := []string{"API_KEY=s3", "FROM_SETTING=v", "MODE=prod", "PATH=/bin", "PYTHONDONTWRITEBYTECODE=1"}
	if !reflect.DeepEqual(x.Env, want) {
		t.Errorf("env %q, want %q", x.Env, want)
	}
	if len(x.Warnings) != 1 || !strings.Contains(x.Warnings[0], "${MISSING} in args[2]") || !strings.Contains(x.Warnings[0], `"srv"`) {
		t.Errorf("warnings %q", x.Warnings)
	}
}

func TestAssignNames(t *testing.T) {
	keys := []ToolKey{
		{"github", "search"}, {"jira", "search"}, {"fs", "read_file"}, {"fs", "list"},
		{"web", "fetch.page"}, {"ext:srv", "do-it"}, {"a", strings.Repeat("x", 70)},
		{"b", "c__d"}, {"b__c", "d"},
	}
	reserved := func(n string) bool { return n == "read_file" }
	n := AssignNames(keys, reserved)
	want := map[ToolKey]string{
		{"github", "search"}: "github__search", {"jira", "search"}: "jira__search",
		{"fs", "read_file"}: "fs__read_file", {"fs", "list"}: "list",
		{"web", "fetch.page"}: "fetch_page", {"ext:srv", "do-it"}: "do-it",
		{"b", "c__d"}: "c__d", {"b__c", "d"}: "d",
	}
	seen := map[string]bool{}
	for _, k := range keys {
		name, ok := n.Name(k)
		if !ok || !ModelNamePattern.MatchString(name) {
			t.Errorf("%v: name %q does not match the pattern", k, name)
		}
		if w, ok := want[k]; ok && name != w {
			t.Errorf("%v: name %q, want %q", k, name, w)
		}
		if back, _ := n.Key(name); back != k {
			t.Errorf("%q maps back to %v, want %v", name, back, k)
		}
		if seen[name] {
			t.Errorf("name %q given twice", name)
		}
		seen[name] = true
	}
	// Order does not matter.
	rev := append([]ToolKey(nil), keys...)
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	if n2 := AssignNames(rev, reserved); !reflect.DeepEqual(n, n2) {
		t.Error("names depend on the order of keys")
	}
}

func TestAssignNamesClashAfterCleaning(t *testing.T) {
	keys := []ToolKey{{"s1", "a.b"}, {"s2", "a_b"}}
	n := AssignNames(keys, nil)
	a, _ := n.Name(keys[0])
	b, _ := n.Name(keys[1])
	if a == b || !ModelNamePattern.MatchString(a) || !ModelNamePattern.MatchString(b) {
		t.Fatalf("names %q and %q", a, b)
	}
}

func TestParseToolKey(t *testing.T) {
	tests := map[string]ToolKey{"fs:read": {"fs", "read"}, "ext:srv:tool": {"ext:srv", "tool"}}
	for in, want := range tests {
		if got, ok := ParseToolKey(in); !ok || got != want {
			t.Errorf("ParseToolKey(%q) = %v, %v", in, got, ok)
		}
	}
	for _, bad := range []string{"plain", ":x", "x:"} {
		if _, ok := ParseToolKey(bad); ok {
			t.Errorf("ParseToolKey(%q) accepted", bad)
		}
	}
}

func decode(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func schemaJSON(s *tool.Schema) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestConvertSchema(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"empty", `{}`, `{"type":"object"}`},
		{"flat", `{"type":"object","properties":{"path":{"type":"string","description":"File"},"n":{"type":"integer","minimum":1,"default":3}},"required":["path"]}`,
			`{"type":"object","properties":{"n":{"type":"integer","default":3,"minimum":1},"path":{"type":"string","description":"File"}},"required":["path"]}`},
		{"enum and const", `{"properties":{"m":{"type":"string","enum":["a","b"]},"c":{"const":"x"}}}`,
			`{"type":"object","properties":{"c":{"enum":["x"]},"m":{"type":"string","enum":["a","b"]}}}`},
		{"nested", `{"type":"object","properties":{"o":{"type":"object","properties":{"xs":{"type":"array","items":{"type":"number"},"minItems":1}},"required":["xs"]}}}`,
			`{"type":"object","properties":{"o":{"type":"object","properties":{"xs":{"type":"array","items":{"type":"number"},"minItems":1}},"required":["xs"]}}}`},
		{"nullable type list", `{"properties":{"v":{"type":["string","null"]}}}`, `{"type":"object","properties":{"v":{"type":"string"}}}`},
		{"multi type", `{"properties":{"v":{"type":["string","number"]}}}`, `{"type":"object","properties":{"v":{"anyOf":[{"type":"string"},{"type":"number"}]}}}`},
		{"anyOf nullable", `{"properties":{"v":{"description":"d","anyOf":[{"type":"integer"},{"type":"null"}]}}}`,
			`{"type":"object","properties":{"v":{"type":"integer","description":"d"}}}`},
		{"allOf", `{"allOf":[{"properties":{"a":{"type":"string"}},"required":["a"]},{"properties":{"b":{"type":"boolean"}}}]}`,
			`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"boolean"}},"required":["a"]}`},
		{"ref to defs", `{"$defs":{"P":{"type":"object","properties":{"x":{"type":"number"}}}},"properties":{"p":{"$ref":"#/$defs/P","description":"a point"}}}`,
			`{"type":"object","properties":{"p":{"type":"object","description":"a point","properties":{"x":{"type":"number"}}}}}`},
		{"ref to property", `{"properties":{"a":{"type":"string","enum":["x"]},"b":{"$ref":"#/properties/a"}}}`,
			`{"type":"object","properties":{"a":{"type":"string","enum":["x"]},"b":{"type":"string","enum":["x"]}}}`},
		{"recursive", `{"$defs":{"Node":{"type":"object","description":"a node","properties":{"name":{"type":"string"},"children":{"type":"array","items":{"$ref":"#/$defs/Node"}}}}},"properties":{"root":{"$ref":"#/$defs/Node"}}}`,
			`{"type":"object","properties":{"root":{"type":"object","description":"a node","properties":{"children":{"type":"array","items":{"type":"object","description":"a node (recursive, same shape as #/$defs/Node)","additionalProperties":true}},"name":{"type":"string"}}}}}`},
		{"self root ref", `{"type":"object","properties":{"next":{"$ref":"#"}}}`,
			`{"type":"object","properties":{"next":{"type":"object","properties":{"next":{"type":"object","description":"(recursive, same shape as #)","additionalProperties":true}}}}}`},
		{"additionalProperties schema", `{"additionalProperties":{"type":"string"}}`, `{"type":"object","additionalProperties":{"type":"string"}}`},
		{"tuple items", `{"properties":{"t":{"type":"array","items":[{"type":"string"},{"type":"number"}]}}}`,
			`{"type":"object","properties":{"t":{"type":"array","items":{"type":"string"}}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, err := ConvertSchema(decode(t, tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if g := schemaJSON(got); g != tt.want {
				t.Errorf("got  %s\nwant %s", g, tt.want)
			}
		})
	}
}

func TestConvertSchemaInvalid(t *testing.T) {
	tests := map[string]string{
		`{"type":"string"}`:                                    `type is "string"`,
		`{"properties":{"a":{"type":"strng"}}}`:                `inputSchema.properties.a: type "strng"`,
		`{"properties":[1]}`:                                   "properties must be an object",
		`{"properties":{"a":{"$ref":"#/$defs/Missing"}}}`:      "does not resolve",
		`{"properties":{"a":{"$ref":"http://x/schema.json"}}}`: "only references inside the schema",
		`{"required":"a"}`:                                     "required must be a list",
		`{"properties":{"a":5}}`:                               "must be an object or a boolean",
		`{"properties":{"a":{"enum":"x"}}}`:                    "enum must be a list",
	}
	for in, want := range tests {
		_, _, err := ConvertSchema(decode(t, in))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err %v, want %q", in, err, want)
		}
	}
}

func TestConvertSchemaDeepIsFinite(t *testing.T) {
	// Two definitions that refer to each other, and a very deep chain.
	in := `{"$defs":{"A":{"type":"object","properties":{"b":{"$ref":"#/$defs/B"}}},"B":{"type":"object","properties":{"a":{"$ref":"#/$defs/A"}}}},"properties":{"a":{"$ref":"#/$defs/A"}}}`
	s, _, err := ConvertSchema(decode(t, in))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(schemaJSON(s), "recursive") {
		t.Errorf("mutual recursion not cut: %s", schemaJSON(s))
	}
	deep := `{"type":"string"}`
	for i := 0; i < 100; i++ {
		deep = `{"type":"object","properties":{"x":` + deep + `}}`
	}
	_, warns, err := ConvertSchema(decode(t, deep))
	if err != nil || len(warns) == 0 {
		t.Errorf("deep schema: err %v warnings %v", err, warns)
	}
}

func boolp(b bool) *bool { return &b }

func TestClassify(t *testing.T) {
	tests := []struct {
		ro, de *bool
		kind   tool.Kind
		risk   tool.Risk
	}{
		{boolp(true), nil, tool.KindRead, tool.RiskLow},
		{boolp(true), boolp(true), tool.KindRead, tool.RiskLow},
		{boolp(false), boolp(false), tool.KindOther, tool.RiskMedium},
		{nil, boolp(false), tool.KindOther, tool.RiskMedium},
		{boolp(false), boolp(true), tool.KindOther, tool.RiskHigh},
		{nil, nil, tool.KindOther, tool.RiskHigh},
	}
	for _, tt := range tests {
		k, r := Classify(tool.Annotations{ReadOnly: tt.ro, Destructive: tt.de})
		if k != tt.kind || r != tt.risk {
			t.Errorf("readOnly %v destructive %v: %s %s, want %s %s", tt.ro, tt.de, k, r, tt.kind, tt.risk)
		}
	}
}

func TestConvertResult(t *testing.T) {
	key := ToolKey{"srv", "t"}
	user := &mcp.Annotations{Audience: []mcp.Role{mcp.RoleUser}}
	asst := &mcp.Annotations{Audience: []mcp.Role{mcp.RoleAssistant}}
	tests := []struct {
		name           string
		res            mcp.CallToolResult
		model, display string
		errKind        tool.ErrorKind
	}{
		{"text", mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent("a"), mcp.NewTextContent("b")}}, "a\nb", "a\nb", ""},
		{"image", mcp.CallToolResult{Content: []mcp.Content{mcp.NewImageContent("AAAA", "image/png")}}, "[image: image/png, 3 bytes]", "[image: image/png, 3 bytes]", ""},
		{"audio", mcp.CallToolResult{Content: []mcp.Content{mcp.NewAudioContent("AAE=", "audio/wav")}}, "[audio: audio/wav, 2 bytes]", "[audio: audio/wav, 2 bytes]", ""},
		{"resource text", mcp.CallToolResult{Content: []mcp.Content{mcp.NewEmbeddedResource(mcp.TextResourceContents{URI: "file:///a", MIMEType: "text/plain", Text: "hello"})}},
			"[resource file:///a (text/plain)]\nhello", "[resource file:///a (text/plain)]\nhello", ""},
		{"resource blob", mcp.CallToolResult{Content: []mcp.Content{mcp.NewEmbeddedResource(mcp.BlobResourceContents{URI: "x:b", Blob: "AAAAAA=="})}},
			"[resource x:b: unknown type, 4 bytes]", "[resource x:b: unknown type, 4 bytes]", ""},
		{"link", mcp.CallToolResult{Content: []mcp.Content{mcp.NewResourceLink("demo://1", "one", "first", "text/plain")}},
			"[resource link one: demo://1 (text/plain) - first]", "[resource link one: demo://1 (text/plain) - first]", ""},
		{"audience", mcp.CallToolResult{Content: []mcp.Content{
			mcp.TextContent{Type: "text", Text: "for user", Annotated: mcp.Annotated{Annotations: user}},
			mcp.TextContent{Type: "text", Text: "for model", Annotated: mcp.Annotated{Annotations: asst}},
		}}, "for model", "for user", ""},
		{"structured only", mcp.CallToolResult{Content: []mcp.Content{}, StructuredContent: map[string]any{"t": 1.5}}, `{"t":1.5}`, `{"t":1.5}`, ""},
		{"structured with text", mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent("22C")}, StructuredContent: map[string]any{"t": 22}}, "22C", "22C", ""},
		{"isError", mcp.CallToolResult{Content: []mcp.Content{mcp.NewTextContent("boom")}, IsError: true}, "boom", "boom", tool.ErrExec},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ConvertResult(key, &tt.res, 1000)
			if got.ForModel != tt.model || got.Display != tt.display {
				t.Errorf("model %q display %q; want %q %q", got.ForModel, got.Display, tt.model, tt.display)
			}
			if (got.Error == nil) != (tt.errKind == "") || got.Error != nil && (got.Error.Kind != tt.errKind || !strings.Contains(got.Error.Message, "srv:t: boom")) {
				t.Errorf("error %+v, want kind %q", got.Error, tt.errKind)
			}
			if tt.res.StructuredContent != nil && !reflect.DeepEqual(got.Data, tt.res.StructuredContent) {
				t.Errorf("data %v", got.Data)
			}
		})
	}
}

func TestTruncate(t *testing.T) {
	if got := Truncate("héllo", 2); got != "h\n[truncated: 1 of 6 bytes shown]" {
		t.Errorf("%q", got)
	}
	if got := Truncate("short", 10); got != "short" {
		t.Errorf("%q", got)
	}
}

func TestFilterLines(t *testing.T) {
	big := `{"result":{"content":[{"type":"text","text":"` + strings.Repeat(`ab\"c`, 100) + `"}]},"jsonrpc":"2.0","id":7}`
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
		``,
		`npm WARN something`,
		big,
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"` + strings.Repeat("x", 300) + `"}}`,
		`{"jsonrpc":"2.0","id":"s-1","error":{"code":1,"message":"` + strings.Repeat("y", 300) + `"}}`,
		`{"jsonrpc":"2.0","id":2,"result":{}}`,
	}, "\n") + "\n"
	var out bytes.Buffer
	var stray []string
	var over []oversized
	err := filterLines(strings.NewReader(in), &out, 200, lineHooks{
		stray:     func(l []byte) { stray = append(stray, string(l)) },
		oversized: func(o oversized) { over = append(over, o) },
	})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 4 || lines[0] != `{"jsonrpc":"2.0","id":1,"result":{}}` || lines[3] != `{"jsonrpc":"2.0","id":2,"result":{}}` {
		t.Fatalf("output:\n%s", out.String())
	}
	var r struct {
		ID     int `json:"id"`
		Result struct {
			Content []struct{ Text string }
		}
	}
	if err := json.Unmarshal([]byte(lines[1]), &r); err != nil || r.ID != 7 {
		t.Fatalf("replacement %s: %v", lines[1], err)
	}
	if !strings.HasPrefix(r.Result.Content[0].Text, `ab"cab"c`) || !strings.Contains(r.Result.Content[0].Text, "truncated") {
		t.Errorf("replacement text %q", r.Result.Content[0].Text)
	}
	if !strings.Contains(lines[2], `"id":"s-1"`) || !strings.Contains(lines[2], `"error"`) {
		t.Errorf("error replacement %s", lines[2])
	}
	if len(stray) != 1 || len(over) != 3 || !over[1].Method || over[0].Bytes != int64(len(big)+1) {
		t.Errorf("stray %q oversized %+v", stray, over)
	}
}

func TestFilterLinesMalformed(t *testing.T) {
	var out bytes.Buffer
	err := filterLines(strings.NewReader("{\"id\":1,\"result\":{}}\n{\"id\":2,\"res\n"), &out, 1000, lineHooks{})
	var m *errMalformed
	if !errorsAs(err, &m) || !strings.Contains(err.Error(), "malformed JSON-RPC") {
		t.Fatalf("err %v", err)
	}
	if out.String() != "{\"id\":1,\"result\":{}}\n" {
		t.Errorf("out %q", out.String())
	}
}

func TestDecodePrefix(t *testing.T) {
	tests := map[string]string{`abc`: "abc", `a\"b`: `a"b`, `ab\`: "ab", `ab\u00`: "ab", `x\n`: "x\n"}
	for in, want := range tests {
		if got := decodePrefix([]byte(in)); got != want {
			t.Errorf("decodePrefix(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSpecs(t *testing.T) {
	off := false
	r := &schema.Resolved{
		Profile: schema.Profile{
			MCP: schema.MCP{Enabled: true,
				Servers: map[string]schema.MCPServer{
					"gh": {Command: "gh-mcp", Enabled: true, Env: map[string]string{"A": "1"}},
					"ws": {URL: "http://127.0.0.1:1/mcp", Enabled: true},
				},
				Overrides: map[string]schema.MCPOverride{
					"gh":      {Timeout: 5000, Env: map[string]string{"B": "2"}, ExcludeTools: []string{"delete"}},
					"ext:srv": {Enabled: &off},
				},
			},
			Settings: map[string]map[string]any{"ext": {"token": "t0k", "port": 8080.0}},
		},
		ServerScopes: map[string]schema.Scope{"gh": schema.ScopeUser, "ws": schema.ScopeWorkspace},
		Extensions: []schema.Extension{{Name: "ext", Dir: "/x/ext", Scope: schema.ScopeStore, Manifest: schema.Manifest{
			MCPServers: map[string]schema.MCPServer{"srv": {Command: "node", Enabled: true}},
			Settings: []schema.Setting{
				{Name: "token", EnvVar: "EXT_TOKEN"}, {Name: "port", EnvVar: "EXT_PORT"},
				{Name: "mode", EnvVar: "EXT_MODE", Default: "fast"}, {Name: "unset", EnvVar: "EXT_UNSET"}, {Name: "noenv"},
			},
		}}},
	}
	specs := Specs(r)
	if len(specs) != 3 || specs[0].Name != "ext:srv" || specs[1].Name != "gh" || specs[2].Name != "ws" {
		t.Fatalf("specs %+v", specs)
	}
	ext, gh, ws := specs[0], specs[1], specs[2]
	if ext.Config.Enabled || ext.Dir != "/x/ext" || ext.Extension != "ext" {
		t.Errorf("ext %+v", ext)
	}
	if !reflect.DeepEqual(ext.SettingsEnv, map[string]string{"EXT_TOKEN": "t0k", "EXT_PORT": "8080", "EXT_MODE": "fast"}) {
		t.Errorf("settings env %v", ext.SettingsEnv)
	}
	if gh.Config.Timeout != 5000 || !reflect.DeepEqual(gh.Config.Env, map[string]string{"A": "1", "B": "2"}) || gh.NeedsApproval() {
		t.Errorf("gh %+v", gh)
	}
	if !ws.NeedsApproval() || ws.Transport() != TransportHTTP {
		t.Errorf("ws %+v", ws)
	}
	for scope, want := range map[schema.Scope]bool{schema.ScopeStore: true, schema.ScopeWorkspace: true,
		schema.ScopeUser: false, schema.ScopeDirectory: false, schema.ScopeFlag: false, schema.ScopeBuiltin: false} {
		if got := (Spec{Scope: scope}).NeedsApproval(); got != want {
			t.Errorf("%s server NeedsApproval = %v, want %v", scope, got, want)
		}
	}
	if toolAllowed(gh.Config, "delete") || !toolAllowed(gh.Config, "list") {
		t.Error("excludeTools not applied")
	}
	inc := Config{IncludeTools: []string{"a", "b"}, ExcludeTools: []string{"b"}}
	if !toolAllowed(inc, "a") || toolAllowed(inc, "b") || toolAllowed(inc, "c") {
		t.Error("includeTools/excludeTools")
	}
}
