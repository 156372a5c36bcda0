package cli

import (
	"errors"
	"os"
	"os/exec"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"ollm": func() { os.Exit(int(Main())) },
	})
}

// TestScripts runs every testdata/script/*.txtar. Each script gets its own
// OLLM_HOME and HOME inside its work directory, so nothing touches the real
// home directory.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv("OLLM_HOME", env.WorkDir+"/.ollm-home")
			env.Setenv("HOME", env.WorkDir+"/home")
			env.Setenv("CI", "true")
			return nil
		},
		UpdateScripts: os.Getenv("UPDATE_SCRIPTS") != "",
		Cmds:          scriptCmds,
	})
}

// TestScriptsDefaultLayout runs testdata/layout/*.txtar in the default
// layout of a developer's machine: OLLM_HOME unset (so ollm's home is
// ~/.ollm) and HOME a fixture home in the work directory. The work
// directory is under the user's cache directory, not /tmp: the sandbox
// lets the shell write /tmp, so a fixture home there would hide a write
// to ~/.bashrc.
func TestScriptsDefaultLayout(t *testing.T) {
	root, err := os.UserCacheDir()
	if err != nil {
		t.Fatalf("no directory outside /tmp for the fixture home: %v (set HOME)", err)
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp(root, "ollm-layout-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	testscript.Run(t, testscript.Params{
		Dir:         "testdata/layout",
		WorkdirRoot: dir,
		Setup: func(env *testscript.Env) error {
			env.Setenv("OLLM_HOME", "")
			env.Setenv("HOME", env.WorkDir+"/home")
			env.Setenv("CI", "true")
			return nil
		},
		UpdateScripts: os.Getenv("UPDATE_SCRIPTS") != "",
		Cmds:          scriptCmds,
	})
}

// scriptCmds are the commands scripts get beyond testscript's own.
var scriptCmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){
	// status N prog args... runs prog and checks that it exits with N;
	// stdout and stderr are kept for the next checks.
	"status": func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) < 2 {
			ts.Fatalf("usage: status N prog [args...]")
		}
		want, err := strconv.Atoi(args[0])
		ts.Check(err)
		got := 0
		if err := ts.Exec(args[1], args[2:]...); err != nil {
			var ee *exec.ExitError
			if !errors.As(err, &ee) {
				ts.Fatalf("%s: %v", args[1], err)
			}
			got = ee.ExitCode()
		}
		if got != want {
			ts.Fatalf("%s exited with %d, want %d", args[1], got, want)
		}
	},
}
