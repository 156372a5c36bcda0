package tools

import (
	"context"
	"os"
	"sort"
)

// WorkspaceFiles lists what a person may mention as @path (the TUI's
// completion): the files and directories under root, relative to it with
// "/", directories ending in "/", in name order. The walk is the search
// tools' walk: it skips .git, hidden names, symlinks and whatever
// .gitignore files, the repository's info/exclude and git's global
// excludes ignore. It stops at limit entries (more is then true).
func WorkspaceFiles(ctx context.Context, root string, limit int) (paths []string, more bool, err error) {
	p, err := NewPaths(root, nil)
	if err != nil {
		return nil, false, err
	}
	l, err := p.Locate(".")
	if err != nil {
		return nil, false, err
	}
	base, fi, err := openWalkBase(l)
	if err != nil {
		return nil, false, err
	}
	defer base.Close()
	if !fi.IsDir() {
		return nil, false, nil
	}
	o := walkOpts{getenv: os.Getenv, fallbackTop: p.Root()}
	err = walkTree(ctx, base, o, func(ent walkEntry) (bool, error) {
		if limit > 0 && len(paths) >= limit {
			more = true
			return false, errStopWalk
		}
		if ent.dir {
			paths = append(paths, ent.rel+"/")
		} else {
			paths = append(paths, ent.rel)
		}
		return true, nil
	})
	sort.Strings(paths)
	return paths, more, err
}
