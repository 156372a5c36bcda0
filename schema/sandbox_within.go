package schema

import (
	"path/filepath"
	"slices"
	"strings"
)

// The built-in defaults of what declares no sandbox (design.md, "Sandbox"):
// the shell tool writes the workspace without network; hooks and stdio MCP
// servers write the workspace with network. The profile's sandbox block
// applies over them where it is used.

// ShellSandboxDefaults is the shell tool's default sandbox.
func ShellSandboxDefaults() Sandbox {
	return Sandbox{Preset: SandboxWorkspaceWrite, Network: boolPtr(false)}
}

// HookSandboxDefaults is the default sandbox of a hook.
func HookSandboxDefaults() Sandbox {
	return Sandbox{Preset: SandboxWorkspaceWrite, Network: boolPtr(true)}
}

// MCPSandboxDefaults is the default sandbox of a stdio MCP server.
func MCPSandboxDefaults() Sandbox {
	return Sandbox{Preset: SandboxWorkspaceWrite, Network: boolPtr(true)}
}

func boolPtr(b bool) *bool { return &b }

// Clone returns a deep copy of s (nil for nil).
func (s *Sandbox) Clone() *Sandbox {
	if s == nil {
		return nil
	}
	c := *s
	if s.Network != nil {
		c.Network = boolPtr(*s.Network)
	}
	c.Read = slices.Clone(s.Read)
	c.Write = slices.Clone(s.Write)
	return &c
}

// Declared returns s, or nil when s declares nothing: the form a lock
// entry and an approval record keep.
func (s *Sandbox) Declared() *Sandbox {
	if s == nil || s.IsZero() {
		return nil
	}
	return s.Clone()
}

// SamePermissions reports whether a and b declare the same thing, reading
// nil as declaring nothing. Path lists compare in order, as written.
func SamePermissions(a, b *Sandbox) bool {
	var x, y Sandbox
	if a != nil {
		x = *a
	}
	if b != nil {
		y = *b
	}
	return x.Preset == y.Preset && sameBool(x.Network, y.Network) && x.Isolate == y.Isolate && x.SSHAgent == y.SSHAgent &&
		slices.Equal(x.Read, y.Read) && slices.Equal(x.Write, y.Write)
}

func sameBool(a, b *bool) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// WithDefaults fills every field s leaves empty from d: the preset, the
// network switch and each path list as a whole. The result shares nothing
// with s or d.
func (s Sandbox) WithDefaults(d Sandbox) Sandbox {
	out := *s.Clone()
	if out.Preset == "" {
		out.Preset = d.Preset
	}
	if out.Network == nil && d.Network != nil {
		out.Network = boolPtr(*d.Network)
	}
	out.Isolate = out.Isolate || d.Isolate
	out.SSHAgent = out.SSHAgent || d.SSHAgent
	if len(out.Read) == 0 {
		out.Read = slices.Clone(d.Read)
	}
	if len(out.Write) == 0 {
		out.Write = slices.Clone(d.Write)
	}
	return out
}

// presetRank orders presets by what they grant; an empty or unknown preset
// ranks as off, the widest.
func presetRank(p string) int {
	switch p {
	case SandboxReadOnly:
		return 0
	case SandboxWorkspaceWrite:
		return 1
	}
	return 2
}

// Within reports whether s grants nothing that approved does not. Fill
// both with the same defaults first (WithDefaults): an unset preset
// counts as off and an unset network as allowed. The order is off >
// workspace-write > read-only and network > none; every path s reads must
// be one approved reads or writes, or lie under one, and every path s
// writes one approved writes or lies under. Paths compare cleaned, as
// written (no symlinks followed, ~ and variables taken literally).
// Approved off grants everything.
func (s Sandbox) Within(approved Sandbox) bool {
	if presetRank(approved.Preset) == presetRank(SandboxOff) {
		return true
	}
	if presetRank(s.Preset) > presetRank(approved.Preset) {
		return false
	}
	if (s.Network == nil || *s.Network) && approved.Network != nil && !*approved.Network {
		return false
	}
	if approved.Isolate && !s.Isolate && approved.Network != nil && !*approved.Network {
		return false // UDP and DNS were not approved
	}
	if s.SSHAgent && !approved.SSHAgent {
		return false // the agent signs with the user's keys
	}
	readable := append(slices.Clone(approved.Read), approved.Write...)
	for _, p := range s.Read {
		if !pathUnder(p, readable) {
			return false
		}
	}
	for _, p := range s.Write {
		if !pathUnder(p, approved.Write) {
			return false
		}
	}
	return true
}

// pathUnder reports whether p is one of roots or lies under one of them.
func pathUnder(p string, roots []string) bool {
	p = filepath.Clean(p)
	for _, r := range roots {
		r = filepath.Clean(r)
		if p == r {
			return true
		}
		rel, err := filepath.Rel(r, p)
		if err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && filepath.IsAbs(r) == filepath.IsAbs(p) {
			return true
		}
	}
	return false
}
