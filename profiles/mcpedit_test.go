package profiles

import (
	"errors"
	"strings"
	"testing"

	"cuelang.org/go/cue/parser"

	"github.com/ollm/ollm/schema"
)

func TestAddMCPServer(t *testing.T) {
	stdio := schema.MCPServer{Command: "npx", Args: []string{"-y", "@scope/server", "--dir", "a b"}, Env: map[string]string{"TOKEN": "${GH_TOKEN}", "A": "1"}}
	web := schema.MCPServer{Transport: "http", URL: "http://127.0.0.1:3001/mcp", Headers: map[string]string{"Authorization": "Bearer ${T}"}}
	tests := []struct {
		name, in string
		server   string
		cfg      schema.MCPServer
		want     string
	}{
		{
			name: "new file", in: "", server: "gh", cfg: stdio,
			want: `mcp: servers: {
	gh: {
		command: "npx"
		args: ["-y", "@scope/server", "--dir", "a b"]
		env: {A: "1", TOKEN: "${GH_TOKEN}"}
	}
}
`,
		},
		{
			name:   "no mcp yet, comments kept",
			in:     "// team profile\nmodel: \"qwen3\" // the default\n",
			server: "web", cfg: web,
			want: `// team profile
model: "qwen3" // the default

mcp: servers: {
	web: {
		transport: "http"
		url:       "http://127.0.0.1:3001/mcp"
		headers: {Authorization: "Bearer ${T}"}
	}
}
`,
		},
		{
			name:   "mcp without servers",
			in:     "mcp: {\n\t// slow servers\n\tconnectionTimeout: 60000\n}\n",
			server: "my-server.v2", cfg: schema.MCPServer{Command: "srv"},
			want: `mcp: {
	// slow servers
	connectionTimeout: 60000
	servers: {
		"my-server.v2": {
			command: "srv"
		}
	}
}
`,
		},
		{
			name:   "into existing servers, short form",
			in:     "mcp: servers: fs: {command: \"fs\"} // files\n",
			server: "web", cfg: web,
			want: `mcp: servers: {
	fs: {command: "fs"}
	web: {
		transport: "http"
		url:       "http://127.0.0.1:3001/mcp"
		headers: {Authorization: "Bearer ${T}"}
	}
} // files
`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := AddMCPServer("ollm.cue", []byte(tt.in), tt.server, tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != tt.want {
				t.Errorf("got\n%s\nwant\n%s", out, tt.want)
			}
			if _, err := parser.ParseFile("out.cue", out); err != nil {
				t.Errorf("result does not parse: %v", err)
			}
		})
	}
}

func TestAddMCPServerRefusesExisting(t *testing.T) {
	in := "model: \"x\"\n\nmcp: servers: fs: {command: \"fs\"}\n\nmcp: servers: {\n\tgh: {command: \"gh\"}\n}\n"
	_, err := AddMCPServer("/w/ollm.cue", []byte(in), "gh", schema.MCPServer{Command: "other"})
	var pe *Error
	if !errors.As(err, &pe) || pe.Diags[0].Pos != "/w/ollm.cue:6" || !strings.Contains(err.Error(), "ollm mcp remove gh") {
		t.Fatalf("err %v", err)
	}
	if pos, err := FindMCPServer("/w/ollm.cue", []byte(in), "fs"); err != nil || pos != "/w/ollm.cue:3" {
		t.Errorf("FindMCPServer fs = %q, %v", pos, err)
	}
	if pos, err := FindMCPServer("/w/ollm.cue", []byte(in), "nope"); err != nil || pos != "" {
		t.Errorf("FindMCPServer nope = %q, %v", pos, err)
	}
}

func TestRemoveMCPServer(t *testing.T) {
	tests := []struct{ name, in, server, want string }{
		{
			name:   "one of two, comments kept",
			in:     "// head\nmcp: servers: {\n\t// the file server\n\tfs: {command: \"fs\"}\n\t// github\n\tgh: {command: \"gh\"}\n}\n",
			server: "gh",
			want:   "// head\nmcp: servers: {\n\t// the file server\n\tfs: {command: \"fs\"}\n}\n",
		},
		{
			name:   "the last one takes the empty servers and mcp along",
			in:     "model: \"x\"\n\nmcp: servers: gh: {command: \"gh\"}\n",
			server: "gh",
			want:   "model: \"x\"\n",
		},
		{
			name:   "mcp keeps its other fields",
			in:     "mcp: {\n\tenabled: true\n\tservers: gh: {command: \"gh\"}\n}\n",
			server: "gh",
			want:   "mcp: {\n\tenabled: true\n}\n",
		},
		{
			name:   "declared twice",
			in:     "mcp: servers: gh: {command: \"gh\"}\nmcp: servers: {gh: {args: [\"x\"]}, fs: {command: \"fs\"}}\n",
			server: "gh",
			want:   "mcp: servers: {fs: {command: \"fs\"}}\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := RemoveMCPServer("ollm.cue", []byte(tt.in), tt.server)
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != tt.want {
				t.Errorf("got\n%s\nwant\n%s", out, tt.want)
			}
		})
	}
	only := "// My own servers.\n"
	added, err := AddMCPServer("p.cue", []byte(only), "mine", schema.MCPServer{Command: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if back, err := RemoveMCPServer("p.cue", added, "mine"); err != nil || string(back) != only {
		t.Errorf("a file holding only a comment: added\n%s\nremoved %q, %v", added, back, err)
	}
	if _, err := RemoveMCPServer("ollm.cue", []byte("mcp: servers: fs: {command: \"fs\"}\n"), "gh"); !errors.Is(err, ErrMCPServerNotFound) {
		t.Errorf("missing server: %v", err)
	}
}

// TestAddRemoveRoundTrip: adding a server and removing it again gives the
// file back byte for byte.
func TestAddRemoveRoundTrip(t *testing.T) {
	in := "// team\nmodel: \"qwen3\"\n\npolicy: {\n\tdefaultAction: \"ask\" // careful\n}\n"
	added, err := AddMCPServer("ollm.cue", []byte(in), "gh", schema.MCPServer{Command: "gh"})
	if err != nil {
		t.Fatal(err)
	}
	back, err := RemoveMCPServer("ollm.cue", added, "gh")
	if err != nil || string(back) != in {
		t.Errorf("round trip:\n%s\nerr %v", back, err)
	}
}
