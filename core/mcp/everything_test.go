package mcp

import (
	"strings"
	"testing"
)

func TestEverythingStdio(t *testing.T) {
	m := startManager(t, []Spec{everythingStdio(t, "everything")}, Options{})
	st := m.Status()[0]
	if st.State != StateReady {
		t.Fatalf("status %+v", st)
	}
	res := run(t, mustLookup(t, m, "echo"), `{"message":"hi there"}`, nil)
	if res.Error != nil || !strings.Contains(res.ForModel, "hi there") {
		t.Fatalf("echo: %+v", res)
	}
	res = run(t, mustLookup(t, m, "everything:get-sum"), `{"a":2,"b":40}`, nil)
	if !strings.Contains(res.ForModel, "42") {
		t.Fatalf("get-sum: %+v", res)
	}
	for _, tl := range m.Tools() {
		t.Logf("%s %v", tl.Name(), tl.Kind())
	}
}
