package runtime

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ollm/ollm/core/ext"
	"github.com/ollm/ollm/core/skills"
)

// maxContextFile bounds each context file read into the system prompt.
const maxContextFile = 64 << 10

// DefaultContextFiles are the project instruction files read when the
// profile's agent.contextFiles does not name others: ollm's own, then the
// ones Codex and others (AGENTS.md), Gemini CLI (GEMINI.md) and Claude
// Code (CLAUDE.md) read.
// Claude Code also reads CLAUDE.local.md (the user's own, usually
// git-ignored) and .claude/CLAUDE.md in place of CLAUDE.md (claudeAlt).
var DefaultContextFiles = []string{"OLLM.md", "AGENTS.md", "GEMINI.md", "CLAUDE.md", "CLAUDE.local.md"}

// claudeAlt is where Claude Code also looks for a directory's CLAUDE.md.
var claudeAlt = filepath.Join(".claude", "CLAUDE.md")

// contextPaths are the files name stands for in dir: CLAUDE.md is also
// .claude/CLAUDE.md, as Claude Code reads it.
func contextPaths(dir, name string) []string {
	if name == "CLAUDE.md" {
		return []string{filepath.Join(dir, name), filepath.Join(dir, claudeAlt)}
	}
	return []string{filepath.Join(dir, name)}
}

const basePrompt = `You are ollm, a coding agent in a terminal, working in the project at %s.
Use the tools to look before you act: read files and search before you edit,
and check the result of a change (build, tests) when you can. Paths are
relative to the project root. Keep answers short and concrete; show code
changes through the edit tools, not in prose. When a tool call is refused,
say so and suggest what the user can do instead of retrying the same call.`

// promptParts is what the system prompt is built from.
type promptParts struct {
	Root         string
	UserFiles    []string // the user's own context files (userContextFiles), read first
	ContextFiles []string // names looked for; nil: DefaultContextFiles
	Exts         []ext.Info
	Skills       []skills.Entry // the catalog offered to the model
	// Seen receives the texts of the context files read, so the files
	// found later below the workspace (subContext) are not given twice;
	// nil: not kept.
	Seen  contentSet
	Style *skills.OutputStyle // Claude Code's output style; nil: none (output_style.go)
}

// systemPrompt is the first message of a session: the base instructions;
// the user's own context files (~/.gemini/GEMINI.md, ~/.claude/CLAUDE.md);
// the project's context files (each configured name, in the directories
// from the repository's top, the nearest one holding .git, down to the
// workspace root, as Gemini CLI and Claude Code read GEMINI.md and
// CLAUDE.md; one copy of files with the same content; a file linked out
// of the project refused; @file imports expanded inside the project);
// the context file of every active extension (a Gemini CLI extension's
// contextFileName); and the skills the model may load. Each file is
// capped, and a cut says so. The files of subdirectories come later, with
// the tool calls that work there (subContext). notes are problems the
// user should hear of (a missing context file).
func systemPrompt(p promptParts) (prompt string, notes []string) {
	var b strings.Builder
	b.WriteString(basePromptFor(p.Root, p.Style))
	names := p.ContextFiles
	if len(names) == 0 {
		names = DefaultContextFiles
	}
	seen := p.Seen
	if seen == nil {
		seen = contentSet{}
	}
	for _, path := range p.UserFiles {
		text, ok := readContext(path)
		if !ok || !seen.add(text) {
			continue
		}
		text, notes = expandImports(filepath.Dir(path), path, text, notes)
		fmt.Fprintf(&b, "\n\n## Your instructions (%s)\n\n%s", path, text)
	}
	dirs := contextDirs(p.Root)
	for _, dir := range dirs {
		for _, name := range names {
			for _, path := range contextPaths(dir, name) {
				if note := linkedOut(dirs[0], path); note != "" {
					notes = append(notes, note)
					continue
				}
				text, ok := readContext(path)
				if !ok || !seen.add(text) {
					continue
				}
				// @file imports stay inside the project: the repository's
				// top, or the workspace outside a repository.
				text, notes = expandImports(dirs[0], path, text, notes)
				label, _ := filepath.Rel(dir, path)
				if dir != p.Root {
					label = path
				}
				fmt.Fprintf(&b, "\n\n## Project instructions (%s)\n\n%s", label, text)
			}
		}
	}
	for _, x := range p.Exts {
		context := x.Context
		if context == "" && x.Format == "gemini" {
			// Gemini CLI reads an extension's GEMINI.md when its manifest
			// names no contextFileName.
			if _, err := os.Lstat(filepath.Join(x.Dir, "GEMINI.md")); err == nil {
				context = "GEMINI.md"
			}
		}
		if !x.Active || context == "" {
			continue
		}
		path := context
		if !filepath.IsAbs(path) {
			path = filepath.Join(x.Dir, path)
		}
		text, ok := readContext(path)
		if !ok {
			notes = append(notes, fmt.Sprintf("extension %s: context file %s (contextFileName) is missing or empty; the model does not get it", x.Name, path))
			continue
		}
		text, notes = expandImports(x.Dir, path, text, notes)
		fmt.Fprintf(&b, "\n\n## Context from extension %s (%s)\n\n%s", x.Name, filepath.Base(path), text)
	}
	if len(p.Skills) > 0 {
		fmt.Fprintf(&b, "\n\n## Skills\n\nSkills are instructions for particular tasks. When a task matches a skill's description, call %s with its name first and follow what it returns.\n", skills.ToolName)
		for _, s := range p.Skills {
			fmt.Fprintf(&b, "\n- %s: %s", s.Name, oneLine(s.Description))
		}
	}
	writeOutputStyle(&b, p.Style)
	return b.String(), notes
}

