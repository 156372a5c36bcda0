package tui

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// historyMax bounds the prompts kept per workspace; the file is rewritten
// with the newest historyMax when it holds twice as many.
const historyMax = 1000

// history is the prompts sent in a workspace, oldest first, kept in a
// file of one JSON string per line (0600, under OLLM_HOME: see
// store.Home.InputHistory). A prompt that starts with a space is not
// kept (as shells do), for text the user does not want written down.
type history struct {
	path  string
	items []string
	pos   int    // the entry shown while walking; len(items) = the draft
	draft string // what was typed before walking started
}

// loadHistory reads path ("" keeps history in memory only). A file that
// cannot be read leaves an empty history and the error to show once.
func loadHistory(path string) (*history, error) {
	h := &history{path: path}
	if path == "" {
		return h, nil
	}
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return h, nil
	}
	if err != nil {
		return h, fmt.Errorf("input history %s: %w", path, err)
	}
	if fi, err := os.Stat(path); err == nil && fi.Mode().Perm()&0o077 != 0 {
		_ = os.Chmod(path, 0o600)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	for sc.Scan() {
		var s string
		if json.Unmarshal(sc.Bytes(), &s) == nil && s != "" {
			h.items = append(h.items, s)
		}
	}
	if len(h.items) > 2*historyMax {
		h.items = h.items[len(h.items)-historyMax:]
		if err := h.rewrite(); err != nil {
			return h, err
		}
	} else if len(h.items) > historyMax {
		h.items = h.items[len(h.items)-historyMax:]
	}
	h.pos = len(h.items)
	return h, nil
}

// add appends a sent prompt (not a repeat of the last one, not one that
// starts with a space) and ends any walk.
func (h *history) add(s string) error {
	h.pos, h.draft = len(h.items), ""
	if strings.TrimSpace(s) == "" || strings.HasPrefix(s, " ") {
		return nil
	}
	if n := len(h.items); n > 0 && h.items[n-1] == s {
		return nil
	}
	h.items = append(h.items, s)
	h.pos = len(h.items)
	if h.path == "" {
		return nil
	}
	line, _ := json.Marshal(s)
	if err := os.MkdirAll(filepath.Dir(h.path), 0o700); err != nil {
		return fmt.Errorf("input history: %w", err)
	}
	f, err := os.OpenFile(h.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("input history: %w", err)
	}
	_, err = f.Write(append(line, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("input history %s: %w", h.path, err)
	}
	return nil
}

// rewrite replaces the file with the items, through a temporary file.
func (h *history) rewrite() error {
	var b bytes.Buffer
	for _, s := range h.items {
		line, _ := json.Marshal(s)
		b.Write(append(line, '\n'))
	}
	tmp := h.path + ".tmp"
	if err := os.WriteFile(tmp, b.Bytes(), 0o600); err != nil {
		return fmt.Errorf("input history: %w", err)
	}
	if err := os.Rename(tmp, h.path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("input history: %w", err)
	}
	return nil
}

// older returns the entry before the one shown (cur is the input now,
// kept as the draft when the walk starts); ok false at the oldest.
func (h *history) older(cur string) (string, bool) {
	if h.pos == 0 {
		return "", false
	}
	if h.pos == len(h.items) {
		h.draft = cur
	}
	h.pos--
	return h.items[h.pos], true
}

// newer returns the entry after the one shown, the draft past the
// newest; ok false when not walking.
func (h *history) newer() (string, bool) {
	if h.pos >= len(h.items) {
		return "", false
	}
	h.pos++
	if h.pos == len(h.items) {
		return h.draft, true
	}
	return h.items[h.pos], true
}

// search returns the index of the newest entry before from that holds q
// (case-insensitively), or -1.
func (h *history) search(q string, from int) int {
	q = strings.ToLower(q)
	for i := min(from, len(h.items)) - 1; i >= 0; i-- {
		if strings.Contains(strings.ToLower(h.items[i]), q) {
			return i
		}
	}
	return -1
}
