package hooks

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// Claude Code hooks read the conversation from transcript_path, a JSONL
// file of Claude's shape: one line per message, {"type": "user" |
// "assistant", "message": {"role", "content"}, "sessionId", "uuid",
// "parentUuid", "timestamp", "cwd"}, assistant content a list of text and
// tool_use blocks, tool results user lines with tool_result blocks. ollm's
// own transcript is another shape and lives where the sandbox hides it,
// so a claude-dialect hook is pointed at a copy in Claude's shape, written
// before the hook starts beside ollm's (ClaudeTranscriptPath), which its
// sandbox may read and nothing else of ollm's sessions.

// ClaudeTranscriptPath is where the Claude-format copy of the ollm
// transcript src is written: <sessions>/claude/<id>.jsonl.
func ClaudeTranscriptPath(src string) string {
	return filepath.Join(filepath.Dir(src), "claude", filepath.Base(src))
}

// ollmRecord is a line of ollm's transcript (agent.Record), read here
// without the agent package, which imports this one.
type ollmRecord struct {
	Type     string        `json:"type"`
	Time     time.Time     `json:"time"`
	Message  *ollmMessage  `json:"message"`
	Messages []ollmMessage `json:"messages"`
}

type ollmMessage struct {
	Role      string `json:"role"`
	Content   string `json:"content"`
	ToolCalls []struct {
		ID        string          `json:"id"`
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"toolCalls"`
	ToolCallID string `json:"toolCallId"`
	ToolName   string `json:"toolName"`
}

// writeClaudeTranscript converts the ollm transcript src into Claude's
// shape at dst (replaced whole, by rename, so a hook never reads half a
// file) and returns dst.
func writeClaudeTranscript(src, sessionID, cwd string) (string, error) {
	data, err := os.ReadFile(src)
	if err != nil {
		return "", fmt.Errorf("claude transcript: %w", err)
	}
	type stamped struct {
		m ollmMessage
		t time.Time
	}
	var msgs []stamped
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), 64<<20)
	for sc.Scan() {
		var r ollmRecord
		if json.Unmarshal(sc.Bytes(), &r) != nil {
			continue // a torn last line
		}
		switch r.Type {
		case "message":
			if r.Message != nil {
				msgs = append(msgs, stamped{*r.Message, r.Time})
			}
		case "replace":
			msgs = msgs[:0]
			for _, m := range r.Messages {
				msgs = append(msgs, stamped{m, r.Time})
			}
		}
	}
	var b bytes.Buffer
	parent := any(nil)
	for i, s := range msgs {
		var line map[string]any
		switch m := s.m; m.Role {
		case "user":
			line = map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": m.Content}}
		case "assistant":
			content := []any{}
			if m.Content != "" {
				content = append(content, map[string]any{"type": "text", "text": m.Content})
			}
			for _, c := range m.ToolCalls {
				var args map[string]any
				_ = json.Unmarshal(c.Arguments, &args)
				content = append(content, map[string]any{"type": "tool_use", "id": c.ID,
					"name": ClaudeToolName(c.Name), "input": claudeArgs(c.Name, args, true)})
			}
			line = map[string]any{"type": "assistant", "message": map[string]any{"role": "assistant", "content": content}}
		case "tool":
			line = map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": []any{
				map[string]any{"type": "tool_result", "tool_use_id": m.ToolCallID, "content": m.Content}}}}
		default:
			continue // system prompts are not in Claude's transcript
		}
		uuid := sessionID + "-" + strconv.Itoa(i)
		line["uuid"], line["parentUuid"], line["sessionId"], line["cwd"] = uuid, parent, sessionID, cwd
		line["timestamp"] = s.t.UTC().Format(time.RFC3339Nano)
		parent = uuid
		enc, err := json.Marshal(line)
		if err != nil {
			return "", fmt.Errorf("claude transcript: %w", err)
		}
		b.Write(enc)
		b.WriteByte('\n')
	}
	dst := ClaudeTranscriptPath(src)
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return "", fmt.Errorf("claude transcript: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(dst), ".tmp-*")
	if err != nil {
		return "", fmt.Errorf("claude transcript: %w", err)
	}
	_, werr := tmp.Write(b.Bytes())
	cerr := tmp.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), dst)
	}
	if werr != nil {
		os.Remove(tmp.Name())
		return "", fmt.Errorf("claude transcript %s: %w", dst, werr)
	}
	return dst, nil
}

// claudeTranscript points a claude-dialect hook's session at a fresh
// Claude-format copy of the transcript. A copy that cannot be written
// leaves transcript_path empty (with a warning): ollm's own file is
// neither Claude's shape nor readable in the sandbox.
func (e *Engine) claudeTranscript(h *Hook, s Session) Session {
	if h.Dialect() != DialectClaude || s.Transcript == "" {
		return s
	}
	dst, err := writeClaudeTranscript(s.Transcript, s.ID, s.Cwd)
	if err != nil {
		e.opts.Logger.Warn("hook's transcript_path left empty", "hook", h.QualifiedName(), "error", err)
		s.Transcript = ""
		return s
	}
	s.Transcript, s.claudeTranscript = dst, dst
	return s
}

func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}
