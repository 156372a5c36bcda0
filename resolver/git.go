package resolver

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/go-git/go-billy/v5/osfs"
	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/client"
	"github.com/go-git/go-git/v5/plumbing/transport/server"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"github.com/go-git/go-git/v5/storage/memory"

	"github.com/ollm/ollm/internal/lazyre"
	"github.com/ollm/ollm/store"
)

// Git is what the resolver needs from a git implementation: find the
// commit a ref names now, and write the tracked files of a commit.
type Git interface {
	// Resolve returns the commit ref names in the repository at url now.
	// An empty ref means the remote's HEAD; a full commit SHA is returned
	// as is once the repository is known to hold it.
	Resolve(ctx context.Context, url, ref string) (string, error)
	// Export writes the files of commit (below subdir, if set) into dst,
	// with their executable bits, and nothing else (no .git).
	Export(ctx context.Context, url, commit, subdir, dst string) error
}

// GoGit implements Git with go-git. Repositories are mirrored into
// CacheDir (one bare repository per URL), so a later fetch of the same
// URL only transfers new objects. file:// URLs and local paths are served
// by go-git's in-process transport: no git binary is needed.
type GoGit struct {
	CacheDir string
}

var installFileTransport sync.Once

// NewGoGit returns a GoGit caching into cacheDir and registers the
// in-process file transport.
func NewGoGit(cacheDir string) *GoGit {
	installFileTransport.Do(func() {
		client.InstallProtocol("file", server.NewClient(localLoader{}))
	})
	return &GoGit{CacheDir: cacheDir}
}

// localLoader opens a local repository for the in-process server: a bare
// repository or a work tree with a .git directory.
type localLoader struct{}

func (localLoader) Load(ep *transport.Endpoint) (storer.Storer, error) {
	p := ep.Path
	if fi, err := os.Stat(filepath.Join(p, ".git")); err == nil && fi.IsDir() {
		p = filepath.Join(p, ".git")
	}
	if fi, err := os.Stat(filepath.Join(p, "objects")); err != nil || !fi.IsDir() {
		return nil, transport.ErrRepositoryNotFound
	}
	return filesystem.NewStorage(osfs.New(p), cache.NewObjectLRUDefault()), nil
}

var shaRE = lazyre.New(`^[0-9a-f]{40}$`)

// IsCommit reports whether ref is a full commit SHA.
func IsCommit(ref string) bool { return shaRE.MatchString(ref) }

// RefError is a ref the repository does not have.
type RefError struct {
	URL, Ref  string
	Available []string
}

func (e *RefError) Error() string {
	msg := fmt.Sprintf("%s has no branch or tag named %q", e.URL, e.Ref)
	if IsCommit(e.Ref) {
		msg = fmt.Sprintf("%s has no commit %s", e.URL, e.Ref)
	}
	if len(e.Available) > 0 {
		msg += " (it has: " + strings.Join(e.Available, ", ") + ")"
	}
	return msg
}

func (g *GoGit) list(ctx context.Context, url string) ([]*plumbing.Reference, error) {
	rem := git.NewRemote(memory.NewStorage(), &config.RemoteConfig{Name: "origin", URLs: []string{url}})
	refs, err := rem.ListContext(ctx, &git.ListOptions{PeelingOption: git.AppendPeeled})
	if err != nil {
		return nil, fmt.Errorf("cannot reach %s: %w", url, err)
	}
	return refs, nil
}

// Resolve implements Git.
func (g *GoGit) Resolve(ctx context.Context, url, ref string) (string, error) {
	if IsCommit(ref) {
		if _, err := g.commit(ctx, url, ref); err != nil {
			return "", err
		}
		return ref, nil
	}
	refs, err := g.list(ctx, url)
	if err != nil {
		return "", err
	}
	return pickRef(refs, url, ref)
}

// pickRef finds ref among the advertised references: HEAD when empty,
// then a tag (peeled), then a branch, then a full reference name.
func pickRef(refs []*plumbing.Reference, url, ref string) (string, error) {
	byName := map[string]string{}
	for _, r := range refs {
		if r.Type() == plumbing.HashReference {
			byName[r.Name().String()] = r.Hash().String()
		}
	}
	for _, r := range refs { // HEAD is advertised as a symbolic reference
		if r.Type() == plumbing.SymbolicReference {
			if h, ok := byName[r.Target().String()]; ok {
				byName[r.Name().String()] = h
			}
		}
	}
	var candidates []string
	if ref == "" {
		candidates = []string{"HEAD"}
	} else {
		candidates = []string{"refs/tags/" + ref + "^{}", "refs/tags/" + ref, "refs/heads/" + ref, ref}
	}
	for _, c := range candidates {
		if h, ok := byName[c]; ok {
			return h, nil
		}
	}
	if ref == "" {
		ref = "HEAD"
	}
	var avail []string
	for name := range byName {
		if short, ok := strings.CutPrefix(name, "refs/heads/"); ok {
			avail = append(avail, short)
		} else if short, ok := strings.CutPrefix(name, "refs/tags/"); ok && !strings.HasSuffix(short, "^{}") {
			avail = append(avail, short)
		}
	}
	sort.Strings(avail)
	if len(avail) > 10 {
		avail = append(avail[:10], "...")
	}
	return "", &RefError{URL: url, Ref: ref, Available: avail}
}

