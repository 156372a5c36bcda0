package tool

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

type echoParams struct {
	Text  string `json:"text"`
	Times int    `json:"times"`
}

func intp(v float64) *float64 { return &v }

func newEcho(name string) *Func[echoParams] {
	return &Func[echoParams]{
		Spec: Spec{ToolName: name, Desc: "echo text", ToolKind: KindRead, Params: &Schema{
			Type: "object",
			Properties: map[string]*Schema{
				"text":  {Type: "string"},
				"times": {Type: "integer", Minimum: intp(1)},
			},
			Required:             []string{"text"},
			AdditionalProperties: false,
		}},
		New: func(p echoParams) (*Call, error) {
			return &Call{
				Desc:    "echo " + p.Text,
				Locs:    []string{"mem:" + p.Text},
				Confirm: &Confirmation{Title: "Echo"},
				Run: func(ctx context.Context, out func(Chunk)) (Result, error) {
					n := max(p.Times, 1)
					for range n {
						if out != nil {
							out(Chunk{Text: p.Text})
						}
					}
					return OK(strings.Repeat(p.Text, n)), nil
				},
			}, nil
		},
	}
}

func TestBuildValidatesAndNamesParameter(t *testing.T) {
	echo := newEcho("echo")
	tests := []struct {
		params string
		want   string // substring of the error, "" = valid
	}{
		{`{"text":"hi"}`, ""},
		{`{"text":"hi","times":2}`, ""},
		{`{}`, `missing property 'text'`},
		{``, `missing property 'text'`},
		{`{"text":3}`, `parameter "text": got number, want string`},
		{`{"text":"a","times":0}`, `parameter "times": minimum`},
		{`{"text":"a","times":1.5}`, `parameter "times": got number, want integer`},
		{`{"text":"a","extra":1}`, `additional properties 'extra' not allowed`},
		{`{"text":`, `not valid JSON`},
	}
	for _, tt := range tests {
		_, err := echo.Build(json.RawMessage(tt.params))
		if tt.want == "" {
			if err != nil {
				t.Errorf("Build(%s): %v", tt.params, err)
			}
			continue
		}
		var te *Error
		if !errors.As(err, &te) || te.Kind != ErrInvalidParams {
			t.Errorf("Build(%s) = %v; want an invalid_params *Error", tt.params, err)
			continue
		}
		if !strings.Contains(te.Message, tt.want) || !strings.HasPrefix(te.Message, "echo: ") {
			t.Errorf("Build(%s) error %q; want it to contain %q", tt.params, te.Message, tt.want)
		}
	}
}

func TestInvocationCarriesConfirmationAndStreams(t *testing.T) {
	inv, err := newEcho("echo").Build(json.RawMessage(`{"text":"ab","times":3}`))
	if err != nil {
		t.Fatal(err)
	}
	c := inv.Confirmation()
	if c == nil || c.Kind != KindRead || c.Risk != RiskLow || string(c.Params) != `{"text":"ab","times":3}` || c.Locations[0] != "mem:ab" {
		t.Fatalf("confirmation = %+v", c)
	}
	if inv.Description() != "echo ab" || inv.Locations()[0] != "mem:ab" {
		t.Fatalf("description %q locations %v", inv.Description(), inv.Locations())
	}
	var chunks []string
	res, err := inv.Execute(context.Background(), func(c Chunk) { chunks = append(chunks, c.Text) })
	if err != nil || res.ForModel != "ababab" || len(chunks) != 3 {
		t.Fatalf("Execute = %+v, %v; chunks %v", res, err, chunks)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, _ = inv.Execute(ctx, nil)
	if res.Error == nil || res.Error.Kind != ErrCancelled {
		t.Fatalf("cancelled Execute = %+v", res)
	}
}

func TestRegistry(t *testing.T) {
	r := NewRegistry(newEcho("b"), newEcho("c"), newEcho("a"))
	names := func() string {
		var n []string
		for _, t := range r.List() {
			n = append(n, t.Name())
		}
		return strings.Join(n, ",")
	}
	if got := names(); got != "a,b,c" {
		t.Fatalf("List = %s", got)
	}
	for range 20 {
		if got := names(); got != "a,b,c" {
			t.Fatalf("List is not stable: %s", got)
		}
	}
	replacement := newEcho("b")
	replacement.Desc = "second b"
	r.Register(replacement)
	if got, ok := r.Get("b"); !ok || got.Description() != "second b" || names() != "a,b,c" {
		t.Fatalf("re-register did not replace: %v %v %s", got, ok, names())
	}
	if !r.Unregister("a") || r.Unregister("a") {
		t.Fatal("Unregister should report true once, then false")
	}
	if got, ok := r.Get("a"); ok || got != nil {
		t.Fatalf("Get after Unregister = %v, %v", got, ok)
	}
	defs := r.Definitions()
	if len(defs) != 2 || defs[0].Name != "b" || defs[1].Name != "c" || defs[0].Parameters.Required[0] != "text" {
		t.Fatalf("Definitions = %+v", defs)
	}
	data, _ := json.Marshal(defs[0])
	if !strings.Contains(string(data), `"parameters":{"type":"object"`) {
		t.Fatalf("definition JSON = %s", data)
	}
}

func TestRiskFor(t *testing.T) {
	tests := map[Kind]Risk{KindRead: RiskLow, KindSearch: RiskLow, KindThink: RiskLow, KindEdit: RiskMedium, KindFetch: RiskMedium, KindExecute: RiskHigh, KindDelete: RiskHigh, KindOther: RiskHigh}
	for k, want := range tests {
		if got := RiskFor(k); got != want {
			t.Errorf("RiskFor(%s) = %s, want %s", k, got, want)
		}
	}
}
