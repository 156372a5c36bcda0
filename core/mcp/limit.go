package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// DefaultMaxMessageBytes caps one JSON-RPC message from a server. A longer
// message is never held in memory: it is scanned as it streams by and
// replaced with a short one (see oversize).
const DefaultMaxMessageBytes = 8 << 20

// previewBytes is how much of the first text of an oversized result is kept.
const previewBytes = 64 << 10

// lineHooks receives what the line filter drops.
type lineHooks struct {
	stray     func(line []byte)    // output that is not JSON at all
	oversized func(info oversized) // a message over the limit
}

// errMalformed is a line that looks like JSON-RPC but is not valid JSON.
type errMalformed struct{ line []byte }

func (e *errMalformed) Error() string {
	return fmt.Sprintf("malformed JSON-RPC message: %q", head(e.line, 200))
}

func head(b []byte, n int) []byte {
	if len(b) > n {
		return b[:n]
	}
	return b
}

// filterLines copies newline-delimited JSON-RPC messages from r to w.
// Messages up to limit bytes pass unchanged. A longer one is replaced as
// oversized describes, holding at most limit bytes at any time. Lines that
// do not start like JSON are reported as stray output and skipped; a line
// that starts like JSON but does not parse ends the stream with
// *errMalformed, since the connection can no longer be trusted.
func filterLines(r io.Reader, w io.Writer, limit int, hooks lineHooks) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(line)+len(chunk) > limit+1 {
			info, err2 := skipOversized(br, line, chunk, err)
			line = nil
			if werr := emitOversized(w, info, hooks); werr != nil {
				return werr
			}
			if err2 != nil {
				return eofNil(err2)
			}
			continue
		}
		line = append(line, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if werr := passLine(w, line, hooks); werr != nil {
			return werr
		}
		if cap(line) > 1<<20 {
			line = nil // don't keep a big buffer for the next small message
		} else {
			line = line[:0]
		}
		if err != nil {
			return eofNil(err)
		}
	}
}

