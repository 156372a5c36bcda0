package tui

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
)

// /trust: the plan `ollm trust` prints (the hooks and servers the
// workspace would run, every widening value with its file:line) in a
// dialog that scrolls; y approves the workspace at that digest and
// reloads the session, so the servers and hooks held back start; n or Esc
// leaves it. Like every dialog it takes keys only once drawn (arm.go).

// Trust reviews and approves the workspace the session runs in.
type Trust interface {
	// Plan is what an approval would cover, as `ollm trust` shows it.
	Plan() (TrustPlan, error)
	// Approve approves the workspace at digest (and its hooks) and
	// returns what was approved, in words.
	Approve(digest string) (string, error)
}

// Trust states.
const (
	TrustNeeded   = "needed"   // not approved (or changed since): the dialog asks
	TrustApproved = "approved" // approved at this digest already
	TrustNothing  = "none"     // the workspace brings nothing to approve
	TrustRefused  = "refused"  // it cannot be approved (Why)
)

// TrustPlan is the plan of an approval.
type TrustPlan struct {
	Workspace string
	Digest    string
	Text      string // the plan, one item a line
	State     string
	Why       string // TrustRefused: why; TrustNothing: what the workspace lacks
}

// trustState is /trust under way.
type trustState struct {
	loading bool
	plan    *TrustPlan // the dialog is open
}

// Messages of the commands (menu.go, trustview.go, resume.go); update
// hands them to cmdsMsg.
type cmdsMsg interface{ cmdsMsg() }

type trustPlanned struct {
	plan TrustPlan
	err  error
}

func (trustPlanned) cmdsMsg() {}

// trustCommand starts /trust: the plan is read off the UI's goroutine.
func (m *Model) trustCommand() tea.Cmd {
	tr := m.opt.Trust
	if tr == nil {
		m.info("error", "/trust is not available in this session; run `ollm trust` in the workspace")
		return nil
	}
	m.cmds.trust.loading = true
	return func() tea.Msg {
		p, err := tr.Plan()
		return trustPlanned{plan: p, err: err}
	}
}

func (m *Model) trustPlanned(msg trustPlanned) tea.Cmd {
	m.cmds.trust.loading = false
	p := msg.plan
	// The plan quotes the workspace's own files: drawn as text (cards.go).
	p.Text, p.Why, p.Workspace = cleanBlock(p.Text), cleanBlock(p.Why), clean(p.Workspace)
	switch {
	case msg.err != nil:
		m.info("error", "/trust: "+msg.err.Error())
	case p.State == TrustNeeded:
		m.cmds.trust.plan = &p
	case p.State == TrustApproved:
		m.info("info", fmt.Sprintf("%s\nthe workspace %s is approved at this digest already; `ollm trust --revoke` takes it back", p.Text, p.Workspace))
	case p.State == TrustRefused:
		m.info("error", fmt.Sprintf("%s\nthe workspace %s cannot be approved: %s", p.Text, p.Workspace, p.Why))
	default:
		m.info("info", p.Why)
	}
	return nil
}

// trustKey is the dialog's keys: scroll, y approves, n or Esc leaves it.
func (m *Model) trustKey(k tea.KeyMsg) (tea.Cmd, bool) {
	if m.dialogScrollKey(k) {
		return nil, true
	}
	p := m.cmds.trust.plan
	switch k.String() {
	case "y":
		m.cmds.trust.plan = nil
		out, err := m.opt.Trust.Approve(p.Digest)
		if err != nil {
			m.info("error", "/trust: "+err.Error())
			return nil, true
		}
		m.info("info", out)
		if m.busy {
			m.info("info", "a turn is running: /reload once it ends starts what the approval lets run")
			return nil, true
		}
		return m.runCommand(Command{Kind: CmdReload}), true
	case "n", "esc", "ctrl+c":
		m.cmds.trust.plan = nil
		m.info("info", "the workspace is not approved; /trust shows the plan again")
	}
	return nil, true
}

// runCommand runs c on the runtime as submit would.
func (m *Model) runCommand(c Command) tea.Cmd {
	out, started, err := m.rt.Command(c)
	if err != nil {
		m.info("error", err.Error())
		return nil
	}
	m.busy = m.busy || started
	if out != "" {
		m.info("info", out)
	}
	m.status = m.rt.Status()
	return nil
}

// trustView is the plan in a dialog that scrolls.
func (m *Model) trustView() string {
	p := m.cmds.trust.plan
	w := m.width - 4
	head := stTitle.Render("Approve this workspace?") + "\n" +
		stDim.Render("workspace "+p.Workspace) + "\n" +
		stDim.Render("Until approved, what it brings that runs, reads, sends or allows more is held back. Approving covers:") + "\n"
	foot := m.keysLine("[y] approve and reload   [n] not now")
	body := hardLines(strings.TrimRight(p.Text, "\n"), w-2, nil)
	body = m.scrollBody(body, m.dialogRoom(head, foot))
	return stDialog.Width(w).Render(head + strings.Join(body, "\n") + "\n" + foot)
}
