package mcp

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"testing/iotest"
)

func TestFilterSSE(t *testing.T) {
	small := `{"jsonrpc":"2.0","id":1,"result":{}}`
	big := `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"` + strings.Repeat("ab", 200) + `"}]}}`
	bigNote := `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"` + strings.Repeat("x", 300) + `"}}`
	tests := []struct {
		name, in string
		want     string // "" means: the input unchanged
		over     int
	}{
		{name: "small event", in: "event: message\nid: 3\ndata: " + small + "\n\n"},
		{name: "comment and keepalive", in: ": ping\n\n\ndata: " + small + "\r\n\r\n", want: ": ping\n\n\ndata: " + small + "\r\n\n"},
		{name: "several data lines", in: "data: {\"jsonrpc\":\"2.0\",\ndata: \"id\":1}\n\n"},
		{name: "event left open at the end", in: "data: " + small + "\n", want: "data: " + small + "\n\n"},
		{
			name: "oversized response keeps event and id",
			in:   "event: message\nid: 9\ndata: " + big + "\n\ndata: " + small + "\n\n",
			want: "event: message\nid: 9\ndata: REPLACED(7)\n\ndata: " + small + "\n\n",
			over: 1,
		},
		{
			name: "oversized over several data lines",
			in:   "data: " + big[:24] + "\ndata: " + big[24:] + "\n\n", // split before "result"
			want: "data: REPLACED(7)\n\n",
			over: 1,
		},
		{name: "oversized notification dropped", in: "data: " + bigNote + "\n\n", want: "\n", over: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			var over []oversized
			// One byte at a time exercises every chunk boundary.
			err := filterSSE(iotest.OneByteReader(strings.NewReader(tt.in)), &out, 200, lineHooks{
				oversized: func(o oversized) { over = append(over, o) },
			})
			if err != nil {
				t.Fatal(err)
			}
			want := tt.want
			if want == "" {
				want = tt.in
			}
			if got := replacedIDs(t, out.String()); got != want {
				t.Errorf("got\n%q\nwant\n%q", got, want)
			}
			if len(over) != tt.over {
				t.Errorf("%d oversized reported, want %d", len(over), tt.over)
			}
		})
	}
}

// replacedIDs rewrites every truncation replacement in an SSE stream as
// REPLACED(id) after checking it holds the start of the text.
func replacedIDs(t *testing.T, s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		data, ok := strings.CutPrefix(l, "data: ")
		if !ok || !strings.Contains(data, "truncated") {
			continue
		}
		var r struct {
			ID     json.RawMessage `json:"id"`
			Result struct {
				Content []struct{ Text string }
			}
		}
		if err := json.Unmarshal([]byte(data), &r); err != nil {
			t.Fatalf("replacement %s: %v", data, err)
		}
		if !strings.HasPrefix(r.Result.Content[0].Text, "abab") {
			t.Errorf("replacement text %.80q", r.Result.Content[0].Text)
		}
		lines[i] = "data: REPLACED(" + string(r.ID) + ")"
	}
	return strings.Join(lines, "\n")
}

func TestFilterJSON(t *testing.T) {
	small := `{"jsonrpc":"2.0","id":1,"result":{}}`
	big := `{"jsonrpc":"2.0","id":"r2","result":{"content":[{"type":"text","text":"` + strings.Repeat("ab", 200) + `"}]}}`
	var out bytes.Buffer
	if err := filterJSON(strings.NewReader(small), &out, 200, lineHooks{}); err != nil || out.String() != small {
		t.Fatalf("small: %q, %v", out.String(), err)
	}
	out.Reset()
	if err := filterJSON(iotest.HalfReader(strings.NewReader(big)), &out, 200, lineHooks{}); err != nil {
		t.Fatal(err)
	}
	if got := replacedIDs(t, "data: "+strings.TrimSpace(out.String())); got != `data: REPLACED("r2")` {
		t.Errorf("big: %q", out.String())
	}
}