// cacheRepo opens (or creates) the bare mirror of url, under its lock.
func (g *GoGit) cacheRepo(url string) (*git.Repository, func(), error) {
	sum := sha256.Sum256([]byte(url))
	dir := filepath.Join(g.CacheDir, hex.EncodeToString(sum[:12]))
	unlock, err := store.Lock(dir)
	if err != nil {
		return nil, nil, err
	}
	repo, err := git.PlainOpen(dir)
	if err == nil {
		// A process killed between init and adding the remote leaves a
		// repository without origin.
		_, err = repo.Remote("origin")
	}
	if err != nil {
		// Missing or left broken by a killed process: the cache is derived
		// data, start it again.
		_ = os.RemoveAll(dir)
		repo, err = git.PlainInit(dir, true)
		if err == nil {
			_, err = repo.CreateRemote(&config.RemoteConfig{Name: "origin", URLs: []string{url}})
		}
	}
	if err != nil {
		unlock()
		return nil, nil, fmt.Errorf("git cache %s: %w", dir, err)
	}
	return repo, unlock, nil
}

// commit returns the commit object, fetching url into the cache when the
// cache does not hold it yet.
func (g *GoGit) commit(ctx context.Context, url, sha string) (*object.Commit, error) {
	repo, unlock, err := g.cacheRepo(url)
	if err != nil {
		return nil, err
	}
	defer unlock()
	h := plumbing.NewHash(sha)
	if c, err := repo.CommitObject(h); err == nil {
		return c, nil
	}
	err = repo.FetchContext(ctx, &git.FetchOptions{
		RemoteName: "origin",
		RemoteURL:  url,
		RefSpecs:   []config.RefSpec{"+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*"},
		Tags:       git.NoTags,
		Force:      true,
	})
	if err != nil && !errors.Is(err, git.NoErrAlreadyUpToDate) {
		return nil, fmt.Errorf("cannot fetch %s: %w", url, err)
	}
	c, err := repo.CommitObject(h)
	if err != nil {
		return nil, &RefError{URL: url, Ref: sha}
	}
	return c, nil
}

// Export implements Git: it writes the tracked files of commit, below
// subdir, into dst. Symbolic links are written as links (the store
// keeps those that stay inside the tree and refuses the others when it
// hashes it); submodules are refused.
func (g *GoGit) Export(ctx context.Context, url, sha, subdir, dst string) error {
	c, err := g.commit(ctx, url, sha)
	if err != nil {
		return err
	}
	tree, err := c.Tree()
	if err != nil {
		return fmt.Errorf("%s commit %s: %w", url, sha, err)
	}
	if sub := strings.Trim(path.Clean("/"+subdir), "/"); sub != "" {
		tree, err = tree.Tree(sub)
		if err != nil {
			return &noDirError{fmt.Sprintf("%s commit %s has no directory %q", url, sha[:12], subdir)}
		}
	}
	return writeTree(tree, dst)
}

// ErrNoDirectory is a subdir the exported commit does not have.
var ErrNoDirectory = errors.New("no such directory in the commit")

type noDirError struct{ msg string }

func (e *noDirError) Error() string        { return e.msg }
func (e *noDirError) Is(target error) bool { return target == ErrNoDirectory }

func writeTree(tree *object.Tree, dst string) error {
	w := object.NewTreeWalker(tree, true, nil)
	defer w.Close()
	// Links are made last, so no file of the tree is ever written
	// through one.
	var links [][2]string
	for {
		name, e, err := w.Next()
		if errors.Is(err, io.EOF) {
			if err := makeLinks(dst, links); err != nil {
				return err
			}
			return store.CheckLinks(dst)
		}
		if err != nil {
			return err
		}
		target := filepath.Join(dst, filepath.FromSlash(name))
		switch e.Mode {
		case filemode.Dir:
			if err := os.MkdirAll(target, 0o755); err != nil {
				return err
			}
		case filemode.Regular, filemode.Deprecated, filemode.Executable:
			if err := writeBlob(tree, &e, target, e.Mode == filemode.Executable); err != nil {
				return err
			}
		case filemode.Symlink:
			t, err := readLink(tree, &e)
			if err != nil {
				return fmt.Errorf("symbolic link %s: %w", name, err)
			}
			links = append(links, [2]string{target, t})
		case filemode.Submodule:
			return fmt.Errorf("%s is a git submodule; submodules are not fetched, vendor its files instead", name)
		}
	}
}

// readLink is the target text of a symbolic link's blob.
func readLink(tree *object.Tree, e *object.TreeEntry) (string, error) {
	f, err := tree.TreeEntryFile(e)
	if err != nil {
		return "", err
	}
	return f.Contents()
}

// makeLinks creates the links (path, target) under dst. A link below
// another link (a malformed tree) is refused, so creating one never goes
// through another: every folder on the way is a real one.
func makeLinks(dst string, links [][2]string) error {
	isLink := map[string]bool{}
	for _, l := range links {
		isLink[l[0]] = true
	}
	for _, l := range links {
		for d := filepath.Dir(l[0]); len(d) > len(dst); d = filepath.Dir(d) {
			if isLink[d] {
				return fmt.Errorf("%s is below the symbolic link %s; the tree is malformed", l[0], d)
			}
		}
		if err := os.MkdirAll(filepath.Dir(l[0]), 0o755); err != nil {
			return err
		}
		if err := os.Symlink(l[1], l[0]); err != nil {
			return err
		}
	}
	return nil
}

func writeBlob(tree *object.Tree, e *object.TreeEntry, target string, exec bool) error {
	f, err := tree.TreeEntryFile(e)
	if err != nil {
		return err
	}
	r, err := f.Reader()
	if err != nil {
		return err
	}
	defer r.Close()
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return err
	}
	mode := os.FileMode(0o644)
	if exec {
		mode = 0o755
	}
	out, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, r); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Chmod(target, mode) // the umask must not drop the executable bit
}
