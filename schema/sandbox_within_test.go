package schema

import "testing"

func net(b bool) *bool { return &b }

func ptr(s Sandbox) *Sandbox { return &s }

func TestSandboxWithin(t *testing.T) {
	for _, c := range []struct {
		name     string
		s, appr  Sandbox
		defaults *Sandbox // nil: HookSandboxDefaults
		want     bool
	}{
		{name: "both default", want: true},
		{name: "isolated within no network", s: Sandbox{Network: net(false), Isolate: true}, appr: Sandbox{Network: net(false)}, want: true},
		{name: "not isolated beyond isolated", s: Sandbox{Network: net(false)}, appr: Sandbox{Network: net(false), Isolate: true}, want: false},
		{name: "ssh agent beyond no agent", s: Sandbox{SSHAgent: true}, appr: Sandbox{}, want: false},
		{name: "no agent within agent", s: Sandbox{}, appr: Sandbox{SSHAgent: true}, want: true},
		{name: "same preset", s: Sandbox{Preset: SandboxReadOnly}, appr: Sandbox{Preset: SandboxReadOnly}, want: true},
		{name: "read-only within workspace-write", s: Sandbox{Preset: SandboxReadOnly}, appr: Sandbox{Preset: SandboxWorkspaceWrite}, want: true},
		{name: "read-only within the default", s: Sandbox{Preset: SandboxReadOnly}, want: true},
		{name: "workspace-write beyond read-only", s: Sandbox{Preset: SandboxWorkspaceWrite}, appr: Sandbox{Preset: SandboxReadOnly}, want: false},
		{name: "default beyond read-only", appr: Sandbox{Preset: SandboxReadOnly}, want: false},
		{name: "off beyond the default", s: Sandbox{Preset: SandboxOff}, want: false},
		{name: "off within off", s: Sandbox{Preset: SandboxOff}, appr: Sandbox{Preset: SandboxOff}, want: true},
		{name: "anything within off", s: Sandbox{Network: net(true), Write: []string{"/"}}, appr: Sandbox{Preset: SandboxOff, Network: net(false)}, want: true},
		{name: "unknown preset counts as off", s: Sandbox{Preset: "bogus"}, want: false},
		{name: "unset preset without defaults counts as off", s: Sandbox{}, appr: Sandbox{Preset: SandboxWorkspaceWrite}, defaults: &Sandbox{}, want: false},
		{name: "network beyond none", s: Sandbox{Network: net(true)}, appr: Sandbox{Network: net(false)}, want: false},
		{name: "default network beyond none", appr: Sandbox{Network: net(false)}, want: false},
		{name: "no network within network", s: Sandbox{Network: net(false)}, want: true},
		{name: "no network within none", s: Sandbox{Network: net(false)}, appr: Sandbox{Network: net(false)}, want: true},
		{name: "network beyond shell defaults", s: Sandbox{Network: net(true)}, defaults: ptr(ShellSandboxDefaults()), want: false},
		{name: "unset network counts as allowed", s: Sandbox{Preset: SandboxReadOnly}, appr: Sandbox{Preset: SandboxReadOnly, Network: net(false)}, defaults: &Sandbox{}, want: false},
		{name: "same read path", s: Sandbox{Read: []string{"/data"}}, appr: Sandbox{Read: []string{"/data/"}}, want: true},
		{name: "read under a read path", s: Sandbox{Read: []string{"/data/x/../y"}}, appr: Sandbox{Read: []string{"/data"}}, want: true},
		{name: "read beside a read path", s: Sandbox{Read: []string{"/database"}}, appr: Sandbox{Read: []string{"/data"}}, want: false},
		{name: "read above a read path", s: Sandbox{Read: []string{"/"}}, appr: Sandbox{Read: []string{"/data"}}, want: false},
		{name: "read escaping with ..", s: Sandbox{Read: []string{"/data/../etc"}}, appr: Sandbox{Read: []string{"/data"}}, want: false},
		{name: "read under a write path", s: Sandbox{Read: []string{"/cache/a"}}, appr: Sandbox{Write: []string{"/cache"}}, want: true},
		{name: "write under a read path only", s: Sandbox{Write: []string{"/data/a"}}, appr: Sandbox{Read: []string{"/data"}}, want: false},
		{name: "write under a write path", s: Sandbox{Write: []string{"~/.cache/tool"}}, appr: Sandbox{Write: []string{"~/.cache"}}, want: true},
		{name: "new read path", s: Sandbox{Read: []string{"/data"}}, want: false},
		{name: "fewer paths", s: Sandbox{Read: []string{"/a"}}, appr: Sandbox{Read: []string{"/a", "/b"}}, want: true},
		{name: "relative under relative", s: Sandbox{Read: []string{"data/x"}}, appr: Sandbox{Read: []string{"./data"}}, want: true},
		{name: "relative not under absolute", s: Sandbox{Read: []string{"data"}}, appr: Sandbox{Read: []string{"/"}}, want: false},
		{name: "default paths fill both", s: Sandbox{}, appr: Sandbox{}, defaults: &Sandbox{Preset: SandboxReadOnly, Read: []string{"/x"}}, want: true},
		{name: "declared paths replace the defaults", s: Sandbox{}, appr: Sandbox{Read: []string{"/y"}}, defaults: &Sandbox{Preset: SandboxReadOnly, Read: []string{"/x"}}, want: false},
	} {
		t.Run(c.name, func(t *testing.T) {
			def := HookSandboxDefaults()
			if c.defaults != nil {
				def = *c.defaults
			}
			if got := c.s.WithDefaults(def).Within(c.appr.WithDefaults(def)); got != c.want {
				t.Errorf("%+v within %+v (defaults %+v) = %v, want %v", c.s, c.appr, def, got, c.want)
			}
		})
	}
}