// contextDirs lists the directories context files are read from, the
// outermost first: from the nearest ancestor of root holding .git down to
// root; root alone outside a repository.
func contextDirs(root string) []string {
	if root == "" {
		return nil
	}
	dirs := []string{root}
	for d := root; ; {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			break
		}
		parent := filepath.Dir(d)
		if parent == d {
			return []string{root} // no repository: the workspace alone
		}
		d = parent
		dirs = append([]string{d}, dirs...)
	}
	return dirs
}

// userContextFiles are the user-level files Gemini CLI and Claude Code
// read before the project's: ~/.gemini/GEMINI.md when GEMINI.md is a
// context file name, ~/.claude/CLAUDE.md (or $CLAUDE_CONFIG_DIR's) when
// CLAUDE.md is, and ~/.gemini/<name> for each name Gemini CLI's own
// settings add (gemini); getenv and home stand in for the environment.
func userContextFiles(names, gemini []string, home string, getenv func(string) string) []string {
	if len(names) == 0 {
		names = DefaultContextFiles
	}
	var out []string
	for _, n := range names {
		switch {
		case n == "GEMINI.md" && home != "":
			out = append(out, filepath.Join(home, ".gemini", "GEMINI.md"))
		case n == "CLAUDE.md" && getenv("CLAUDE_CONFIG_DIR") != "":
			out = append(out, filepath.Join(getenv("CLAUDE_CONFIG_DIR"), "CLAUDE.md"))
		case n == "CLAUDE.md" && home != "":
			out = append(out, filepath.Join(home, ".claude", "CLAUDE.md"))
		}
	}
	for _, n := range gemini {
		if p := filepath.Join(home, ".gemini", n); home != "" && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// geminiContextNames are the context file names Gemini CLI's settings
// add to names (agent.contextFiles, or the defaults): context.fileName in
// ~/.gemini/settings.json, then in the workspace's .gemini/settings.json
// once the workspace is approved (Markdown names only there). The
// problems name the file and the name left out.
func geminiContextNames(names []string, home, root string, approved bool) (extra, problems []string) {
	if len(names) == 0 {
		names = DefaultContextFiles
	}
	var files []string
	if home != "" {
		files = append(files, filepath.Join(home, ".gemini", "settings.json"))
	}
	if approved && root != "" {
		files = append(files, filepath.Join(root, ".gemini", "settings.json"))
	}
	for i, f := range files {
		got, probs := skills.GeminiContextNames(f, i > 0 || home == "")
		problems = append(problems, probs...)
		for _, n := range got {
			if !slices.Contains(names, n) && !slices.Contains(extra, n) {
				extra = append(extra, n)
			}
		}
	}
	return extra, problems
}

// expandImports expands the @file imports of the context file at path,
// confined to boundary, and adds what went wrong to notes.
func expandImports(boundary, path, text string, notes []string) (string, []string) {
	im := skills.Imports{Boundary: boundary}
	text = im.Expand(path, text)
	return text, append(notes, im.Notes...)
}

// linkedOut says why the project context file at path is refused: it is
// a symbolic link out of the project (top), so a cloned repository cannot
// make ollm send a file of the user's (~/.ssh, ~/.aws) to the model. ""
// when it is inside, or not there.
func linkedOut(top, path string) string {
	// Through any link on the way: .claude/CLAUDE.md with .claude a link
	// out is a plain file at the end.
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return ""
	}
	realTop, err := filepath.EvalSymlinks(top)
	if err != nil || inside(realTop, real) {
		return ""
	}
	return fmt.Sprintf("context file %s refused: it is a symbolic link to %s, outside the project %s; copy the file into the project, or put your own instructions in ~/.gemini/GEMINI.md or ~/.claude/CLAUDE.md", path, real, top)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

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

// systemPrompt builds the session's system prompt from the current
// profile, extensions and skills, and the loader of the context files
// below the workspace that the session's tool calls bring (the same
// names; what the prompt holds is not given again). Problems are passed
// to OnNotice.
func (rt *Runtime) systemPrompt() (string, *subContext) {
	g := rt.Resolved()
	p := promptParts{Root: rt.Workspace.Root, Exts: rt.Ext.List(), Skills: rt.Skills.Catalog(), Seen: contentSet{}}
	if g != nil {
		p.ContextFiles = g.Profile.Agent.ContextFiles
	}
	home, _ := os.UserHomeDir()
	gemini, notes := geminiContextNames(p.ContextFiles, home, rt.Workspace.Root, rt.wsTrusted.Load())
	p.UserFiles = userContextFiles(p.ContextFiles, gemini, home, os.Getenv)
	style, styleNotes := rt.outputStyle(home)
	p.Style, notes = style, append(notes, styleNotes...)
	if len(gemini) > 0 {
		p.ContextFiles = append(slices.Clone(orDefault(p.ContextFiles)), gemini...)
	}
	text, more := systemPrompt(p)
	for _, n := range append(notes, more...) {
		rt.notice(n)
	}
	return text, newSubContext(rt.Workspace.Root, p.ContextFiles, p.Seen, rt.notice)
}

// orDefault is names, or the defaults when none are configured.
func orDefault(names []string) []string {
	if len(names) == 0 {
		return DefaultContextFiles
	}
	return names
}

func (rt *Runtime) notice(s string) {
	if rt.opts.OnNotice != nil {
		rt.opts.OnNotice(s)
	}
}
