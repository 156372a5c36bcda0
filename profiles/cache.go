package profiles

import (
	"os"
	"path/filepath"
	"slices"

	"github.com/ollm/ollm/schema"
	"github.com/ollm/ollm/store"
)

// A cache entry is a resolved profile stored as JSON under the digest of
// the profile layers. It also records the manifest files it read, so an
// extension added, removed or edited since is noticed without CUE.
type cacheEntry struct {
	Key       string          `json:"key"`
	Manifests []cachedInput   `json:"manifests"`
	Resolved  schema.Resolved `json:"resolved"`
	// Sealed counts the secret values held as references into
	// $OLLM_HOME/secrets (store.SecretStore), never in clear.
	Sealed int `json:"sealed,omitempty"`
}

type cachedInput struct {
	File   string `json:"file"`
	Digest string `json:"digest"`
}

func cachePath(h store.Home, key string) string {
	return filepath.Join(h.Cache(), "resolved", key+".json")
}

func readCache(opts Options, key string) (*schema.Resolved, bool) {
	var e cacheEntry
	if ok, err := store.ReadJSON(cachePath(opts.Home, key), &e); !ok || err != nil || e.Key != key {
		return nil, false
	}
	var cands []candidate
	if e.Resolved.Profile.Extensions.Enabled {
		cands, _ = scan(discoverRoots(opts, e.Resolved.Profile, e.Resolved.DirectoryScopes))
	}
	if !slices.Equal(inputsOf(cands), e.Manifests) {
		return nil, false
	}
	if e.Sealed > 0 && secretStore(opts.Home).Unseal(&e.Resolved) != nil {
		return nil, false // a secret gone: resolve again
	}
	return &e.Resolved, true
}

func writeCache(h store.Home, key string, r *schema.Resolved, cands []candidate) {
	sealed, n, err := secretStore(h).Seal(r)
	if err != nil {
		return
	}
	e := cacheEntry{Key: key, Manifests: inputsOf(cands), Resolved: *sealed, Sealed: n}
	if e.Manifests == nil {
		e.Manifests = []cachedInput{}
	}
	// Best effort: a cache that cannot be written only costs speed. The
	// entry holds settings values, env maps and headers (their secrets
	// sealed): 0600 in a 0700 directory, never where others could read it.
	path := cachePath(h, key)
	if store.PrivateDir(filepath.Dir(path)) != nil {
		return
	}
	_ = store.WriteJSON(path, &e, store.PermPrivate)
}

func inputsOf(cands []candidate) []cachedInput {
	out := []cachedInput{}
	for _, c := range cands {
		out = append(out, cachedInput{File: c.file, Digest: c.digest})
	}
	return out
}

// ClearCache removes every cached resolution.
func ClearCache(h store.Home) error {
	return os.RemoveAll(filepath.Join(h.Cache(), "resolved"))
}

// secretStore is the home's store of the secret values a profile writes
// literally: $OLLM_HOME/secrets.
func secretStore(h store.Home) store.SecretStore {
	return store.SecretsOf(h.Generations())
}
