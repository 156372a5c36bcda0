package runtime

import (
	"os/exec"
	"strings"
	"testing"
)

// The runtime and everything else in core/ run from a generation: no
// package of core/ may depend on the profile loader (CUE), the resolver or
// the command layer.
func TestCoreDoesNotImportProfilesOrCommands(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}: {{join .Imports \" \"}}", "github.com/ollm/ollm/core/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	forbidden := []string{"github.com/ollm/ollm/profiles", "github.com/ollm/ollm/resolver", "github.com/ollm/ollm/cmd/", "cuelang.org/go"}
	seen := 0
	for _, line := range strings.Split(string(out), "\n") {
		pkg, imports, ok := strings.Cut(line, ": ")
		if !ok || !strings.HasPrefix(pkg, "github.com/ollm/ollm/") {
			continue
		}
		seen++
		for _, imp := range strings.Fields(imports) {
			for _, f := range forbidden {
				if strings.HasPrefix(imp, f) {
					t.Errorf("%s imports %s", pkg, imp)
				}
			}
		}
	}
	if seen < 10 {
		t.Fatalf("go list saw only %d ollm packages:\n%s", seen, out)
	}
}
