package resolver

import (
	"context"
	"errors"
	"fmt"
	"path"
	"path/filepath"

	"github.com/ollm/ollm/profiles"
	"github.com/ollm/ollm/schema"
)

// ErrPluginSource is a plugin source ({git, plugin}) where it cannot be:
// a team profile, or a local path.
var ErrPluginSource = errors.New("a plugin source names a Claude Code marketplace entry; only extensions from git have one")

// export writes the tree of e at commit into dst: the files below
// e.Subdir (with a plugin.json naming it e.Name when it is a Claude Code
// plugin without one: defaultPluginJSON), or, for a plugin source, the
// plugin its marketplace entry defines (exportPlugin).
func (r *Resolver) export(ctx context.Context, kind Kind, url, commit string, e schema.LockedSource, dst string) error {
	if e.Plugin == "" {
		if err := r.Git.Export(ctx, url, commit, e.Subdir, dst); err != nil || kind != KindExtension {
			return err
		}
		name := e.Name
		if name == "" {
			name = folderName(url, e.Subdir)
		}
		return defaultPluginJSON(dst, name)
	}
	if kind != KindExtension {
		return ErrPluginSource
	}
	return r.exportPlugin(ctx, url, commit, e.Subdir, e.Plugin, dst)
}

// exportPlugin reads the marketplace.json of the repository at url (in
// subdir) at commit, exports the folder of its entry name into dst and
// writes there the plugin.json the entry defines. The tree is hashed
// after, so the lock's hash covers the entry as well as the files.
func (r *Resolver) exportPlugin(ctx context.Context, url, commit, subdir, name, dst string) error {
	t, err := r.Store.NewTemp()
	if err != nil {
		return err
	}
	defer t.Discard()
	mk := t.Tree()
	dotDir := path.Dir(profiles.ClaudeMarketplaceFile)
	if err := r.Git.Export(ctx, url, commit, path.Join(subdir, dotDir), filepath.Join(mk, dotDir)); err != nil {
		return fmt.Errorf("%w: plugin %s names an entry of a Claude Code marketplace, but %s has no %s: %v", ErrNoManifest, name, url, path.Join(subdir, profiles.ClaudeMarketplaceFile), err)
	}
	entry, err := profiles.ReadMarketplaceEntry(mk, name)
	if err != nil {
		return err
	}
	if err := r.Git.Export(ctx, url, commit, path.Join(subdir, entry.Plugin.Subdir), dst); err != nil {
		return err
	}
	return profiles.BuildMarketplacePlugin(dst, entry)
}

// Marketplace reads the Claude Code marketplace of the git source src
// (only its .claude-plugin folder is exported, so a symlink elsewhere in
// the repository does not stop the listing) and returns its plugins; nil
// when src has no marketplace.json.
func (r *Resolver) Marketplace(ctx context.Context, src schema.Source) (*profiles.MarketplaceError, error) {
	commit, err := r.Git.Resolve(ctx, src.Git, src.Ref)
	if err != nil {
		return nil, err
	}
	t, err := r.Store.NewTemp()
	if err != nil {
		return nil, err
	}
	defer t.Discard()
	dotDir := path.Dir(profiles.ClaudeMarketplaceFile)
	err = r.Git.Export(ctx, src.Git, commit, path.Join(src.Subdir, dotDir), filepath.Join(t.Tree(), dotDir))
	if errors.Is(err, ErrNoDirectory) {
		return nil, nil // no .claude-plugin folder: not a marketplace
	}
	if err != nil {
		return nil, err
	}
	return profiles.ReadMarketplace(t.Tree()), nil
}
