package agent

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/ollm/ollm/core/llm"
)

// Record kinds of a transcript line.
const (
	RecSession = "session" // first line: id, time, cwd, model
	RecResume  = "resume"  // the session was resumed
	RecMessage = "message" // one message of the conversation
	RecReplace = "replace" // the conversation was compacted: Messages replace everything before
)

// Record is one line of a JSONL transcript.
type Record struct {
	Type     string        `json:"type"`
	Time     time.Time     `json:"time"`
	ID       string        `json:"id,omitempty"`
	Cwd      string        `json:"cwd,omitempty"`
	Model    string        `json:"model,omitempty"`
	Message  *llm.Message  `json:"message,omitempty"`
	Messages []llm.Message `json:"messages,omitempty"`
}

// Transcript appends a session's messages to <dir>/<id>.jsonl, one record a
// line, synced to disk after every line so a crash loses at most the line
// being written.
type Transcript struct {
	mu   sync.Mutex
	f    *os.File
	path string
	now  func() time.Time
}

// NewID names a new session: its start time and four random bytes, so ids
// sort by age.
func NewID(now time.Time) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return now.UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}

// ValidID reports whether id names one file in the sessions directory
// (no separators, not . or ..), so a transcript path made from it cannot
// leave the directory.
func ValidID(id string) bool {
	return id != "" && id != "." && id != ".." && !strings.ContainsAny(id, "/\\\x00")
}

// Path is the transcript file of session id in dir.
func Path(dir, id string) string { return filepath.Join(dir, id+".jsonl") }

// Create starts the transcript of a new session.
func Create(dir, id, cwd, model string, now func() time.Time) (*Transcript, error) {
	if now == nil {
		now = time.Now
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	p := Path(dir, id)
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("session transcript: %w", err)
	}
	t := &Transcript{f: f, path: p, now: now}
	if err := t.write(Record{Type: RecSession, ID: id, Cwd: cwd, Model: model}); err != nil {
		f.Close()
		return nil, err
	}
	return t, nil
}

// Resume opens the transcript of session id (the latest session when id is
// empty) for appending and returns the conversation it holds.
func Resume(dir, id string, now func() time.Time) (*Transcript, string, []llm.Message, error) {
	if now == nil {
		now = time.Now
	}
	if id == "" {
		var err error
		if id, err = Latest(dir); err != nil {
			return nil, "", nil, err
		}
	}
	if !ValidID(id) {
		return nil, "", nil, fmt.Errorf("%q is not a session id (a session id is one name such as 20260101-120000-1a2b3c4d, the name of a file in %s without .jsonl)", id, dir)
	}
	msgs, err := Load(Path(dir, id))
	if err != nil {
		return nil, "", nil, err
	}
	f, err := os.OpenFile(Path(dir, id), os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, "", nil, err
	}
	t := &Transcript{f: f, path: Path(dir, id), now: now}
	if err := t.write(Record{Type: RecResume, ID: id}); err != nil {
		f.Close()
		return nil, "", nil, err
	}
	return t, id, msgs, nil
}

// ErrNoSessions is returned by Latest when there is nothing to resume.
var ErrNoSessions = errors.New("no saved sessions to resume")

// Latest returns the id of the most recently written session in dir.
func Latest(dir string) (string, error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return "", ErrNoSessions
	}
	if err != nil {
		return "", err
	}
	best, bestT := "", time.Time{}
	for _, e := range ents {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".jsonl") {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		id := strings.TrimSuffix(e.Name(), ".jsonl")
		if t := info.ModTime(); best == "" || t.After(bestT) || (t.Equal(bestT) && id > best) {
			best, bestT = id, t
		}
	}
	if best == "" {
		return "", ErrNoSessions
	}
	return best, nil
}

// Load rebuilds the conversation of a transcript file. A last line cut
// short by a crash is ignored; any other bad line is an error naming it.
func Load(path string) ([]llm.Message, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("no session transcript at %s", path)
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var msgs []llm.Message
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	line := 0
	var bad error
	for sc.Scan() {
		line++
		if bad != nil {
			return nil, bad // a bad line that was not the last
		}
		var r Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			bad = fmt.Errorf("%s:%d: %v", path, line, err)
			continue
		}
		switch r.Type {
		case RecMessage:
			if r.Message != nil {
				msgs = append(msgs, *r.Message)
			}
		case RecReplace:
			msgs = append([]llm.Message(nil), r.Messages...)
		}
	}
	return msgs, sc.Err()
}

// Path is the file the transcript is written to.
func (t *Transcript) Path() string { return t.path }

// Append writes one record per message.
func (t *Transcript) Append(msgs ...llm.Message) error {
	for i := range msgs {
		if err := t.write(Record{Type: RecMessage, Message: &msgs[i]}); err != nil {
			return err
		}
	}
	return nil
}

// Replace records a compaction: msgs are the whole conversation from now on.
func (t *Transcript) Replace(msgs []llm.Message) error {
	return t.write(Record{Type: RecReplace, Messages: msgs})
}

func (t *Transcript) write(r Record) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.f == nil {
		return errors.New("session transcript is closed")
	}
	r.Time = t.now().UTC()
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if _, err := t.f.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("session transcript %s: %w", t.path, err)
	}
	return t.f.Sync()
}

// Close closes the file.
func (t *Transcript) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.f == nil {
		return nil
	}
	err := t.f.Close()
	t.f = nil
	return err
}
