package acp

import (
	"bufio"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/ollm/ollm/core/agent"
	"github.com/ollm/ollm/core/llm"
)

// listPage is how many sessions one session/list answer holds.
const listPage = 50

// titleLen caps a session's title (its first prompt).
const titleLen = 80

// listSessions is session/list over the saved transcripts in dir, the
// most recently written first, only those of cwd when it is given.
// The cursor is the offset of the next page.
func listSessions(dir, cwd, cursor string) (sdk.ListSessionsResponse, error) {
	ents, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return sdk.ListSessionsResponse{}, err
	}
	type entry struct {
		info sdk.SessionInfo
		mod  time.Time
	}
	var all []entry
	for _, e := range ents {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".jsonl") {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue
		}
		id := strings.TrimSuffix(e.Name(), ".jsonl")
		scwd, title, ok := transcriptHead(filepath.Join(dir, e.Name()))
		if !ok || (cwd != "" && filepath.Clean(scwd) != filepath.Clean(cwd)) {
			continue
		}
		updated := fi.ModTime().UTC().Format(time.RFC3339)
		info := sdk.SessionInfo{SessionId: sdk.SessionId(id), Cwd: scwd, UpdatedAt: &updated}
		if title != "" {
			info.Title = &title
		}
		all = append(all, entry{info, fi.ModTime()})
	}
	sort.Slice(all, func(i, j int) bool {
		if !all[i].mod.Equal(all[j].mod) {
			return all[i].mod.After(all[j].mod)
		}
		return all[i].info.SessionId > all[j].info.SessionId
	})
	start := 0
	if cursor != "" {
		n, err := strconv.Atoi(cursor)
		if err != nil || n < 0 {
			return sdk.ListSessionsResponse{}, sdk.NewInvalidParams(map[string]any{"error": "cursor " + strconv.Quote(cursor) + " is not one ollm gave"})
		}
		start = min(n, len(all))
	}
	end := min(start+listPage, len(all))
	resp := sdk.ListSessionsResponse{Sessions: []sdk.SessionInfo{}}
	for _, e := range all[start:end] {
		resp.Sessions = append(resp.Sessions, e.info)
	}
	if end < len(all) {
		next := strconv.Itoa(end)
		resp.NextCursor = &next
	}
	return resp, nil
}

// transcriptHead reads a transcript up to its first prompt: the session's
// directory and that prompt's first line as the title. ok is false when
// the file is not a transcript.
func transcriptHead(path string) (cwd, title string, ok bool) {
	f, err := os.Open(path)
	if err != nil {
		return "", "", false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for sc.Scan() {
		var r agent.Record
		if json.Unmarshal(sc.Bytes(), &r) != nil {
			return cwd, "", ok
		}
		switch {
		case r.Type == agent.RecSession:
			cwd, ok = r.Cwd, r.Cwd != ""
		case r.Type == agent.RecMessage && r.Message != nil && r.Message.Role == llm.RoleUser:
			return cwd, titleOf(r.Message.Content), ok
		}
	}
	return cwd, "", ok
}

func titleOf(prompt string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(prompt), "\n")
	if r := []rune(line); len(r) > titleLen {
		line = string(r[:titleLen-1]) + "…"
	}
	return line
}
