package ext

import (
	"time"

	"github.com/ollm/ollm/schema"
	"github.com/ollm/ollm/store"
)

// StateFile is $OLLM_HOME/state/extensions.json: the enabled or disabled
// state the user chose for each extension. It never lives in a manifest.
type StateFile struct {
	Version    int                   `json:"version"`
	Extensions map[string]StateEntry `json:"extensions"`
}

// StateEntry is the user's choice for one extension.
type StateEntry struct {
	Enabled   bool      `json:"enabled"`
	ChangedAt time.Time `json:"changedAt"`
}

// ReadState reads the state file; a missing file is an empty state.
func ReadState(path string) (StateFile, error) {
	var s StateFile
	if _, err := store.ReadJSON(path, &s); err != nil {
		return StateFile{}, err
	}
	if s.Extensions == nil {
		s.Extensions = map[string]StateEntry{}
	}
	return s, nil
}

// SetState records the user's choice for name, under the file's lock.
func SetState(path, name string, enabled bool, now time.Time) error {
	return store.UpdateJSON(path, 0o644, func(s *StateFile) error {
		s.Version = 1
		if s.Extensions == nil {
			s.Extensions = map[string]StateEntry{}
		}
		s.Extensions[name] = StateEntry{Enabled: enabled, ChangedAt: now.UTC()}
		return nil
	})
}

// ForgetState removes name from the state file (after `ollm ext remove`).
func ForgetState(path, name string) error {
	return store.UpdateJSON(path, 0o644, func(s *StateFile) error {
		s.Version = 1
		delete(s.Extensions, name)
		return nil
	})
}

// Wanted decides whether an extension should be enabled, and why:
//  1. extensions.enabled: false loads nothing;
//  2. a per-extension override extensions.enable.<name> in the profile;
//  3. an extension loaded with --ext for this run is enabled;
//  4. the state the user chose with `ollm ext enable|disable`;
//  5. otherwise extensions.autoEnable decides for a new extension.
func Wanted(cfg schema.Extensions, ext schema.Extension, st StateFile) (bool, string) {
	if !cfg.Enabled {
		return false, "extensions.enabled is false in the profile"
	}
	if on, ok := cfg.Enable[ext.Name]; ok {
		if on {
			return true, "extensions.enable." + ext.Name + " is true in the profile"
		}
		return false, "extensions.enable." + ext.Name + " is false in the profile"
	}
	if ext.Scope == schema.ScopeFlag {
		return true, "loaded with --ext for this run"
	}
	if e, ok := st.Extensions[ext.Name]; ok {
		if e.Enabled {
			return true, "enabled with `ollm ext enable`"
		}
		return false, "disabled with `ollm ext disable`; run `ollm ext enable " + ext.Name + "`"
	}
	if cfg.AutoEnable {
		return true, "new extension, enabled by extensions.autoEnable"
	}
	return false, "new extension and extensions.autoEnable is false; run `ollm ext enable " + ext.Name + "`"
}
