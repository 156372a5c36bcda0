package skills

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
)

// maxSettingsFile bounds a Gemini CLI settings.json read for its context
// file names.
const maxSettingsFile = 1 << 20

// GeminiContextNames reads the context file names of a Gemini CLI
// settings.json (~/.gemini/settings.json, <workspace>/.gemini/settings.json):
// `context.fileName`, a string or a list of strings, or the older
// top-level `contextFileName`. Comments are allowed, as Gemini CLI allows
// them. A missing file has no names. Names must be plain file names (no
// directory, not "." or ".."); with mdOnly they must also end in ".md", so
// a file nobody reviewed cannot turn .env or a key file into instructions
// for the model. A name that breaks the rules is left out and named in
// the problems; a file that cannot be read or parsed is one problem.
func GeminiContextNames(path string, mdOnly bool) (names []string, problems []string) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err == nil && len(data) > maxSettingsFile {
		err = fmt.Errorf("larger than %d KiB", maxSettingsFile>>10)
	}
	if err != nil {
		return nil, []string{fmt.Sprintf("%s: not read for context.fileName: %v", path, err)}
	}
	var s struct {
		Context struct {
			FileName json.RawMessage `json:"fileName"`
		} `json:"context"`
		ContextFileName json.RawMessage `json:"contextFileName"` // settings before Gemini CLI 0.3
	}
	if err := json.Unmarshal(stripJSONComments(data), &s); err != nil {
		return nil, []string{fmt.Sprintf("%s: not read for context.fileName: %v; fix the JSON", path, err)}
	}
	raw := s.Context.FileName
	if len(raw) == 0 {
		raw = s.ContextFileName
	}
	list, err := stringOrList(raw)
	if err != nil {
		return nil, []string{fmt.Sprintf("%s: context.fileName: %v", path, err)}
	}
	for _, n := range list {
		if why := badContextName(n, mdOnly); why != "" {
			problems = append(problems, fmt.Sprintf("%s: context.fileName %q left out: %s", path, n, why))
			continue
		}
		names = append(names, n)
	}
	return names, problems
}

func stringOrList(raw json.RawMessage) ([]string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}, nil
	}
	var list []string
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, fmt.Errorf("want a file name or a list of file names")
	}
	return list, nil
}

func badContextName(n string, mdOnly bool) string {
	switch {
	case n == "" || n == "." || n == "..":
		return "not a file name"
	case strings.ContainsAny(n, `/\`):
		return "a plain file name, without a directory, is read in each directory"
	case mdOnly && !strings.HasSuffix(strings.ToLower(n), ".md"):
		return "a workspace's settings may name Markdown (.md) files only; name it in your own ~/.gemini/settings.json or agent.contextFiles instead"
	}
	return ""
}

// stripJSONComments blanks // and /* */ comments outside strings, keeping
// offsets (so JSON errors point where they did).
func stripJSONComments(data []byte) []byte {
	out := append([]byte(nil), data...)
	inStr := false
	for i := 0; i < len(out); i++ {
		c := out[i]
		switch {
		case inStr:
			if c == '\\' {
				i++
			} else if c == '"' {
				inStr = false
			}
		case c == '"':
			inStr = true
		case c == '/' && i+1 < len(out) && out[i+1] == '/':
			for ; i < len(out) && out[i] != '\n'; i++ {
				out[i] = ' '
			}
		case c == '/' && i+1 < len(out) && out[i+1] == '*':
			j := i
			for ; j < len(out) && !(out[j] == '*' && j+1 < len(out) && out[j+1] == '/' && j > i+1); j++ {
				if out[j] != '\n' {
					out[j] = ' '
				}
			}
			if j+1 < len(out) {
				out[j], out[j+1] = ' ', ' '
			}
			i = j + 1
		}
	}
	return out
}

// ReadGeminiSettings reads a Gemini CLI settings.json with its comments
// blanked (offsets kept, so JSON errors point where they did); a missing
// file is (nil, nil). Files larger than 1 MiB are refused.
func ReadGeminiSettings(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err == nil && len(data) > maxSettingsFile {
		err = fmt.Errorf("larger than %d KiB", maxSettingsFile>>10)
	}
	if err != nil {
		return nil, err
	}
	return stripJSONComments(data), nil
}
