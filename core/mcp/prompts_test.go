package mcp

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestPromptsResourcesAndRoots(t *testing.T) {
	root := t.TempDir()
	ev := newEvents()
	m := startManager(t, []Spec{everythingStdio(t, "everything")}, Options{Roots: []string{root}, OnEvent: ev.add})
	ctx := context.Background()
	skills, errs := m.Skills(ctx)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	byName := map[string]string{}
	for _, s := range skills {
		byName[s.Name] = s.Prompt
	}
	if p := byName["everything:simple-prompt"]; p == "" {
		t.Errorf("simple-prompt: %q (skills %v)", p, skills)
	}
	if p := byName["everything:args-prompt"]; !strings.Contains(p, "{city}") {
		t.Errorf("args-prompt keeps no placeholder: %q", p)
	}
	res, err := m.Resources(ctx, "everything")
	if err != nil || len(res) == 0 {
		t.Fatalf("resources %v %v", res, err)
	}
	text, err := m.ReadResource(ctx, "everything", res[0].URI)
	if err != nil || !strings.Contains(text, res[0].URI) || len(text) < 100 {
		t.Errorf("read %s: %v %.200q", res[0].URI, err, text)
	}
	ev.wait(t, "roots tool", func(e Event) bool { return contains(toolNames(e.Tools), "get-roots-list") })
	out := run(t, mustLookup(t, m, "get-roots-list"), `{}`, nil)
	if !strings.Contains(out.ForModel, FileURI(root)) {
		t.Errorf("roots: %q", out.ForModel)
	}
	if _, err := m.Resources(ctx, "nope"); err == nil {
		t.Error("unknown server accepted")
	}
}

func TestSampling(t *testing.T) {
	var got []SamplingRequest
	ev := newEvents()
	m := startManager(t, []Spec{everythingStdio(t, "everything")}, Options{OnEvent: ev.add,
		Sample: func(ctx context.Context, r SamplingRequest) (SamplingReply, error) {
			got = append(got, r)
			if strings.Contains(r.Messages[0].Text, "refuse") {
				return SamplingReply{}, errors.New("the user did not approve")
			}
			return SamplingReply{Model: "test-model", Text: "sampled answer", StopReason: "endTurn"}, nil
		}})
	ev.wait(t, "sampling tool", func(e Event) bool { return contains(toolNames(e.Tools), "trigger-sampling-request") })
	res := run(t, mustLookup(t, m, "trigger-sampling-request"), `{"prompt":"say hi"}`, nil)
	if !strings.Contains(res.ForModel, "sampled answer") || !strings.Contains(res.ForModel, "test-model") {
		t.Errorf("%+v", res)
	}
	if len(got) != 1 || got[0].Server != "everything" || !strings.Contains(got[0].Messages[0].Text, "say hi") {
		t.Errorf("requests %+v", got)
	}
	res = run(t, mustLookup(t, m, "trigger-sampling-request"), `{"prompt":"refuse this"}`, nil)
	if res.Error == nil || !strings.Contains(res.Error.Message, "did not approve") {
		t.Errorf("refused sampling: %+v", res)
	}
}
