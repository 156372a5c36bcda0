package acp

import (
	"strings"
	"testing"
)

// Which elicitations the editor's permission prompt can answer, and with
// what options.
func TestElicitOptions(t *testing.T) {
	for _, c := range []struct {
		name, url, schema string
		options, why      string
	}{
		{name: "url", url: "https://example.test/login", options: "value: deny"},
		{name: "no field", schema: `{"type":"object","properties":{}}`, options: "value: deny"},
		{name: "no schema", options: "value: deny"},
		{name: "boolean", schema: `{"properties":{"ok":{"type":"boolean"}}}`, options: "value:true value:false deny"},
		{name: "enum", schema: `{"properties":{"size":{"type":"string","enum":["s","m","l"]}}}`, options: "value:s value:m value:l deny"},
		{name: "integer enum", schema: `{"properties":{"n":{"type":"integer","enum":[1,2]}}}`, options: "value:1 value:2 deny"},
		{name: "text", schema: `{"properties":{"name":{"type":"string"}}}`, why: "typed answers (name)"},
		{name: "several", schema: `{"properties":{"name":{"type":"string"},"check":{"type":"boolean"}}}`, why: "typed answers (check, name)"},
		{name: "bad schema", schema: `[1]`, why: "not a JSON schema"},
	} {
		p := mcpParams{Server: "s", URL: c.url}
		if c.schema != "" {
			p.Schema = []byte(c.schema)
		}
		opts, why := elicitOptions(p)
		var ids []string
		for _, o := range opts {
			ids = append(ids, string(o.OptionId))
		}
		if got := strings.Join(ids, " "); got != c.options || (c.why == "") != (why == "") || !strings.Contains(why, c.why) {
			t.Errorf("%s: options %q, why %q; want %q, %q", c.name, got, why, c.options, c.why)
		}
	}
}
