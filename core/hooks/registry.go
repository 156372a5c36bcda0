package hooks

import "sync"

// Registry keeps hooks in execution order: by source rank (builtin, user,
// user extensions, workspace, workspace extensions, --ext extensions, as
// design.md orders them), then in insertion order within one rank. So an
// extension enabled after the profile's hooks were registered still runs
// before the workspace profile's hooks when it is a user extension. It is
// safe for concurrent use.
type Registry struct {
	mu    sync.RWMutex
	hooks []*Hook
}

// NewRegistry returns a registry holding hooks in the given order (within
// each source rank).
func NewRegistry(hooks ...*Hook) *Registry {
	r := &Registry{}
	for _, h := range hooks {
		r.Register(h)
	}
	return r
}

// Rank is a hook's place in the execution order of design.md: builtin 0,
// user profile 1, user (and directory, store) extensions 2, workspace
// profile 3, workspace extensions 4, --ext extensions 5. A hook without a
// scope ranks with the user extensions.
func Rank(h *Hook) int { return rank(h.Scope, h.Extension != "") }

// Register adds h after every hook of its rank or a lower one. A hook with
// the same extension, event and name is replaced: the latest registration
// wins and moves to the end of its rank. It reports whether a hook was
// replaced, so the caller can warn.
func (r *Registry) Register(h *Hook) (replaced bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, o := range r.hooks {
		if o.Extension == h.Extension && o.Event == h.Event && o.Name == h.Name {
			r.hooks = append(r.hooks[:i:i], r.hooks[i+1:]...)
			replaced = true
			break
		}
	}
	at := len(r.hooks)
	for at > 0 && Rank(r.hooks[at-1]) > Rank(h) {
		at--
	}
	r.hooks = append(r.hooks, nil)
	copy(r.hooks[at+1:], r.hooks[at:])
	r.hooks[at] = h
	return replaced
}

// Unregister removes every hook whose name or qualified name
// ("extension/name") is name, and reports how many it removed.
func (r *Registry) Unregister(name string) int {
	return r.removeIf(func(h *Hook) bool { return h.Name == name || h.QualifiedName() == name })
}

// UnregisterExtension removes every hook of extension ext.
func (r *Registry) UnregisterExtension(ext string) int {
	return r.removeIf(func(h *Hook) bool { return h.Extension == ext })
}

func (r *Registry) removeIf(drop func(*Hook) bool) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	kept := r.hooks[:0:0]
	for _, h := range r.hooks {
		if !drop(h) {
			kept = append(kept, h)
		}
	}
	n := len(r.hooks) - len(kept)
	r.hooks = kept
	return n
}

// ForEvent returns the hooks registered for e, in execution order.
func (r *Registry) ForEvent(e Event) []*Hook {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var out []*Hook
	for _, h := range r.hooks {
		if h.Event == e {
			out = append(out, h)
		}
	}
	return out
}

// All returns every hook in execution order.
func (r *Registry) All() []*Hook {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return append([]*Hook(nil), r.hooks...)
}

// Clear removes every hook.
func (r *Registry) Clear() {
	r.mu.Lock()
	r.hooks = nil
	r.mu.Unlock()
}
