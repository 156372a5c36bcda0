package cli

import (
	"bytes"
	"flag"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strings"
	"testing"
)

var updateDocs = flag.Bool("update", false, "rewrite docs/cli.md from the command tree")

const cliReferencePath = "../../docs/cli.md"

// TestCLIReference fails when docs/cli.md is not what the command tree
// generates. Regenerate with
//
//	go test ./cmd/cli -run TestCLIReference -update   (or UPDATE_DOCS=1)
func TestCLIReference(t *testing.T) {
	var b bytes.Buffer
	if err := GenerateCLIReference(&b); err != nil {
		t.Fatal(err)
	}
	if *updateDocs || os.Getenv("UPDATE_DOCS") != "" {
		if err := os.WriteFile(cliReferencePath, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(cliReferencePath)
	if err != nil {
		t.Fatalf("%v; generate it with `go test ./cmd/cli -run TestCLIReference -update`", err)
	}
	if !bytes.Equal(got, b.Bytes()) {
		t.Fatalf("docs/cli.md is out of date (first difference at line %d); regenerate it with `go test ./cmd/cli -run TestCLIReference -update` and commit it",
			firstDiffLine(string(got), b.String()))
	}
}

// The generator is deterministic and covers every command.
func TestCLIReferenceContents(t *testing.T) {
	var a, b bytes.Buffer
	if err := GenerateCLIReference(&a); err != nil {
		t.Fatal(err)
	}
	if err := GenerateCLIReference(&b); err != nil {
		t.Fatal(err)
	}
	if a.String() != b.String() {
		t.Fatal("two generations differ")
	}
	doc := a.String()
	for _, want := range []string{"### ollm profile apply", "--locked", "### ollm policy check", "### ollm completion bash", "| 130 | `ExitCancelled` |"} {
		if !strings.Contains(doc, want) {
			t.Errorf("reference lacks %q", want)
		}
	}
	for _, c := range walkCommands(NewCmdRoot(&Factory{IO: &IOStreams{}})) {
		if !strings.Contains(doc, "### "+c.CommandPath()+"\n") {
			t.Errorf("reference lacks a section for %q", c.CommandPath())
		}
	}
	if strings.Contains(doc, "### ollm help") {
		t.Error("the help command is listed")
	}
}

// Every ExitCode constant of errors.go has a row in the exit-code table.
func TestExitCodeDocsComplete(t *testing.T) {
	file, err := parser.ParseFile(token.NewFileSet(), "errors.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	documented := map[string]bool{}
	for _, e := range exitCodeDocs {
		documented[e.Name] = true
	}
	n := 0
	ast.Inspect(file, func(node ast.Node) bool {
		vs, ok := node.(*ast.ValueSpec)
		if !ok {
			return true
		}
		if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "ExitCode" {
			return true
		}
		for _, name := range vs.Names {
			n++
			if !documented[name.Name] {
				t.Errorf("exit code %s is not in exitCodeDocs (docgen.go)", name.Name)
			}
		}
		return true
	})
	if n != len(exitCodeDocs) {
		t.Errorf("errors.go declares %d exit codes, exitCodeDocs lists %d", n, len(exitCodeDocs))
	}
}

func firstDiffLine(a, b string) int {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(la), len(lb)) {
		if la[i] != lb[i] {
			return i + 1
		}
	}
	return min(len(la), len(lb)) + 1
}
