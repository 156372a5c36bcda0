package cli

import (
	"errors"
	"strings"
	"testing"

	"github.com/ollm/ollm/schema"
)

// The node check on a machine without node: a PATH without node cannot be
// set up inside a script (node sits in /usr/bin beside the shell), so the
// lookup is replaced here.
func TestDoctorNodeCheck(t *testing.T) {
	npx := schema.MCPServer{Command: "npx", Args: []string{"-y", "@scope/srv"}, Transport: "stdio", Enabled: true}
	off := npx
	off.Enabled = false
	cases := []struct {
		name    string
		servers map[string]schema.MCPServer
		have    []string
		status  CheckStatus
		message string
	}{
		{"no npx server", map[string]schema.MCPServer{"py": {Command: "python3", Transport: "stdio", Enabled: true}}, nil, CheckOK, "not needed"},
		{"disabled npx server", map[string]schema.MCPServer{"srv": off}, nil, CheckOK, "not needed"},
		{"both present", map[string]schema.MCPServer{"srv": npx}, []string{"node", "npx"}, CheckOK, "node and npx found for srv"},
		{"node missing", map[string]schema.MCPServer{"srv": npx}, []string{"npx"}, CheckFail, "node not found on PATH; MCP server(s) srv are launched with npx"},
		{"both missing", map[string]schema.MCPServer{"srv": npx}, nil, CheckFail, "node and npx not found on PATH"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := &schema.Resolved{}
			r.Profile.MCP.Enabled = true
			r.Profile.MCP.Servers = c.servers
			opts := &DoctorOptions{LookPath: func(p string) (string, error) {
				for _, h := range c.have {
					if h == p {
						return "/usr/bin/" + p, nil
					}
				}
				return "", errors.New("not found")
			}}
			got := nodeCheck(opts, r)
			if got.Status != c.status || !strings.Contains(got.Message, c.message) {
				t.Fatalf("nodeCheck = %+v, want %s containing %q", got, c.status, c.message)
			}
			if got.Status == CheckFail && !strings.Contains(got.Fix, "install Node.js") {
				t.Fatalf("fix = %q, want it to say to install Node.js", got.Fix)
			}
		})
	}
}