func eofNil(err error) error {
	if errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

func passLine(w io.Writer, line []byte, hooks lineHooks) error {
	trimmed := bytes.TrimSpace(line)
	if len(trimmed) == 0 {
		return nil
	}
	if trimmed[0] != '{' && trimmed[0] != '[' {
		if hooks.stray != nil {
			hooks.stray(trimmed)
		}
		return nil
	}
	if !json.Valid(trimmed) {
		return &errMalformed{line: append([]byte(nil), trimmed...)}
	}
	_, err := w.Write(append(trimmed, '\n'))
	return err
}

// skipOversized scans the rest of an over-long line without keeping it.
func skipOversized(br *bufio.Reader, line, chunk []byte, err error) (oversized, error) {
	sc := newMsgScanner(previewBytes)
	sc.feed(line)
	sc.feed(chunk)
	for errors.Is(err, bufio.ErrBufferFull) {
		chunk, err = br.ReadSlice('\n')
		sc.feed(chunk)
	}
	return sc.result(), err
}

// oversized is what the scanner learned about a message too long to keep.
type oversized struct {
	Bytes   int64
	ID      json.RawMessage // the response's id, when it has one
	Method  bool            // a request or notification, not a response
	IsError bool            // a JSON-RPC error response
	Preview string          // the start of the first "text" string
	Cut     bool            // Preview is not the whole text
}

// emitOversized replaces an oversized response by a short one with the
// same id: a tool result holding the start of the text, or an error.
// Oversized requests and notifications are dropped.
func emitOversized(w io.Writer, info oversized, hooks lineHooks) error {
	if hooks.oversized != nil {
		hooks.oversized(info)
	}
	msg, ok, err := replacement(info)
	if !ok || err != nil {
		return err
	}
	_, err = w.Write(append(msg, '\n'))
	return err
}

// replacement is the short message that stands for an oversized one; ok is
// false for requests and notifications, which are dropped.
func replacement(info oversized) (msg []byte, ok bool, err error) {
	if info.Method || len(info.ID) == 0 {
		return nil, false, nil
	}
	msg, err = json.Marshal(oversizedResponse(info))
	return msg, err == nil, err
}

func oversizedResponse(info oversized) map[string]any {
	note := fmt.Sprintf("[truncated: the server's response was %d bytes, over the client's limit; only the start of its first text is shown]", info.Bytes)
	resp := map[string]any{"jsonrpc": "2.0", "id": info.ID}
	if info.IsError {
		resp["error"] = map[string]any{"code": -32603, "message": note}
		return resp
	}
	text := note
	if info.Preview != "" {
		text = info.Preview + "\n" + note
	}
	resp["result"] = map[string]any{
		"content": []any{map[string]any{"type": "text", "text": text}},
		"_meta":   map[string]any{"ollm/truncatedBytes": info.Bytes},
	}
	return resp
}

// msgScanner follows the structure of one JSON message byte by byte,
// keeping only its top-level id, whether it has a method or an error, and
// the start of the first "text" string.
type msgScanner struct {
	stack      []byte   // open '{' and '['
	keys       []string // the last key seen in each open container
	inStr, esc bool
	keyMode    bool // the open string is an object key
	expectKey  bool
	key        []byte
	capID      bool // copying the top-level id's value
	prevOn     bool // copying a "text" value
	prevMax    int
	info       oversized
	id, prev   []byte
	prevDone   bool
}

func newMsgScanner(max int) *msgScanner { return &msgScanner{prevMax: max} }

func (s *msgScanner) feed(p []byte) {
	s.info.Bytes += int64(len(p))
	for _, b := range p {
		if s.inStr {
			s.stringByte(b)
			continue
		}
		s.structByte(b)
	}
}

func (s *msgScanner) stringByte(b byte) {
	switch {
	case s.esc:
		s.esc = false
	case b == '\\':
		s.esc = true
	case b == '"':
		s.endString()
		return
	}
	switch {
	case s.keyMode:
		if len(s.key) < 64 {
			s.key = append(s.key, b)
		}
	case s.prevOn:
		if len(s.prev) >= s.prevMax {
			s.prevOn, s.prevDone, s.info.Cut = false, true, true
		} else {
			s.prev = append(s.prev, b)
		}
	}
	if s.capID {
		s.id = append(s.id, b)
	}
}

func (s *msgScanner) endString() {
	s.inStr = false
	switch {
	case s.keyMode:
		s.keyMode = false
		s.keys[len(s.keys)-1] = string(s.key)
	case s.prevOn:
		s.prevOn, s.prevDone = false, true
	}
	if s.capID {
		s.id = append(s.id, '"')
	}
}

func (s *msgScanner) structByte(b byte) {
	depth := len(s.stack)
	switch b {
	case '"':
		s.inStr = true
		if depth > 0 && s.stack[depth-1] == '{' && s.expectKey {
			s.keyMode, s.expectKey, s.key = true, false, s.key[:0]
			return
		}
		if depth > 0 && s.keys[depth-1] == "text" && !s.prevDone {
			s.prevOn = true
		}
		if s.capID {
			s.id = append(s.id, b)
		}
	case '{', '[':
		s.stack = append(s.stack, b)
		s.keys = append(s.keys, "")
		s.expectKey = b == '{'
	case '}', ']':
		if depth == 1 {
			s.capID = false
		}
		if depth > 0 {
			s.stack, s.keys = s.stack[:depth-1], s.keys[:depth-1]
		}
	case ',':
		if depth == 1 {
			s.capID = false
		}
		s.expectKey = depth > 0 && s.stack[depth-1] == '{'
	case ':':
		s.topLevelKey(depth)
	case ' ', '\t', '\r', '\n':
	default:
		if s.capID {
			s.id = append(s.id, b)
		}
	}
}

func (s *msgScanner) topLevelKey(depth int) {
	if depth != 1 {
		return
	}
	switch s.keys[0] {
	case "id":
		s.capID, s.id = true, s.id[:0]
	case "method":
		s.info.Method = true
	case "error":
		s.info.IsError = true
	}
}

func (s *msgScanner) result() oversized {
	info := s.info
	if len(s.id) > 0 && json.Valid(s.id) {
		info.ID = append(json.RawMessage(nil), s.id...)
	}
	info.Preview = decodePrefix(s.prev)
	return info
}

// decodePrefix decodes the start of a JSON string body that may have been
// cut inside an escape sequence.
func decodePrefix(raw []byte) string {
	for trim := 0; trim <= 6 && trim <= len(raw); trim++ {
		var s string
		q := append(append([]byte{'"'}, raw[:len(raw)-trim]...), '"')
		if json.Unmarshal(q, &s) == nil {
			return s
		}
	}
	return ""
}
