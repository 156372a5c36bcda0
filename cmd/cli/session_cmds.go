package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ollm/ollm/cmd/cli/tui"
	"github.com/ollm/ollm/core/agent"
	"github.com/ollm/ollm/core/llm"
)

// sessionTrust is /trust in the TUI: the plan and the approval of
// `ollm trust`, read afresh each time.
type sessionTrust struct{ f *Factory }

func (t sessionTrust) Plan() (tui.TrustPlan, error) {
	s, err := loadHooks(t.f)
	if err != nil {
		return tui.TrustPlan{}, err
	}
	if s.none != nil {
		return tui.TrustPlan{State: tui.TrustNothing, Why: s.none.Error()}, nil
	}
	tr := s.r.Trust
	p := tui.TrustPlan{Workspace: s.ws.Root, Digest: tr.Digest}
	if tr.Digest == "" {
		p.State, p.Why = tui.TrustNothing, fmt.Sprintf("the workspace %s brings no profile, lock, .mcp.json, Claude settings or extensions: nothing to approve", s.ws.Root)
		return p, nil
	}
	var b bytes.Buffer
	printTrustPlan(&b, s)
	p.Text = strings.TrimRight(b.String(), "\n")
	switch {
	case tr.Unapprovable != "":
		p.State, p.Why = tui.TrustRefused, tr.Unapprovable
	case tr.Approved && !tr.Gated && approvedAt(s):
		p.State = tui.TrustApproved
	default:
		p.State = tui.TrustNeeded
	}
	return p, nil
}

// Approve approves the workspace if it is still what the plan showed.
func (t sessionTrust) Approve(digest string) (string, error) {
	s, err := loadHooks(t.f)
	if err != nil {
		return "", err
	}
	if s.none != nil {
		return "", s.none
	}
	if s.r.Trust.Digest != digest {
		return "", fmt.Errorf("the workspace changed since the plan was shown (digest %s, now %s); /trust shows the new plan", digest, s.r.Trust.Digest)
	}
	if s.r.Trust.Unapprovable != "" {
		return "", fmt.Errorf("the workspace cannot be approved: %s", s.r.Trust.Unapprovable)
	}
	var out bytes.Buffer
	opts := &TrustOptions{IO: &IOStreams{Out: &out, ErrOut: io.Discard}, Now: t.f.Now, By: approvedBy(t.f)}
	if err := approveWorkspace(opts, s, digest); err != nil {
		return "", err
	}
	return strings.TrimSpace(out.String()), nil
}

// sessionList lists the saved sessions for /resume, newest first.
type sessionList struct {
	dir     string
	current string // the running session's id
}

// maxListedSessions is the most sessions /resume reads (the newest).
const maxListedSessions = 200

func (l sessionList) List() ([]tui.SessionInfo, error) {
	ents, err := os.ReadDir(l.dir)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []tui.SessionInfo
	for _, e := range ents {
		id, ok := strings.CutSuffix(e.Name(), ".jsonl")
		if e.IsDir() || !ok || !agent.ValidID(id) {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		out = append(out, tui.SessionInfo{ID: id, Time: info.ModTime(), Current: id == l.current})
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Time.Equal(out[j].Time) {
			return out[i].Time.After(out[j].Time)
		}
		return out[i].ID > out[j].ID
	})
	if len(out) > maxListedSessions {
		out = out[:maxListedSessions]
	}
	for i := range out {
		out[i].Workspace, out[i].Title = sessionHead(agent.Path(l.dir, out[i].ID))
	}
	return out, nil
}

// sessionHead reads a transcript's workspace (its first record) and
// title (its first prompt, on one line).
func sessionHead(path string) (workspace, title string) {
	f, err := os.Open(path)
	if err != nil {
		return "", ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for n := 0; sc.Scan() && n < 1000; n++ {
		var r agent.Record
		if json.Unmarshal(sc.Bytes(), &r) != nil {
			continue
		}
		switch {
		case r.Type == agent.RecSession && workspace == "":
			workspace = r.Cwd
		case r.Type == agent.RecMessage && r.Message != nil && r.Message.Role == llm.RoleUser && r.Message.Content != "":
			return workspace, strings.Join(strings.Fields(r.Message.Content), " ")
		}
	}
	return workspace, ""
}

// resumeHint is what the exit prints: how to come back to the session
// (and, for another workspace, where).
func resumeHint(id, workspace, here string) string {
	cmd := "ollm --resume " + id
	if workspace != "" && filepath.Clean(workspace) != filepath.Clean(here) {
		cmd = "cd " + shellQuote(workspace) + " && " + cmd
	}
	return cmd
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// switchSession ends a session so that runSessions starts another
// (/resume).
type switchSession struct{ id string }

func (s *switchSession) Error() string { return "switching to session " + s.id }

// runSessions runs the interactive session and, when /resume chose
// another session of this workspace, that one in its place: a session is
// built from the workspace's profile, servers and hooks, so the chosen one
// starts as `ollm --resume ID` starts it, with the old one closed first.
func runSessions(ctx context.Context, f *Factory, resuming bool, id string) error {
	for {
		err := runSession(ctx, f, resuming, id)
		var sw *switchSession
		if !errors.As(err, &sw) {
			return err
		}
		resuming, id = true, sw.id
	}
}

// sessionExit runs once the full screen is gone: it switches to the
// session /resume chose (one of another workspace is named with the
// command that resumes it there), else it says how to resume this one.
func sessionExit(f *Factory, to *tui.SessionInfo, id, root string) error {
	if to != nil && (to.Workspace == "" || filepath.Clean(to.Workspace) == filepath.Clean(root)) {
		return &switchSession{id: to.ID}
	}
	if to != nil {
		fmt.Fprintf(f.IO.Out, "session %s ran in %s; resume it there with:\n  %s\n", to.ID, to.Workspace, resumeHint(to.ID, to.Workspace, root))
	}
	fmt.Fprintf(f.IO.Out, "Resume this session with: %s\n", resumeHint(id, root, root))
	return nil
}
