package agent

import (
	"encoding/json"
	"errors"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/go-git/go-git/v5"

	"github.com/ollm/ollm/core/llm"
	"github.com/ollm/ollm/core/tool"
	"github.com/ollm/ollm/internal/lazyre"
)

// The fields of seed 003 (the hook protocol) that every event carries or
// that several events share. docs/hooks.md lists them per event.

// sessionData is the event data's session block: {id, user, startTime}.
func (s *Session) sessionData() map[string]any {
	return map[string]any{"id": s.cfg.SessionID, "user": s.user, "startTime": isoTime(s.startTime)}
}

// endData is session_end's session block: the start block plus endTime,
// duration in seconds and messageCount (the user, assistant and tool
// messages of the conversation; system messages are not counted).
func (s *Session) endData() map[string]any {
	end := s.cfg.Now()
	d := s.sessionData()
	d["endTime"] = isoTime(end)
	d["duration"] = end.Sub(s.startTime).Seconds()
	n := 0
	for _, m := range s.Messages() {
		if m.Role != llm.RoleSystem {
			n++
		}
	}
	d["messageCount"] = n
	return d
}

// configData is {model, temperature}; temperature is null when the profile
// sets none (the server's default applies).
func (s *Session) configData() map[string]any {
	var temp any
	if t, ok := s.cfg.Options["temperature"]; ok {
		temp = t
	}
	return map[string]any{"model": s.Model(), "temperature": temp}
}

func isoTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// userName is the login name of the user running ollm.
func userName() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	return os.Getenv("USER")
}

// errorData is on_error's error block: {message, code, stack}. code is the
// error's kind (an llm.ErrorKind, a tool.ErrorKind, "turn_limit") or
// "error"; stack is the chain of wrapped errors, outermost first, one per
// line (a Go stack trace would mean nothing to a hook).
func errorData(err error) map[string]any {
	code := "error"
	var le *llm.Error
	var te *tool.Error
	var tl *TurnLimitError
	switch {
	case errors.As(err, &le):
		code = string(le.Kind)
	case errors.As(err, &te):
		code = string(te.Kind)
	case errors.As(err, &tl):
		code = "turn_limit"
	}
	var chain []string
	for e := err; e != nil; e = errors.Unwrap(e) {
		chain = append(chain, e.Error())
	}
	return map[string]any{"message": err.Error(), "code": code, "stack": strings.Join(chain, "\n")}
}

// existing records which of the paths a call's arguments name exist before
// it runs, so on_file_change can tell created from modified.
func existing(cwd string, args json.RawMessage) map[string]bool {
	var m map[string]any
	if json.Unmarshal(args, &m) != nil {
		return nil
	}
	out := map[string]bool{}
	for _, v := range m {
		p, ok := v.(string)
		if !ok || p == "" || strings.ContainsAny(p, "\n\x00") {
			continue
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(cwd, p)
		}
		_, err := os.Lstat(p)
		out[filepath.Clean(p)] = err == nil
	}
	return out
}

// fileChange is one entry of on_file_change's changes list.
func fileChange(path string, before map[string]bool, now time.Time) map[string]any {
	c := map[string]any{"path": path, "type": "modified", "size": 0, "timestamp": isoTime(now)}
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		c["type"] = "deleted"
	case !before[filepath.Clean(path)]:
		c["type"] = "created"
	}
	if err == nil {
		c["size"] = fi.Size()
		c["timestamp"] = isoTime(fi.ModTime())
	}
	return c
}

// commitAllRE matches a commit command that stages tracked changes itself.
var commitAllRE = lazyre.New(`\bcommit\b[^;&|]*\s(-[a-zA-Z]*a[a-zA-Z]*|--all)\b`)

// commitFiles are the files a commit in dir would record: the staged
// changes, plus the tracked files changed in the work tree when the
// command commits with -a/--all. It reads the repository with go-git, not
// the git binary: git would honour the workspace's .git/config (an
// fsmonitor command, say), and the workspace may not be approved yet.
// Files the same command line stages first with literal `git add`
// arguments (git add x && git commit) are included too (parseGitAdds);
// files staged any other way before the commit (a script, a variable)
// are not known before the command runs and are missing.
func commitFiles(dir, cmd string) []string {
	files := []string{}
	repo, err := git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{DetectDotGit: true})
	if err != nil {
		return files
	}
	wt, err := repo.Worktree()
	if err != nil {
		return files
	}
	st, err := wt.Status()
	if err != nil {
		return files
	}
	all := commitAllRE.MatchString(cmd)
	adds := parseGitAdds(cmd, dir)
	top := wt.Filesystem.Root()
	for path, fs := range st {
		staged := fs.Staging != git.Unmodified && fs.Staging != git.Untracked
		changed := fs.Worktree == git.Modified || fs.Worktree == git.Deleted || fs.Worktree == git.Untracked
		isTracked := fs.Staging != git.Untracked
		tracked := all && isTracked && (fs.Worktree == git.Modified || fs.Worktree == git.Deleted)
		added := !adds.empty() && changed && adds.stages(filepath.Join(top, filepath.FromSlash(path)), isTracked)
		if staged || tracked || added {
			files = append(files, path)
		}
	}
	slices.Sort(files)
	return files
}
