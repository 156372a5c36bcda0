package resolver

import (
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/ollm/ollm/profiles"
)

// defaultPluginJSON makes the exported tree dst of a folder that is a
// Claude Code plugin without plugin.json loadable: it writes
// .claude-plugin/plugin.json naming the plugin name, inside the tree, so
// the lock's hash covers it (as BuildMarketplacePlugin does for a plugin
// its marketplace entry defines). A tree with a manifest of any kind, a
// marketplace, or none of a plugin's parts is left alone.
func defaultPluginJSON(dst, name string) error {
	for _, f := range []string{profiles.ManifestFile, profiles.GeminiManifestFile, profiles.ClaudePluginFile, profiles.ClaudeMarketplaceFile} {
		if _, err := os.Lstat(filepath.Join(dst, filepath.FromSlash(f))); err == nil {
			return nil
		}
	}
	found := false
	for _, p := range profiles.ClaudePluginParts {
		if _, err := os.Lstat(filepath.Join(dst, filepath.FromSlash(p))); err == nil {
			found = true
			break
		}
	}
	if !found || name == "" {
		return nil
	}
	data, err := json.Marshal(map[string]string{"name": name})
	if err != nil {
		return err
	}
	file := filepath.Join(dst, filepath.FromSlash(profiles.ClaudePluginFile))
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	return os.WriteFile(file, append(data, '\n'), 0o644)
}

// folderName is the name Claude Code gives a plugin without plugin.json:
// its folder's, the subdir's last element or else the repository's (its
// URL's last element without .git).
func folderName(url, subdir string) string {
	if s := strings.Trim(path.Clean("/"+filepath.ToSlash(subdir)), "/"); s != "" {
		return path.Base(s)
	}
	u := strings.TrimRight(filepath.ToSlash(url), "/")
	if i := strings.LastIndexAny(u, "/:"); i >= 0 {
		u = u[i+1:]
	}
	return strings.TrimSuffix(u, ".git")
}
