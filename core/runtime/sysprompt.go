package runtime

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/ollm/ollm/core/ext"
)

// maxContextFile bounds each context file read into the system prompt.
const maxContextFile = 64 << 10

// workspaceContextFiles are read from the workspace root, in this order,
// when present: project instructions for agents.
var workspaceContextFiles = []string{"OLLM.md", "AGENTS.md"}

const basePrompt = `You are ollm, a coding agent in a terminal, working in the project at %s.
Use the tools to look before you act: read files and search before you edit,
and check the result of a change (build, tests) when you can. Paths are
relative to the project root. Keep answers short and concrete; show code
changes through the edit tools, not in prose. When a tool call is refused,
say so and suggest what the user can do instead of retrying the same call.`

// systemPrompt is the first message of a session: the base instructions,
// then the workspace's OLLM.md or AGENTS.md, then the context file of every
// active extension (a Gemini CLI extension's contextFileName). Each file
// is capped, and a cut says so.
func systemPrompt(root string, exts []ext.Info) string {
	var b strings.Builder
	fmt.Fprintf(&b, basePrompt, root)
	for _, name := range workspaceContextFiles {
		if text, ok := readContext(filepath.Join(root, name)); ok {
			fmt.Fprintf(&b, "\n\n## Project instructions (%s)\n\n%s", name, text)
		}
	}
	for _, x := range exts {
		if !x.Active || x.Context == "" {
			continue
		}
		if text, ok := readContext(filepath.Join(x.Dir, x.Context)); ok {
			fmt.Fprintf(&b, "\n\n## Context from extension %s (%s)\n\n%s", x.Name, x.Context, text)
		}
	}
	return b.String()
}

func readContext(path string) (string, bool) {
	f, err := os.Open(path)
	if err != nil {
		return "", false
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxContextFile+1))
	if err != nil || len(strings.TrimSpace(string(data))) == 0 {
		return "", false
	}
	text := strings.TrimSpace(string(data))
	if len(data) > maxContextFile {
		text = strings.TrimSpace(string(data[:maxContextFile])) + fmt.Sprintf("\n[%s cut at %d KiB]", filepath.Base(path), maxContextFile>>10)
	}
	return text, true
}
