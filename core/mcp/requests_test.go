package mcp

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ollm/ollm/schema"
)

// An accepted elicitation comes back with the defaults of the fields the
// answer left out (SEP-1034); the answer's own values stay.
func TestElicitationDefaultsApplied(t *testing.T) {
	for transport, spec := range map[string]Spec{"stdio": everythingStdio(t, "ev"),
		"http": {Name: "ev", Config: Config{Transport: TransportHTTP, URL: startEverythingHTTP(t, "streamableHttp") + "/mcp", Enabled: true}}} {
		t.Run(transport, func(t *testing.T) {
			m := startManager(t, []Spec{spec}, Options{
				Elicit: func(ctx context.Context, e Elicitation) (ElicitationReply, error) {
					return ElicitationReply{Action: ElicitAccept, Content: map[string]any{"name": "Ada", "check": true, "integer": 7}}, nil
				},
			})
			res := run(t, mustLookup(t, m, "ev:trigger-elicitation-request"), `{}`, nil)
			for _, want := range []string{"- Name: Ada", "- Favorite Integer: 7", `"firstLine": "It was a dark and stormy night."`, `"number": 3.14`, `"legacyTitledEnum": "pet-1"`} {
				if !strings.Contains(res.ForModel, want) {
					t.Errorf("result lacks %q:\n%s", want, res.ForModel)
				}
			}
		})
	}
}

// A sampling request the user refuses is answered with the error code the
// spec gives a rejection (-1), with the reason.
func TestSamplingRefusalCode(t *testing.T) {
	m := startManager(t, []Spec{everythingStdio(t, "ev")}, Options{
		Sample: func(ctx context.Context, r SamplingRequest) (SamplingReply, error) {
			return SamplingReply{}, errors.New("the user said no")
		},
	})
	res := run(t, mustLookup(t, m, "ev:trigger-sampling-request"), `{"prompt":"hi"}`, nil)
	if res.Error == nil || !strings.Contains(res.Error.Message, "-1") || !strings.Contains(res.Error.Message, "the user said no") {
		t.Fatalf("%+v %q", res.Error, res.ForModel)
	}
}

// A server's roots are the workspace and the extra directories its
// sandbox lets it see; roots set for the server replace them.
func TestRootsPerServer(t *testing.T) {
	ws, extra, sub := t.TempDir(), t.TempDir(), t.TempDir()
	confined := everythingStdio(t, "confined")
	confined.Config.Sandbox = &schema.Sandbox{Write: []string{extra, filepath.Join(ws, "missing")}}
	own := everythingStdio(t, "own")
	own.Roots = []string{sub}
	plain := everythingStdio(t, "plain")
	m := startManager(t, []Spec{confined, own, plain}, Options{Roots: []string{ws}})
	for name, want := range map[string][]string{"confined": {ws, extra}, "own": {sub}, "plain": {ws}} {
		res := run(t, mustLookup(t, m, name+":get-roots-list"), `{}`, nil)
		if !strings.Contains(res.ForModel, fmt.Sprintf("(%d total)", len(want))) {
			t.Errorf("%s: %s", name, res.ForModel)
		}
		for _, dir := range want {
			if !strings.Contains(res.ForModel, "URI: file://"+dir+"\n") {
				t.Errorf("%s: roots lack %s:\n%s", name, dir, res.ForModel)
			}
		}
	}
}
