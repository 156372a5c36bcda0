package acp

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/ollm/ollm/core/agent"
	"github.com/ollm/ollm/core/tool"
	"github.com/ollm/ollm/store"
)

// clientTools are the session's tools with read_file, write_file and
// edit_file going through the editor (fs/read_text_file,
// fs/write_text_file) when it offers them, so unsaved buffers are read and
// edits land in them. The tools keep their names, schemas and kinds: the
// gate (hooks, policy, confirmation) decides exactly as for the built-in
// tools, whose own checks (the path resolved inside the workspace, the
// parameters) still run first; only the file access changes.
type clientTools struct {
	inner             agent.Tools
	s                 *session
	read, write, term bool
}

func (t clientTools) wrap(x tool.Tool) tool.Tool {
	switch x.Name() {
	case "read_file":
		if t.read {
			return clientTool{Tool: x, s: t.s, op: opRead}
		}
	case "write_file", "edit_file":
		if t.write {
			return clientTool{Tool: x, s: t.s, op: opWrite, read: t.read}
		}
	case "shell":
		if t.term {
			return terminalTool{Tool: x, s: t.s}
		}
	}
	return x
}

func (t clientTools) List() []tool.Tool {
	list := t.inner.List()
	out := make([]tool.Tool, len(list))
	for i, x := range list {
		out[i] = t.wrap(x)
	}
	return out
}

func (t clientTools) Get(name string) (tool.Tool, bool) {
	x, ok := t.inner.Get(name)
	if !ok {
		return nil, false
	}
	return t.wrap(x), true
}

type fsOp int

const (
	opRead fsOp = iota
	opWrite
)

type clientTool struct {
	tool.Tool
	s    *session
	op   fsOp
	read bool
}

// Build runs the built-in tool's own checks, then swaps the execution.
// An edit_file the built-in tool cannot plan against the file on disk is
// planned against the editor's buffer (unsaved changes) when it applies
// there.
func (t clientTool) Build(params json.RawMessage) (tool.Invocation, error) {
	inv, err := t.Tool.Build(params)
	if err != nil {
		if t.Name() == "edit_file" && t.read {
			if b, ok := t.bufferEdit(params); ok {
				return b, nil
			}
		}
		return nil, err
	}
	locs := inv.Locations()
	if len(locs) != 1 || !t.s.inWorkspace(locs[0]) {
		return inv, nil // outside the workspace (an extra directory): on disk, as before
	}
	return clientInvocation{Invocation: inv, t: t, path: locs[0]}, nil
}

type clientInvocation struct {
	tool.Invocation
	t    clientTool
	path string
}

