package hooks

import (
	"path/filepath"

	"github.com/ollm/ollm/schema"
)

// extRoot is the discovery root of an extension, the first part of its
// hooks' trust ids: the folder it was found in, or for a store entry
// (<store>/<hash>/<name>) the store itself, so the id stays the same
// when the extension's hash changes (the hash asks again, not the id).
func extRoot(ext schema.Extension) string {
	parent := filepath.Dir(ext.Dir)
	if ext.Scope == schema.ScopeStore {
		return filepath.Dir(parent)
	}
	return parent
}
