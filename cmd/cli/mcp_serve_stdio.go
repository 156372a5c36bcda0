package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
)

// stdioWire sits between mcp-go's stdio transport and stdin/stdout: it
// notes the requests read and the ones the client cancels
// (notifications/cancelled), and drops the response of a cancelled one,
// as MCP wants (a cancelled request gets no response; mcp-go would send
// "-32603 context canceled"). It also writes notifications itself, so a
// call's progress goes out before its result.
type stdioWire struct {
	out io.Writer

	wmu sync.Mutex // one message per Write, whole

	mu        sync.Mutex
	inflight  map[string]bool // ids of requests read and not answered
	cancelled map[string]bool // ids of those the client cancelled
}

func newStdioWire(out io.Writer) *stdioWire {
	return &stdioWire{out: out, inflight: map[string]bool{}, cancelled: map[string]bool{}}
}

// wireMessage is what stdioWire reads of a message.
type wireMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		RequestID json.RawMessage `json:"requestId"`
	} `json:"params"`
}

// idKey is a JSON-RPC id as a map key: its compact JSON text.
func idKey(id json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, id) != nil {
		return string(id)
	}
	return b.String()
}

func hasID(id json.RawMessage) bool { return len(id) > 0 && string(id) != "null" }

// reader passes in on, line by line, noting each message first. The
// returned closer ends the copying (when the server stops).
func (w *stdioWire) reader(in io.Reader) (io.Reader, io.Closer) {
	pr, pw := io.Pipe()
	go func() {
		br := bufio.NewReader(in)
		for {
			line, err := br.ReadBytes('\n')
			if len(line) > 0 {
				w.read(line)
				if _, werr := pw.Write(line); werr != nil {
					return
				}
			}
			if err != nil {
				pw.CloseWithError(err)
				return
			}
		}
	}()
	return pr, pr
}

func (w *stdioWire) read(line []byte) {
	var m wireMessage
	if json.Unmarshal(line, &m) != nil || m.Method == "" {
		return // a response to the server's own request, or not ours to judge
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case hasID(m.ID):
		k := idKey(m.ID)
		w.inflight[k] = true
		delete(w.cancelled, k)
	case m.Method == string(mcp.MethodNotificationCancelled) && hasID(m.Params.RequestID):
		if k := idKey(m.Params.RequestID); w.inflight[k] {
			w.cancelled[k] = true
		}
	}
}

// Write writes one message, unless it answers a cancelled request.
func (w *stdioWire) Write(p []byte) (int, error) {
	var m wireMessage
	if json.Unmarshal(p, &m) == nil && m.Method == "" && hasID(m.ID) {
		k := idKey(m.ID)
		w.mu.Lock()
		drop := w.cancelled[k]
		delete(w.cancelled, k)
		delete(w.inflight, k)
		w.mu.Unlock()
		if drop {
			return len(p), nil
		}
	}
	w.wmu.Lock()
	defer w.wmu.Unlock()
	return w.out.Write(p)
}

// notify writes a notification at once (the client has one session).
func (w *stdioWire) notify(_ context.Context, method string, params map[string]any) {
	b, err := json.Marshal(mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION,
		Notification: mcp.Notification{Method: method, Params: mcp.NotificationParams{AdditionalFields: params}}})
	if err != nil {
		return
	}
	_, _ = w.Write(append(b, '\n'))
}
