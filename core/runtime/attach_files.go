package runtime

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/ollm/ollm/core/policy"
	"github.com/ollm/ollm/core/tool"
	"github.com/ollm/ollm/internal/lazyre"
	"github.com/ollm/ollm/tools"
)

// A prompt that mentions a workspace file as @path (the TUI completes
// them) gets the file's contents attached after it, as an MCP resource's
// are. Only files inside the workspace are read (a path that climbs out,
// an absolute path elsewhere or a symlink that leads out is refused, with
// the reason), never one the policy forbids read_file to read, never a
// binary file; a file over MaxAttachBytes is cut with a note. A mention
// of something that does not exist is left as it is: "@" is also just
// text.

// MaxAttachBytes is the most of one file a prompt carries.
const MaxAttachBytes = 32 << 10

// fileMentionRE finds @path at the start of the prompt or after a space
// or an opening bracket; path runs to the next space.
var fileMentionRE = lazyre.New(`(?:^|[\s(\[{])@([^\s@]+)`)

// FileNote says what became of one @path: attached (and whether it was
// cut), or why not.
type FileNote struct {
	Path  string
	Bytes int   // attached
	Size  int64 // the file's size, when cut
	Err   error // not attached
}

func (n FileNote) String() string {
	switch {
	case n.Err != nil:
		return fmt.Sprintf("@%s not attached: %v", n.Path, n.Err)
	case n.Size > 0:
		return fmt.Sprintf("attached @%s: its first %d bytes of %d (cut; ask the model to read the rest)", n.Path, n.Bytes, n.Size)
	}
	return fmt.Sprintf("attached @%s (%d bytes)", n.Path, n.Bytes)
}

// FileMentions lists the @path mentions of prompt that are not MCP
// resources (@server:uri), each once, in order, without sentence
// punctuation after them.
func FileMentions(prompt string) []string {
	var out []string
	seen := map[string]bool{}
	for _, sm := range fileMentionRE.FindAllStringSubmatch(prompt, -1) {
		p := strings.TrimRight(sm[1], ".,;:!?)]}'\"`")
		if p == "" || strings.Contains(p, ":") || seen[p] {
			continue
		}
		seen[p] = true
		out = append(out, p)
	}
	return out
}

// AttachFiles attaches the workspace files prompt mentions as @path.
func (rt *Runtime) AttachFiles(prompt string) (string, []FileNote) {
	return AttachFiles(rt.Workspace.Root, rt.Policy(), prompt)
}

// AttachFiles returns prompt with the contents of the files under root
// it mentions appended, and one note per file: attached, or why not. pol
// nil allows every read.
func AttachFiles(root string, pol *policy.Policy, prompt string) (string, []FileNote) {
	ms := FileMentions(prompt)
	if len(ms) == 0 || root == "" {
		return prompt, nil
	}
	paths, err := tools.NewPaths(root, nil)
	if err != nil {
		return prompt, nil
	}
	var (
		notes  []FileNote
		blocks []string
	)
	for _, p := range ms {
		text, n, ok := readMentioned(paths, pol, p)
		if !ok {
			continue
		}
		notes = append(notes, n)
		if n.Err == nil {
			blocks = append(blocks, fmt.Sprintf("Content from @%s:\n%s", p, text))
		}
	}
	if len(blocks) == 0 {
		return prompt, notes
	}
	return prompt + "\n\n--- Content from referenced files ---\n" +
		strings.Join(blocks, "\n\n") + "\n--- End of content ---", notes
}

// readMentioned reads one mentioned file; ok false: nothing by that name
// (no note).
func readMentioned(paths *tools.Paths, pol *policy.Policy, p string) (string, FileNote, bool) {
	n := FileNote{Path: p}
	loc, err := paths.Locate(p)
	if err != nil {
		if te, isTool := err.(*tool.Error); isTool && te.Kind == tool.ErrOutsideRoot {
			n.Err = fmt.Errorf("outside the workspace (%s)", te.Message)
			return "", n, true
		}
		return "", n, false // does not exist: "@" was text
	}
	fi, err := loc.Stat()
	if err != nil {
		return "", n, false
	}
	if fi.IsDir() {
		n.Err = fmt.Errorf("a directory; mention the files in it")
		return "", n, true
	}
	if !fi.Mode().IsRegular() {
		n.Err = fmt.Errorf("not a regular file")
		return "", n, true
	}
	if pol != nil {
		d := pol.Decide(policy.Facts{Name: "read_file", Kind: tool.KindRead}, map[string]any{"path": p})
		if d.Action == policy.Deny {
			n.Err = fmt.Errorf("the policy does not let read_file read it (%s)", d.Reason)
			return "", n, true
		}
	}
	f, err := loc.Open()
	if err != nil {
		n.Err = err
		return "", n, true
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxAttachBytes+1))
	if err != nil {
		n.Err = err
		return "", n, true
	}
	if bytes.IndexByte(data, 0) >= 0 {
		n.Err = fmt.Errorf("a binary file")
		return "", n, true
	}
	if len(data) > MaxAttachBytes {
		data = data[:MaxAttachBytes]
		for i := 0; i < utf8.UTFMax-1 && len(data) > 0; i++ { // not inside a character
			if r, size := utf8.DecodeLastRune(data); r != utf8.RuneError || size > 1 {
				break
			}
			data = data[:len(data)-1]
		}
		n.Size = fi.Size()
	}
	n.Bytes = len(data)
	text := string(data)
	if n.Size > 0 {
		text += fmt.Sprintf("\n[cut: the first %d bytes of %d; read_file reads the rest]", n.Bytes, n.Size)
	}
	return text, n, true
}
