package cli

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"
)

// The examples/ tree for scripts: `examples` copies the repository's
// examples/ into $WORK/examples (file modes kept, since executable bits
// are part of an extension's hash), so testdata/script/examples_*.txtar
// apply and run the very files the README points at and none can rot.
//
// The notes-server example is an MCP server that its manifest starts with
// `go run .`; the command also hands the script this process's Go build
// cache and module cache (a script's HOME is empty) and forbids network
// and toolchain downloads, so the build is offline and warm.
var _ = registerExamples()

func registerExamples() bool {
	scriptCmds["examples"] = examplesCmd
	return true
}

func examplesCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: examples")
	}
	src, err := filepath.Abs(filepath.Join("..", "..", "examples"))
	ts.Check(err)
	ts.Check(copyTree(src, ts.MkAbs("examples")))
	env, err := goEnv()
	ts.Check(err)
	for k, v := range env {
		ts.Setenv(k, v)
	}
	ts.Setenv("GOTOOLCHAIN", "local")
	ts.Setenv("GOPROXY", "off")
}

var goEnvOnce = sync.OnceValues(func() (map[string]string, error) {
	out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE", "GOPATH").Output()
	if err != nil {
		return nil, err
	}
	v := strings.Split(strings.TrimSpace(string(out)), "\n")
	return map[string]string{"GOCACHE": v[0], "GOMODCACHE": v[1], "GOPATH": v[2]}, nil
})

func goEnv() (map[string]string, error) { return goEnvOnce() }

// copyTree copies the regular files and directories under src to dst,
// keeping each file's permission bits; .ollm state directories are left out.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() && d.Name() == ".ollm" {
			return filepath.SkipDir // a workspace's local state, not part of the example
		}
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, info.Mode().Perm())
	})
}
