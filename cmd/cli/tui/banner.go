package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/reflow/wordwrap"
)

// Banner is the first screen: where the session runs, on what, what the
// workspace's trust holds back and every problem found at the start. It
// is the conversation's first entry; later Banner or ModelChecked events
// update it in place.
type Banner struct {
	Workspace  string
	Model      string
	Provider   string // "ollama", "openai"
	Endpoint   string
	Generation int  // 0: no generation applied (the files run)
	Pinned     bool // pinned by `ollm profile rollback`
	// Trust is the workspace's state in words ("approved", "not approved",
	// "nothing to approve"); Held what an unapproved workspace holds back.
	Trust string
	Held  []string
	// Counts of what the profile brings.
	Extensions, Servers, Hooks, Skills int
	// Problems found at the start: profile errors and conflicts (and
	// which generation runs instead), held-back values, warnings.
	Problems []string
}

// ModelChecked says whether the session's model is there: the server
// answered (Err "" ) and lists it (Installed). CanPull: the provider can
// download it (Ollama); the banner offers the pull and the pull dialog
// opens.
type ModelChecked struct {
	Model     string
	Installed bool
	CanPull   bool
	Err       string
}

func (Banner) event()       {}
func (ModelChecked) event() {}

// Show queues events for the screen as if the session had sent them (the
// banner, the model check).
func (r *AgentRuntime) Show(evs ...Event) { r.push(evs...) }

// bannerEvent puts the banner first in the conversation or updates it.
func (m *Model) bannerEvent(ev Event) {
	switch e := ev.(type) {
	case Banner:
		m.orient.banner = e
		m.orient.hasBanner = true
	case ModelChecked:
		m.orient.check = &e
		if !e.Installed && e.Err == "" && e.CanPull && m.rt != nil {
			m.orient.ask = e.Model
		}
	}
	if m.orient.entry == nil {
		m.orient.entry = &entry{kind: "banner"}
		m.entries = append([]*entry{m.orient.entry}, m.entries...)
	}
	m.orient.entry.text = m.bannerView()
	m.orient.entry.cache = nil
}

var stTitle = lipgloss.NewStyle().Bold(true)

// bannerView draws the banner at the screen's width.
func (m *Model) bannerView() string {
	b := m.orient.banner
	w := max(m.width-4, 20)
	var lines []string
	add := func(label, text string) {
		lines = append(lines, stDim.Render(fmt.Sprintf("%-10s", label))+text)
	}
	lines = append(lines, stTitle.Render("ollm")+stDim.Render("  /help for commands · /model to pick a model · Ctrl-C twice to quit"))
	if b.Workspace != "" {
		add("workspace", b.Workspace)
	}
	if b.Model != "" {
		s := b.Model
		if b.Provider != "" {
			s += stDim.Render(" via " + b.Provider)
		}
		if b.Endpoint != "" {
			s += stDim.Render(" at " + b.Endpoint)
		}
		add("model", s)
	}
	switch {
	case b.Generation > 0 && b.Pinned:
		add("profile", fmt.Sprintf("generation %d, pinned by `ollm profile rollback`", b.Generation))
	case b.Generation > 0:
		add("profile", fmt.Sprintf("generation %d", b.Generation))
	case m.orient.hasBanner:
		add("profile", "the profile files (no generation applied: `ollm profile apply` makes one)")
	}
	if b.Trust != "" {
		t := b.Trust
		if len(b.Held) > 0 {
			t += ": holds back " + strings.Join(b.Held, ", ") + "; `ollm trust` (or /trust) shows and approves them"
		}
		add("trust", t)
	}
	if m.orient.hasBanner {
		add("loaded", fmt.Sprintf("%s, %s, %s, %s", plural(b.Extensions, "extension"), plural(b.Servers, "MCP server"), plural(b.Hooks, "hook"), plural(b.Skills, "skill")))
	}
	problems := append([]string(nil), b.Problems...)
	if c := m.orient.check; c != nil {
		switch {
		case c.Err != "":
			problems = append(problems, c.Err)
		case !c.Installed && c.CanPull:
			problems = append(problems, fmt.Sprintf("model %s is not installed: `/model %s` pulls it (or `ollm model pull %s`)", c.Model, c.Model, c.Model))
		case !c.Installed:
			problems = append(problems, fmt.Sprintf("model %s is not offered by the server: `/model` lists what is", c.Model))
		}
	}
	for _, p := range problems {
		lines = append(lines, stError.Render(wordwrap.String("✗ "+p, w)))
	}
	return stCard.Width(w + 2).Render(strings.Join(lines, "\n"))
}

// plural is "1 hook", "2 hooks", "no hooks" (cards.go: "1 edit").
func plural(n int, one string) string {
	switch n {
	case 0:
		return "no " + one + "s"
	case 1:
		return "1 " + one
	}
	return fmt.Sprintf("%d %ss", n, one)
}
