package sandbox

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
)

// gitDirs adds the workspace's git directories to a policy that writes the
// workspace: each git directory (the workspace's .git, its submodules'
// under .git/modules, the one a .git file points to when a writable path
// holds it) is pinned, so it cannot be renamed or replaced, and its hooks,
// config and info are read-only; a .git file is read-only itself. What git
// itself writes during a commit (objects, refs, index, logs) stays
// writable. A .git created where there was none cannot be prevented by a
// mount (docs/notes/sandbox.md, "Issue 25"); NewGitDirs finds one after
// the fact.
func gitDirs(pr *fsProbe, write []string, env Env, protect []string) (pin, prot []string) {
	ws := env.Workspace
	prot = protect
	if ws == "" || !covered(ws, write) {
		return nil, prot
	}
	seen := map[string]bool{}
	var addGitDir func(dir string, depth int)
	addGitDir = func(dir string, depth int) {
		if seen[dir] || !covered(dir, write) {
			return
		}
		seen[dir] = true
		pin = append(pin, dir)
		for _, n := range gitTrust {
			p := filepath.Join(dir, n)
			if pr.exists(p) || n == "hooks" || n == "config" {
				prot = append(prot, p)
			}
		}
		if es, err := pr.readDir(filepath.Join(dir, "worktrees")); err == nil {
			for _, e := range es {
				if p := filepath.Join(dir, "worktrees", e.Name(), "config.worktree"); pr.exists(p) {
					prot = append(prot, p)
				}
			}
		}
		if depth < 4 {
			modules(pr, filepath.Join(dir, "modules"), 0, func(sub string) { addGitDir(sub, depth+1) })
		}
	}
	handle := func(dotgit string) {
		fi, err := pr.lstat(dotgit)
		switch {
		case err != nil:
		case fi.IsDir():
			addGitDir(dotgit, 0)
		case fi.Mode().IsRegular():
			prot = append(prot, dotgit)
			if target := gitdirOf(pr, dotgit); target != "" {
				addGitDir(target, 0)
				if common := commonDir(pr, target); common != "" {
					addGitDir(common, 0)
				}
			}
		}
	}
	handle(filepath.Join(ws, ".git"))
	for _, sub := range submodulePaths(pr, filepath.Join(ws, ".gitmodules")) {
		if p := filepath.Join(ws, sub); within(p, ws) && p != ws {
			handle(filepath.Join(p, ".git"))
		}
	}
	return dedupe(pin), dedupe(prot)
}

// modules calls found for each git directory (one holding HEAD) under
// dir: a submodule's name may hold slashes (.git/modules/a/b).
func modules(pr *fsProbe, dir string, depth int, found func(string)) {
	es, err := pr.readDir(dir)
	if err != nil || depth > 3 {
		return
	}
	for _, e := range es {
		if !e.IsDir() {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if pr.exists(filepath.Join(p, "HEAD")) {
			found(p)
		} else {
			modules(pr, p, depth+1, found)
		}
	}
}

// gitdirOf is the directory a .git file names ("gitdir: PATH").
func gitdirOf(pr *fsProbe, dotgit string) string {
	data, err := pr.readFile(dotgit)
	if err != nil {
		return ""
	}
	line, _, _ := strings.Cut(string(data), "\n")
	d, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
	if !ok {
		return ""
	}
	d = strings.TrimSpace(d)
	if !filepath.IsAbs(d) {
		d = filepath.Join(filepath.Dir(dotgit), d)
	}
	return filepath.Clean(d)
}

// commonDir is a worktree's main git directory (its commondir file).
func commonDir(pr *fsProbe, gitdir string) string {
	data, err := pr.readFile(filepath.Join(gitdir, "commondir"))
	if err != nil {
		return ""
	}
	d := strings.TrimSpace(string(data))
	if !filepath.IsAbs(d) {
		d = filepath.Join(gitdir, d)
	}
	return filepath.Clean(d)
}

// submodulePaths are the "path = X" values of a .gitmodules file.
func submodulePaths(pr *fsProbe, file string) []string {
	f, err := pr.open(file)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), "=")
		if ok && strings.TrimSpace(k) == "path" {
			if v = strings.TrimSpace(v); v != "" && !filepath.IsAbs(v) {
				out = append(out, filepath.Clean(v))
			}
		}
	}
	return out
}

// GitDirsUnder lists the .git entries under root (root's own included),
// and the HEAD of each directory shaped like a bare repository (HEAD,
// objects/ and refs/ in it),
// not descending into a .git, node_modules or a link, and stopping after
// limit directories (complete is then false). A caller compares the lists
// from before and after a sandboxed command: a .git created where there
// was none cannot be stopped by the sandbox, and git runs its hooks and
// config outside.
func GitDirsUnder(root string, limit int) (found []string, complete bool) {
	n := 0
	complete = true
	var walk func(dir string)
	walk = func(dir string) {
		if n >= limit {
			complete = false
			return
		}
		n++
		es, err := os.ReadDir(dir)
		if err != nil {
			return
		}
		var head, objects, refs bool
		for _, e := range es {
			p := filepath.Join(dir, e.Name())
			switch {
			case e.Name() == ".git":
				found = append(found, p)
			case e.Name() == "HEAD" && e.Type().IsRegular():
				head = true
			case e.IsDir() && e.Name() != "node_modules":
				objects = objects || e.Name() == "objects"
				refs = refs || e.Name() == "refs"
				walk(p)
			}
		}
		// A directory shaped like a repository is one to git (a bare
		// repository): run there, git reads its config and hooks.
		if head && objects && refs {
			found = append(found, filepath.Join(dir, "HEAD"))
		}
	}
	walk(root)
	return found, complete
}
