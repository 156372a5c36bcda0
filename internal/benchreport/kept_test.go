package main

import "testing"

// A new report keeps the hand-measured part of the old one, marker and all,
// and adds nothing when the old one has none.
func TestKeptPart(t *testing.T) {
	old := "# Performance\n\n| generated |\n\n" + keptMarker + "\n## Install on a fresh clone\n\n| make install | 3 min |\n"
	if got, want := string(keptPart([]byte(old))), "\n"+keptMarker+"\n## Install on a fresh clone\n\n| make install | 3 min |\n"; got != want {
		t.Errorf("keptPart = %q, want %q", got, want)
	}
	if got := keptPart([]byte("# Performance\n\n| generated |\n")); len(got) != 0 {
		t.Errorf("keptPart of a report without the marker = %q, want nothing", got)
	}
}