func TestSandboxWithDefaultsSharesNothing(t *testing.T) {
	d := Sandbox{Preset: SandboxReadOnly, Network: net(false), Read: []string{"/a"}}
	s := Sandbox{}.WithDefaults(d)
	*s.Network = true
	s.Read[0] = "/b"
	if *d.Network || d.Read[0] != "/a" {
		t.Fatalf("defaults changed: %+v", d)
	}
	own := Sandbox{Preset: SandboxOff, Network: net(true), Write: []string{"/w"}}.WithDefaults(d)
	if own.Preset != SandboxOff || !*own.Network || own.Read[0] != "/a" || own.Write[0] != "/w" {
		t.Fatalf("filled %+v", own)
	}
}

func TestSamePermissions(t *testing.T) {
	for _, c := range []struct {
		a, b *Sandbox
		want bool
	}{
		{nil, nil, true},
		{nil, &Sandbox{}, true},
		{&Sandbox{Preset: SandboxOff}, nil, false},
		{&Sandbox{Network: net(false)}, &Sandbox{Network: net(false)}, true},
		{&Sandbox{Network: net(false)}, &Sandbox{}, false},
		{&Sandbox{Network: net(false)}, &Sandbox{Network: net(true)}, false},
		{&Sandbox{Read: []string{"/a"}}, &Sandbox{Read: []string{"/a"}}, true},
		{&Sandbox{Write: []string{"/a"}}, &Sandbox{Read: []string{"/a"}}, false},
	} {
		if got := SamePermissions(c.a, c.b); got != c.want {
			t.Errorf("SamePermissions(%+v, %+v) = %v", c.a, c.b, got)
		}
	}
	if (&Sandbox{}).Declared() != nil || (*Sandbox)(nil).Declared() != nil {
		t.Error("an empty sandbox is declared")
	}
	s := &Sandbox{Read: []string{"/a"}}
	if c := s.Declared(); c == s || c.Read[0] != "/a" {
		t.Error("Declared does not copy")
	}
}
