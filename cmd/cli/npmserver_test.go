package cli

import (
	"os"
	"path/filepath"

	"github.com/rogpeppe/go-internal/testscript"
)

var _ = registerNPMServer()

func registerNPMServer() bool {
	scriptCmds["link-npm-server"] = linkNPMServerCmd
	return true
}

// linkNPMServerCmd links an npm reference MCP server (installed by `make
// deps`, or under OLLM_NPM_DIR) to a path in the script's work directory:
// `link-npm-server server-filesystem ext/fs.js`.
func linkNPMServerCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: link-npm-server NAME PATH")
	}
	dir := npmDir()
	p := filepath.Join(dir, "node_modules", "@modelcontextprotocol", args[0], "dist", "index.js")
	if _, err := os.Stat(p); err != nil {
		ts.Fatalf("%s is not installed (%v); run make deps", args[0], err)
	}
	dst := ts.MkAbs(args[1])
	ts.Check(os.MkdirAll(filepath.Dir(dst), 0o755))
	ts.Check(os.Symlink(p, dst))
}

// npmDir is where `make deps` installed the npm packages the tests drive:
// OLLM_NPM_DIR, or the nearest .deps/npm above the test's directory.
func npmDir() string {
	if dir := os.Getenv("OLLM_NPM_DIR"); dir != "" {
		return dir
	}
	wd, _ := os.Getwd()
	for d := wd; filepath.Dir(d) != d; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, ".deps", "npm", "node_modules")); err == nil {
			return filepath.Join(d, ".deps", "npm")
		}
	}
	return ""
}
