package runtime

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestElicitContent(t *testing.T) {
	one := func(typ string) json.RawMessage {
		return json.RawMessage(`{"type":"object","properties":{"v":{"type":"` + typ + `"}}}`)
	}
	two := json.RawMessage(`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"number"}}}`)
	for _, c := range []struct {
		schema json.RawMessage
		answer string
		want   map[string]any
		err    string
	}{
		{one("string"), " Ada ", map[string]any{"v": "Ada"}, ""},
		{one("integer"), "42", map[string]any{"v": int64(42)}, ""},
		{one("integer"), "4.2", nil, "not an integer"},
		{one("number"), "2.5", map[string]any{"v": 2.5}, ""},
		{one("boolean"), "yes", map[string]any{"v": true}, ""},
		{one("boolean"), "maybe", nil, "not a boolean"},
		{one("array"), "a, b", map[string]any{"v": []string{"a", "b"}}, ""},
		{two, `{"a": "x", "b": 1}`, map[string]any{"a": "x", "b": 1.0}, ""},
		{two, "plain", nil, "several fields (a, b)"},
		{two, "{broken", nil, "not a JSON object"},
	} {
		got, err := ElicitContent(c.schema, c.answer)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s %q: err %v, want %q", c.schema, c.answer, err, c.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s %q = %#v, %v; want %#v", c.schema, c.answer, got, err, c.want)
		}
	}
}