// inWorkspace: path's directory, symlinks resolved, is inside the
// workspace root (the editor's files).
func (s *session) inWorkspace(path string) bool {
	root, err := filepath.EvalSymlinks(s.rt.Workspace.Root)
	if err != nil {
		return false
	}
	dir, err := filepath.EvalSymlinks(filepath.Dir(path))
	if err != nil {
		return false
	}
	rel, err := filepath.Rel(root, dir)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

func (c clientInvocation) rel() string {
	if r, err := filepath.Rel(c.t.s.rt.Workspace.Root, c.path); err == nil {
		return r
	}
	return c.path
}

func (c clientInvocation) Execute(ctx context.Context, out func(tool.Chunk)) (tool.Result, error) {
	s := c.t.s
	sid := sdk.SessionId(s.id)
	if c.t.op == opWrite {
		// The editor writes by name: a directory on the way swapped for a
		// link to .git since the gate asked makes it a trust file now.
		if why, ok := store.TrustPath(s.rt.Workspace, s.rt.Home.Dir, c.path); ok && !asked(c.Invocation) {
			return tool.Fail(tool.ErrPolicy, "%s now leads to a file that decides what runs (%s), which this call was not confirmed for; nothing was written", c.rel(), why), nil
		}
	}
	switch {
	case c.t.op == opRead:
		var p struct {
			StartLine int `json:"startLine"`
			EndLine   int `json:"endLine"`
		}
		_ = json.Unmarshal(c.Params(), &p)
		req := sdk.ReadTextFileRequest{SessionId: sid, Path: c.path}
		if p.StartLine > 0 {
			req.Line = &p.StartLine
		}
		if p.EndLine > 0 {
			n := p.EndLine - max(p.StartLine, 1) + 1
			req.Limit = &n
		}
		r, err := s.a.conn.ReadTextFile(ctx, req)
		if err != nil {
			return tool.Fail(tool.ErrExec, "%s: the editor could not read it: %v", c.rel(), err), nil
		}
		return tool.Result{ForModel: r.Content, Display: "Read " + c.rel() + " (from the editor)"}, nil
	case c.t.Name() == "write_file":
		var p struct {
			Content   string `json:"content"`
			Overwrite bool   `json:"overwrite"`
		}
		if err := json.Unmarshal(c.Params(), &p); err != nil {
			return tool.Fail(tool.ErrInvalidParams, "write_file: %v", err), nil
		}
		_, exists := s.readCurrent(c.path)
		if exists && !p.Overwrite {
			return tool.Fail(tool.ErrExists, "%s already exists; pass overwrite: true to replace it, or use edit_file to change part of it", c.rel()), nil
		}
		if _, err := s.a.conn.WriteTextFile(ctx, sdk.WriteTextFileRequest{SessionId: sid, Path: c.path, Content: p.Content}); err != nil {
			return tool.Fail(tool.ErrExec, "%s: the editor could not write it: %v", c.rel(), err), nil
		}
		verb := "Created"
		if exists {
			verb = "Overwrote"
		}
		msg := fmt.Sprintf("%s %s (%d bytes) in the editor.", verb, c.rel(), len(p.Content))
		return tool.Result{ForModel: msg, Display: msg, Files: []string{c.path}}, nil
	default: // edit_file
		var p struct {
			Edits []textEdit `json:"edits"`
		}
		if err := json.Unmarshal(c.Params(), &p); err != nil {
			return tool.Fail(tool.ErrInvalidParams, "edit_file: %v", err), nil
		}
		body, ok := s.readCurrent(c.path)
		if !ok {
			return tool.Fail(tool.ErrNotFound, "%s does not exist; create it with write_file", c.rel()), nil
		}
		body, res := applyEdits(body, p.Edits)
		if res != nil {
			return *res, nil
		}
		if _, err := s.a.conn.WriteTextFile(ctx, sdk.WriteTextFileRequest{SessionId: sid, Path: c.path, Content: body}); err != nil {
			return tool.Fail(tool.ErrExec, "%s: the editor could not write it: %v", c.rel(), err), nil
		}
		msg := fmt.Sprintf("Applied %d edits to %s in the editor.", len(p.Edits), c.rel())
		return tool.Result{ForModel: msg, Display: msg, Files: []string{c.path}}, nil
	}
}

// textEdit is one of edit_file's replacements.
type textEdit struct {
	OldText string `json:"oldText"`
	NewText string `json:"newText"`
}

// applyEdits applies edit_file's edits to the editor's text, each oldText
// exactly once, or says why not.
func applyEdits(body string, edits []textEdit) (string, *tool.Result) {
	for i, e := range edits {
		var r tool.Result
		switch n := strings.Count(body, e.OldText); {
		case e.OldText == "":
			r = tool.Fail(tool.ErrInvalidParams, "edits[%d]: oldText is empty; to create a file use write_file", i)
		case n == 0:
			r = tool.Fail(tool.ErrInvalidParams, "edits[%d]: oldText was not found; read the file again and copy the text exactly, including whitespace", i)
		case n > 1:
			r = tool.Fail(tool.ErrInvalidParams, "edits[%d]: oldText occurs %d times; include more context so it occurs once", i, n)
		default:
			body = strings.Replace(body, e.OldText, e.NewText, 1)
			continue
		}
		return "", &r
	}
	return body, nil
}

// bufferEdit plans an edit_file call against the editor's buffer: the
// parameters validated by the tool's own schema, the path checked as
// read_file checks it (inside the workspace, symlinks included), and
// every edit applying to the buffer. ok is false when any of that fails:
// the built-in tool's error stands.
func (t clientTool) bufferEdit(params json.RawMessage) (tool.Invocation, bool) {
	v, ok := t.Tool.(interface {
		Validate(json.RawMessage, any) (json.RawMessage, error)
	})
	if !ok {
		return nil, false
	}
	var p struct {
		Path  string     `json:"path"`
		Edits []textEdit `json:"edits"`
	}
	raw, err := v.Validate(params, &p)
	if err != nil {
		return nil, false
	}
	rf, ok := t.s.rt.AgentTools().Get("read_file")
	if !ok {
		return nil, false
	}
	path, _ := json.Marshal(map[string]string{"path": p.Path})
	rinv, err := rf.Build(path)
	if err != nil || len(rinv.Locations()) != 1 || !t.s.inWorkspace(rinv.Locations()[0]) {
		return nil, false
	}
	loc := rinv.Locations()[0]
	body, ok := t.s.readCurrent(loc)
	if !ok {
		return nil, false
	}
	if _, res := applyEdits(body, p.Edits); res != nil {
		return nil, false
	}
	c := clientInvocation{t: t, path: loc}
	title := fmt.Sprintf("Edit %s (%d edits, in the editor's buffer)", c.rel(), len(p.Edits))
	why, _ := store.TrustPath(t.s.rt.Workspace, t.s.rt.Home.Dir, loc)
	if why != "" {
		title += " - a file that decides what runs: " + why
	}
	c.Invocation = bufferPlan{params: raw, title: title, path: loc, trust: why}
	return c, true
}

// bufferPlan is an edit planned against the editor's buffer; its
// clientInvocation executes it.
type bufferPlan struct {
	params             json.RawMessage
	title, path, trust string
}

func (b bufferPlan) Params() json.RawMessage { return b.params }
func (b bufferPlan) Description() string     { return b.title }
func (b bufferPlan) Locations() []string     { return []string{b.path} }
func (b bufferPlan) Confirmation() *tool.Confirmation {
	return &tool.Confirmation{Title: b.title, Kind: tool.KindEdit, Risk: tool.RiskFor(tool.KindEdit), Locations: b.Locations(), Params: b.params, Trust: b.trust}
}
func (b bufferPlan) Execute(context.Context, func(tool.Chunk)) (tool.Result, error) {
	return tool.Result{}, fmt.Errorf("edit_file: a buffer plan runs through the editor")
}

// asked reports whether the gate asked a person about inv as a write to a
// file that decides what runs.
func asked(inv tool.Invocation) bool {
	c := inv.Confirmation()
	return c != nil && c.Trust != ""
}
