package runtime

import (
	"context"
	"fmt"
	"strings"

	"github.com/ollm/ollm/core/mcp"
	"github.com/ollm/ollm/internal/lazyre"
)

// A prompt that mentions an MCP resource as @server:uri gets the
// resource's contents attached, as Claude Code does: the prompt keeps the
// mention and the contents follow it in a block the model can tell apart.
// Only servers the session runs are read: a workspace server waiting for
// approval, like every other thing a workspace brings, is not started and
// its resources are not read; the note says how to approve it.

// Mention is one @server:uri in a prompt.
type Mention struct {
	Server, URI string
}

func (m Mention) String() string { return "@" + m.Server + ":" + m.URI }

// mentionRE finds @name:rest at the start of the prompt or after a space
// or an opening bracket; rest runs to the next space.
var mentionRE = lazyre.New(`(?:^|[\s(\[{])@([A-Za-z0-9_.-]+):(\S+)`)

// Mentions lists the @server:uri mentions of prompt whose server is
// known, each once, in order. An extension's server is named
// "extension:server", so the longest known name wins
// (@ext:files:file:///a is the server "ext:files"). Sentence punctuation
// after a URI (".", ",", ")", ...) is not part of it.
func Mentions(prompt string, known func(server string) bool) []Mention {
	var out []Mention
	seen := map[Mention]bool{}
	for _, sm := range mentionRE.FindAllStringSubmatch(prompt, -1) {
		uri := strings.TrimRight(sm[2], ".,;:!?)]}'\"`")
		m := Mention{Server: sm[1], URI: uri}
		if head, tail, ok := strings.Cut(uri, ":"); ok && tail != "" && known(m.Server+":"+head) {
			m = Mention{Server: m.Server + ":" + head, URI: tail}
		}
		if m.URI == "" || seen[m] || !known(m.Server) {
			continue
		}
		seen[m] = true
		out = append(out, m)
	}
	return out
}

// AttachNote says what became of one mention: attached, or why not.
type AttachNote struct {
	Mention Mention
	Bytes   int   // attached
	Err     error // not attached
}

func (n AttachNote) String() string {
	if n.Err != nil {
		return fmt.Sprintf("%s not attached: %v", n.Mention, n.Err)
	}
	return fmt.Sprintf("attached %s (%d bytes)", n.Mention, n.Bytes)
}

// AttachResources reads the MCP resources prompt mentions as
// @server:uri and returns the prompt with their contents appended, and
// one note per mention: what was attached, or why it was not. A server
// still starting is waited for (that one only); a mention of a name that
// is no MCP server is left as it is.
func (rt *Runtime) AttachResources(ctx context.Context, prompt string) (string, []AttachNote) {
	ms := Mentions(prompt, func(name string) bool {
		m, err := rt.resourceServer(name)
		return m != nil || err != nil
	})
	if len(ms) == 0 {
		return prompt, nil
	}
	var (
		notes  []AttachNote
		blocks []string
	)
	for _, men := range ms {
		text, err := rt.readMention(ctx, men)
		if err != nil {
			notes = append(notes, AttachNote{Mention: men, Err: err})
			continue
		}
		blocks = append(blocks, fmt.Sprintf("Content from %s:\n%s", men, text))
		notes = append(notes, AttachNote{Mention: men, Bytes: len(text)})
	}
	if len(blocks) == 0 {
		return prompt, notes
	}
	return prompt + "\n\n--- Content from referenced MCP resources ---\n" +
		strings.Join(blocks, "\n\n") + "\n--- End of content ---", notes
}

// readMention reads one mentioned resource as text.
func (rt *Runtime) readMention(ctx context.Context, men Mention) (string, error) {
	m, err := rt.resourceServer(men.Server)
	if err != nil {
		return "", err
	}
	if err := m.WaitServer(ctx, men.Server); err != nil {
		return "", err
	}
	if st, ok := m.ServerStatus(men.Server); ok && st.State != mcp.StateReady {
		return "", fmt.Errorf("MCP server %s is %s%s; /mcp shows why", men.Server, st.State, colonText(st.Error))
	}
	return m.ResourceText(ctx, men.Server, men.URI)
}

// resourceServer finds the Manager that runs server: the profile's, one
// approved in this session, or an extension's. (nil, nil): no server of
// that name; an error: the server exists but may not be read.
func (rt *Runtime) resourceServer(name string) (*mcp.Manager, error) {
	rt.mu.RLock()
	m, approved := rt.mcp, rt.approved[name]
	_, pending := rt.pending[name]
	rt.mu.RUnlock()
	notApproved := fmt.Errorf("workspace MCP server %s is not approved, so its resources are not read; approve it when the session asks, or review the workspace with `ollm trust`", name)
	switch {
	case approved != nil:
		return approved, nil
	case pending:
		return nil, notApproved
	case m != nil && m.Has(name):
		if st, _ := m.ServerStatus(name); st.State == mcp.StateNeedsApproval {
			return nil, notApproved
		}
		return m, nil
	}
	if rt.extServers != nil {
		if em := rt.extServers.ManagerOf(name); em != nil {
			return em, nil
		}
	}
	return nil, nil
}

func colonText(s string) string {
	if s == "" {
		return ""
	}
	return ": " + s
}
