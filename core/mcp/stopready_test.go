package mcp

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// With StopWhenReady (ollm mcp list, ollm mcp tools) a server is stopped
// as soon as it is ready, while another still starts, and keeps the
// status and tools it reached.
func TestStopWhenReady(t *testing.T) {
	record := filepath.Join(t.TempDir(), "record")
	m := New([]Spec{faultSpec(t, "slow", "noinit"), faultSpec(t, "fast", "normal", "OLLM_MCP_FAULT_RECORD="+record)},
		Options{ConnectionTimeout: time.Minute, LogDir: t.TempDir(), StopWhenReady: true})
	m.Start()
	defer m.Close()
	waitFile(t, record, "stdin closed")
	if s := statusOf(m, "slow"); s.State != StateConnecting || s.Since.IsZero() {
		t.Errorf("slow: %+v, want still connecting, since when said", s)
	}
	fast := statusOf(m, "fast")
	if fast.State != StateReady || fast.Tools == 0 || !fast.Since.IsZero() {
		t.Errorf("fast after its stop: %+v, want ready with its tools", fast)
	}
	if _, ok := m.Lookup("fast:echo"); !ok {
		t.Error("fast's tools are not listed after its stop")
	}
	if !strings.Contains(readFile(record), "method tools/list") {
		t.Errorf("fast was stopped before its tools were listed: %q", readFile(record))
	}
}
