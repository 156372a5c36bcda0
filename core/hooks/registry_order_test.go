package hooks

import (
	"strings"
	"testing"

	"github.com/ollm/ollm/schema"
)

// Registration order does not decide across sources: a user extension
// enabled after the workspace profile's hooks were registered still runs
// before them (design.md: builtin, user, user extensions, workspace,
// workspace extensions), and manifest order holds within one extension.
func TestRegistryOrdersBySourceThenInsertion(t *testing.T) {
	h := func(name string, scope schema.Scope, ext string) *Hook {
		return &Hook{Name: name, Event: BeforeTool, Scope: scope, Extension: ext}
	}
	reg := NewRegistry(
		h("ws-profile", schema.ScopeWorkspace, ""),
		h("user-profile", schema.ScopeUser, ""),
		h("ws-ext-1", schema.ScopeWorkspace, "wsx"),
		h("user-ext-1", schema.ScopeUser, "ux"),
		h("flag-ext", schema.ScopeFlag, "fx"),
		h("user-ext-2", schema.ScopeUser, "ux"),
		h("builtin", schema.ScopeBuiltin, ""),
		h("ws-ext-2", schema.ScopeWorkspace, "wsx"),
		h("store-ext", schema.ScopeStore, "sx"),
		h("user-profile-2", schema.ScopeUser, ""),
	)
	want := "builtin user-profile user-profile-2 user-ext-1 user-ext-2 store-ext ws-profile ws-ext-1 ws-ext-2 flag-ext"
	if got := names(reg.ForEvent(BeforeTool)); got != want {
		t.Fatalf("order = %s\nwant    %s", got, want)
	}
	// Re-registering moves a hook to the end of its own rank only.
	reg.Register(h("user-ext-1", schema.ScopeUser, "ux"))
	want = "builtin user-profile user-profile-2 user-ext-2 store-ext user-ext-1 ws-profile ws-ext-1 ws-ext-2 flag-ext"
	if got := names(reg.All()); got != want {
		t.Fatalf("after re-register = %s\nwant    %s", got, want)
	}
	// Unregistering an extension and registering it again puts it back
	// among its peers, not after the workspace hooks.
	reg.UnregisterExtension("ux")
	reg.Register(h("user-ext-1", schema.ScopeUser, "ux"))
	want = "builtin user-profile user-profile-2 store-ext user-ext-1 ws-profile ws-ext-1 ws-ext-2 flag-ext"
	if got := names(reg.All()); got != want {
		t.Fatalf("after re-enable = %s\nwant    %s", got, want)
	}
}

func names(hs []*Hook) string {
	var s []string
	for _, h := range hs {
		s = append(s, h.Name)
	}
	return strings.Join(s, " ")
}
