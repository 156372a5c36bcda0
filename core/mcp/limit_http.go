package mcp

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"mime"
	"net/http"
)

// capTransport caps JSON-RPC messages in HTTP response bodies the way the
// line filter caps them on stdio: mcp-go reads an application/json body
// whole and an event stream line by line, so without it a 50 MB result
// would be held (and copied) in memory. Bodies of other types pass as they
// are.
type capTransport struct {
	base  http.RoundTripper
	limit int
	hooks lineHooks
}

func (t *capTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err != nil || resp.Body == nil || resp.Body == http.NoBody {
		return resp, err
	}
	media, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	var filter func(io.Reader, io.Writer) error
	switch media {
	case "text/event-stream":
		filter = func(r io.Reader, w io.Writer) error { return filterSSE(r, w, t.limit, t.hooks) }
	case "application/json":
		filter = func(r io.Reader, w io.Writer) error { return filterJSON(r, w, t.limit, t.hooks) }
	default:
		return resp, nil
	}
	resp.Body = filteredBody(resp.Body, filter)
	resp.ContentLength = -1
	resp.Header.Del("Content-Length")
	return resp, nil
}

// filteredBody runs filter from body into the returned reader. Closing the
// reader closes body, which ends the filter.
func filteredBody(body io.ReadCloser, filter func(io.Reader, io.Writer) error) io.ReadCloser {
	pr, pw := io.Pipe()
	go func() {
		pw.CloseWithError(filter(body, pw))
	}()
	return &pipeBody{PipeReader: pr, body: body}
}

type pipeBody struct {
	*io.PipeReader
	body io.Closer
}

func (b *pipeBody) Close() error {
	err := b.body.Close()
	_ = b.PipeReader.Close()
	return err
}

// filterJSON copies one JSON-RPC message (an application/json body) from r
// to w, replacing it as emitOversized does when it is over limit bytes. It
// holds at most limit+1 bytes.
func filterJSON(r io.Reader, w io.Writer, limit int, hooks lineHooks) error {
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(io.LimitReader(r, int64(limit)+1)); err != nil {
		return err
	}
	if buf.Len() <= limit {
		_, err := w.Write(buf.Bytes())
		return err
	}
	sc := newMsgScanner(previewBytes)
	sc.feed(buf.Bytes())
	buf = bytes.Buffer{}
	chunk := make([]byte, 64<<10)
	for {
		n, err := r.Read(chunk)
		sc.feed(chunk[:n])
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
	}
	return emitOversized(w, sc.result(), hooks)
}

// filterSSE copies a server-sent event stream from r to w. An event whose
// lines stay within limit bytes passes unchanged; a longer one is scanned
// as it streams by and replaced by an event with the same event and id
// fields whose data is the short message emitOversized would write. It
// holds at most about limit bytes at any time.
func filterSSE(r io.Reader, w io.Writer, limit int, hooks lineHooks) error {
	br := bufio.NewReaderSize(r, 64<<10)
	f := &sseFilter{w: w, limit: limit, hooks: hooks, start: true}
	for {
		chunk, err := br.ReadSlice('\n')
		if len(chunk) > 0 {
			if werr := f.chunk(chunk, err == nil); werr != nil {
				return werr
			}
		}
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			if werr := f.dispatch(true); werr != nil {
				return werr
			}
			return eofNil(err)
		}
	}
}

// sseFilter is filterSSE's state: the event being read.
type sseFilter struct {
	w     io.Writer
	limit int
	hooks lineHooks
	start bool   // the next chunk starts a line
	buf   []byte // the event's lines, while within the limit

	// Once the event is over the limit:
	sc        *msgScanner // its data, scanned
	keep      []byte      // its event: and id: lines
	dataLines int         // data lines fed to sc
	lineData  bool        // the line being read is a data line
	lineKeep  bool        // ... is an event: or id: line that fits in keep
}

// chunk takes the next piece of a line; eol says it ends the line.
func (f *sseFilter) chunk(c []byte, eol bool) error {
	if f.start && eol && len(bytes.TrimRight(c, "\r\n")) == 0 {
		return f.dispatch(false) // a blank line ends the event
	}
	if f.sc != nil {
		f.overChunk(c, eol)
		return nil
	}
	f.buf = append(f.buf, c...)
	f.start = eol
	if len(f.buf) > f.limit {
		f.overflow()
	}
	return nil
}

// overflow switches the event to scanning, replaying what was buffered.
func (f *sseFilter) overflow() {
	f.sc = newMsgScanner(previewBytes)
	buf := f.buf
	f.buf, f.start = nil, true
	for len(buf) > 0 {
		i := bytes.IndexByte(buf, '\n')
		if i < 0 {
			f.overChunk(buf, false)
			return
		}
		f.overChunk(buf[:i+1], true)
		buf = buf[i+1:]
	}
}

// overChunk feeds a data line's value to the scanner (data lines joined by
// newlines, as the SSE spec joins them) and keeps short event: and id:
// lines; other lines of an oversized event are dropped.
func (f *sseFilter) overChunk(c []byte, eol bool) {
	if f.start {
		f.lineData = bytes.HasPrefix(c, []byte("data:"))
		f.lineKeep = eol && len(f.keep)+len(c) <= 4096 &&
			(bytes.HasPrefix(c, []byte("event:")) || bytes.HasPrefix(c, []byte("id:")))
		if f.lineData {
			c = bytes.TrimPrefix(c[len("data:"):], []byte(" "))
			if f.dataLines > 0 {
				f.sc.feed([]byte{'\n'})
			}
			f.dataLines++
		}
	}
	f.start = eol
	switch {
	case f.lineData:
		if eol {
			c = bytes.TrimRight(c, "\r\n")
		}
		f.sc.feed(c)
	case f.lineKeep:
		f.keep = append(f.keep, c...)
	}
}

// dispatch writes the event that a blank line (or the end of the stream,
// final) ended, and starts the next.
func (f *sseFilter) dispatch(final bool) error {
	defer f.reset()
	if f.sc == nil {
		if final && len(f.buf) == 0 {
			return nil
		}
		_, err := f.w.Write(append(f.buf, '\n'))
		return err
	}
	info := f.sc.result()
	if f.hooks.oversized != nil {
		f.hooks.oversized(info)
	}
	msg, ok, err := replacement(info)
	if err != nil {
		return err
	}
	out := f.keep
	if ok {
		out = append(append(append(out, "data: "...), msg...), '\n')
	}
	_, err = f.w.Write(append(out, '\n'))
	return err
}

func (f *sseFilter) reset() {
	if cap(f.buf) > 1<<20 {
		f.buf = nil
	} else {
		f.buf = f.buf[:0]
	}
	f.sc, f.keep, f.dataLines, f.start = nil, nil, 0, true
}
