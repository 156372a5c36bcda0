package resolver

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	ollmcue "github.com/ollm/ollm/cue"
	"github.com/ollm/ollm/profiles/builtin"
	"github.com/ollm/ollm/schema"
	"github.com/ollm/ollm/store"
)

// embeddedDigest covers the schema and builtin profile compiled into this
// binary: a new binary with another schema never reuses a generation
// blindly.
var embeddedDigest = sync.OnceValue(func() string {
	h := sha256.New()
	for _, fsys := range []fs.FS{ollmcue.FS, builtin.FS} {
		_ = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, err := fs.ReadFile(fsys, p)
			if err != nil {
				return err
			}
			fmt.Fprintf(h, "%s\x00%d\x00", p, len(data))
			h.Write(data)
			return nil
		})
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
})

// Inputs lists every file whose bytes a resolution depends on, for the
// workspace ws and the resolved profile r (which says which extension
// directories to look at), and their combined digest. Team profiles and
// locked extensions are covered by ollm.lock: the store is immutable.
func Inputs(home store.Home, ws store.Workspace, r *schema.Resolved) ([]store.InputFile, string) {
	var files []string
	files = append(files, home.Profile())
	if ws.Root != "" {
		files = append(files, ws.Profile(), ws.Lock(), ws.MCPJSON())
	}
	roots := []string{home.Extensions()}
	if r != nil {
		for i, d := range r.Profile.Extensions.Directories {
			base := home.Dir
			if i < len(r.DirectoryScopes) && r.DirectoryScopes[i] == schema.ScopeWorkspace {
				base = ws.Root
			}
			roots = append(roots, expandDir(d, base))
		}
	}
	if ws.Root != "" {
		roots = append(roots, ws.Extensions())
	}
	for _, root := range roots {
		files = append(files, manifestsIn(root)...)
	}
	out := []store.InputFile{{Path: "<embedded>", Digest: embeddedDigest()}}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00", embeddedDigest())
	for _, f := range files {
		d := fileDigest(f)
		out = append(out, store.InputFile{Path: f, Digest: d})
		fmt.Fprintf(h, "%s\x00%s\x00", f, d)
	}
	return out, "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// manifestsIn lists the manifest files of the extension folders in root.
func manifestsIn(root string) []string {
	des, err := os.ReadDir(root)
	if err != nil {
		return nil
	}
	var out []string
	for _, d := range des {
		if !d.IsDir() && d.Type()&os.ModeSymlink == 0 {
			continue
		}
		for _, m := range []string{"manifest.json", "gemini-extension.json"} {
			p := filepath.Join(root, d.Name(), m)
			if _, err := os.Stat(p); err == nil {
				out = append(out, p)
				break
			}
		}
	}
	sort.Strings(out)
	return out
}

func fileDigest(p string) string {
	data, err := os.ReadFile(p)
	if err != nil {
		return "absent"
	}
	s := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(s[:])
}

func expandDir(d, base string) string {
	if strings.HasPrefix(d, "~/") {
		if h, err := os.UserHomeDir(); err == nil {
			return filepath.Join(h, d[2:])
		}
	}
	if filepath.IsAbs(d) {
		return filepath.Clean(d)
	}
	return filepath.Join(base, d)
}

// LoadCurrent returns the workspace's current generation when it can be
// used as is, without evaluating CUE: its inputs are unchanged, or it was
// made current by `ollm profile rollback`. ok is false when there is no
// generation or the inputs changed; the caller then loads the profile
// (profiles.Load) and should suggest `ollm profile apply`.
func LoadCurrent(home store.Home, ws store.Workspace) (gen *store.Generation, ok bool, err error) {
	gens := store.Generations{Dir: home.Generations()}
	p, found, err := gens.Current(ws.Root)
	if err != nil || !found {
		return nil, false, err
	}
	g, err := gens.Read(p.Generation)
	if err != nil {
		return nil, false, err
	}
	if p.Rollback {
		return g, true, nil
	}
	_, digest := Inputs(home, ws, &g.Resolved)
	return g, digest == g.InputsDigest, nil
}
