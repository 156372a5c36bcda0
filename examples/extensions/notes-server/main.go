// Command notes-server is an example MCP server for ollm: project notes
// kept in a JSON-lines file, over stdio (newline-delimited JSON-RPC 2.0).
// It uses only the standard library, so `go run .` works offline.
//
// It requires NOTES_TOKEN, the extension's sensitive setting: without it
// the server answers initialize with an error that says how to set it, so
// the client reports the server as failed with that reason (a process that
// just exited would leave only `go run`'s "exit status 1" as the last line
// of stderr). A real notes service would authenticate with the token; it
// is never printed.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

func main() {
	file := flag.String("file", "notes.jsonl", "the notes `FILE` (JSON lines)")
	flag.Parse()
	s := &server{file: *file, token: os.Getenv("NOTES_TOKEN"), now: time.Now}
	if err := s.serve(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "notes-server:", err)
		os.Exit(1)
	}
}

type server struct {
	file  string
	token string
	now   func() time.Time
}

const noToken = "notes-server: NOTES_TOKEN is not set: export NOTES_TOKEN=<token> (the extension's sensitive setting \"token\") and start again"

type request struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params,omitempty"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// serve answers one request per line until in ends.
func (s *server) serve(in io.Reader, out io.Writer) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 8<<20)
	enc := json.NewEncoder(out)
	for sc.Scan() {
		var req request
		if err := json.Unmarshal(sc.Bytes(), &req); err != nil {
			fmt.Fprintln(os.Stderr, "notes-server: skipping a line that is not JSON-RPC:", err)
			continue
		}
		if len(req.ID) == 0 {
			continue // a notification: nothing to answer
		}
		result, rerr := s.handle(req)
		resp := map[string]any{"jsonrpc": "2.0", "id": req.ID}
		if rerr != nil {
			resp["error"] = rerr
		} else {
			resp["result"] = result
		}
		if err := enc.Encode(resp); err != nil {
			return err
		}
	}
	return sc.Err()
}

func (s *server) handle(req request) (any, *rpcError) {
	switch req.Method {
	case "initialize":
		if s.token == "" {
			fmt.Fprintln(os.Stderr, noToken)
			return nil, &rpcError{Code: -32001, Message: noToken}
		}
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(req.Params, &p)
		if p.ProtocolVersion == "" {
			p.ProtocolVersion = "2025-06-18"
		}
		return map[string]any{
			"protocolVersion": p.ProtocolVersion,
			"capabilities":    map[string]any{"tools": map[string]any{}},
			"serverInfo":      map[string]any{"name": "notes-server", "version": "1.0.0"},
		}, nil
	case "ping":
		return map[string]any{}, nil
	case "tools/list":
		return map[string]any{"tools": tools}, nil
	case "tools/call":
		var p struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		}
		if err := json.Unmarshal(req.Params, &p); err != nil {
			return nil, &rpcError{Code: -32602, Message: "tools/call: " + err.Error()}
		}
		text, err := s.call(p.Name, p.Arguments)
		if err != nil {
			return toolResult(err.Error(), true), nil
		}
		return toolResult(text, false), nil
	}
	return nil, &rpcError{Code: -32601, Message: "method not found: " + req.Method}
}

var tools = []map[string]any{
	{
		"name":        "add_note",
		"description": "Save a project note (a decision, a finding, a to-do) so later sessions can find it.",
		"inputSchema": map[string]any{
			"type": "object",
			"properties": map[string]any{
				"text": map[string]any{"type": "string", "description": "the note"},
				"tags": map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
			},
			"required": []string{"text"},
		},
		"annotations": map[string]any{"readOnlyHint": false, "destructiveHint": false},
	},
	{
		"name":        "list_notes",
		"description": "List the project notes, newest last; query keeps those that contain it (case-insensitive).",
		"inputSchema": map[string]any{
			"type":       "object",
			"properties": map[string]any{"query": map[string]any{"type": "string"}},
		},
		"annotations": map[string]any{"readOnlyHint": true},
	},
}

func toolResult(text string, isError bool) map[string]any {
	return map[string]any{"content": []map[string]any{{"type": "text", "text": text}}, "isError": isError}
}

type note struct {
	Time string   `json:"time"`
	Text string   `json:"text"`
	Tags []string `json:"tags,omitempty"`
}

func (s *server) call(name string, raw json.RawMessage) (string, error) {
	switch name {
	case "add_note":
		var n note
		if err := json.Unmarshal(raw, &n); err != nil || strings.TrimSpace(n.Text) == "" {
			return "", errors.New("add_note: give the note as {\"text\": \"...\"}")
		}
		n.Time = s.now().UTC().Format(time.RFC3339)
		count, err := s.add(n)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("saved note %d in %s", count, s.file), nil
	case "list_notes":
		var q struct {
			Query string `json:"query"`
		}
		_ = json.Unmarshal(raw, &q)
		return s.list(q.Query)
	}
	return "", fmt.Errorf("no tool %q; the tools are add_note and list_notes", name)
}

func (s *server) load() ([]note, error) {
	data, err := os.ReadFile(s.file)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var notes []note
	for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if line == "" {
			continue
		}
		var n note
		if err := json.Unmarshal([]byte(line), &n); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", s.file, i+1, err)
		}
		notes = append(notes, n)
	}
	return notes, nil
}

func (s *server) add(n note) (int, error) {
	notes, err := s.load()
	if err != nil {
		return 0, err
	}
	if err := os.MkdirAll(filepath.Dir(s.file), 0o755); err != nil {
		return 0, err
	}
	f, err := os.OpenFile(s.file, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return 0, err
	}
	b, _ := json.Marshal(n)
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Close()
		return 0, err
	}
	return len(notes) + 1, f.Close()
}

func (s *server) list(query string) (string, error) {
	notes, err := s.load()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for i, n := range notes {
		if query != "" && !strings.Contains(strings.ToLower(n.Text), strings.ToLower(query)) {
			continue
		}
		fmt.Fprintf(&b, "%d. [%s] %s", i+1, n.Time, n.Text)
		if len(n.Tags) > 0 {
			fmt.Fprintf(&b, " (%s)", strings.Join(n.Tags, ", "))
		}
		b.WriteByte('\n')
	}
	if b.Len() == 0 {
		return "no notes", nil
	}
	return strings.TrimRight(b.String(), "\n"), nil
}
