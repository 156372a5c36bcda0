package runtime

import (
	"testing"
	"time"
)

func TestWaitNotice(t *testing.T) {
	now := time.Now()
	for _, c := range []struct {
		s       connectingServer
		timeout time.Duration
		want    string
	}{
		{connectingServer{name: "slow", since: now.Add(-2200 * time.Millisecond)}, 30 * time.Second,
			`waiting for MCP server "slow" (connecting for 2s; gives up at mcp.connectionTimeout 30s; set enabled: false on it (mcp: overrides: "slow": enabled: false) or lower mcp.connectionTimeout)`},
		{connectingServer{name: "notes:db", since: now.Add(-61 * time.Second)}, 90 * time.Second,
			`waiting for MCP server "notes:db" (connecting for 61s; gives up at mcp.connectionTimeout 90s; set enabled: false on it (mcp: overrides: "notes:db": enabled: false) or lower mcp.connectionTimeout)`},
		{connectingServer{name: "ed", since: now.Add(-800 * time.Millisecond), editor: true}, 1500 * time.Millisecond,
			`waiting for MCP server "ed" (connecting for 1s; gives up at mcp.connectionTimeout 1.5s; remove it from the editor's MCP settings or lower mcp.connectionTimeout)`},
	} {
		if got := waitNotice(c.s, now, c.timeout); got != c.want {
			t.Errorf("got  %s\nwant %s", got, c.want)
		}
	}
}
