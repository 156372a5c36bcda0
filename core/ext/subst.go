package ext

import (
	"maps"
	"path/filepath"
	"strings"

	"github.com/ollm/ollm/core/sandbox"
	"github.com/ollm/ollm/schema"
)

// Substitute replaces ${extensionPath}, ${workspacePath} and Gemini's ${/}
// (the path separator) in s. Other ${VAR}s are left for the environment
// expansion of hooks and MCP servers.
func Substitute(s, extDir, workspace string) string {
	if !strings.Contains(s, "${") {
		return s
	}
	return strings.NewReplacer(
		"${extensionPath}", extDir,
		"${workspacePath}", workspace,
		"${/}", string(filepath.Separator),
		"${pathSeparator}", string(filepath.Separator),
	).Replace(s)
}

// Prepare returns a copy of ext with the variables substituted in its
// hooks and MCP servers (also ${extensionDataPath}, its .ollm/data/<name>
// in the workspace, the one place under .ollm/ its processes may write),
// and relative server paths (command, cwd) resolved
// against the extension root. The input is not changed.
func Prepare(ext schema.Extension, workspace string) schema.Extension {
	data := sandbox.ExtensionData(workspace, ext.Name)
	sub := func(s string) string {
		if data != "" {
			s = strings.ReplaceAll(s, "${extensionDataPath}", data)
		}
		return Substitute(s, ext.Dir, workspace)
	}
	subList := func(l []string) []string {
		if l == nil {
			return nil
		}
		out := make([]string, len(l))
		for i, s := range l {
			out[i] = sub(s)
		}
		return out
	}
	subMap := func(m map[string]string) map[string]string {
		if m == nil {
			return nil
		}
		out := maps.Clone(m)
		for k, v := range out {
			out[k] = sub(v)
		}
		return out
	}
	m := ext.Manifest
	if m.Hooks != nil {
		hs := make(map[string][]schema.Hook, len(m.Hooks))
		for ev, list := range m.Hooks {
			cp := make([]schema.Hook, len(list))
			for i, h := range list {
				h.Command, h.Args, h.Env = sub(h.Command), subList(h.Args), subMap(h.Env)
				cp[i] = h
			}
			hs[ev] = cp
		}
		m.Hooks = hs
	}
	if m.MCPServers != nil {
		ss := make(map[string]schema.MCPServer, len(m.MCPServers))
		for name, s := range m.MCPServers {
			s.Command, s.Args, s.Env = sub(s.Command), subList(s.Args), subMap(s.Env)
			s.URL, s.Headers, s.Cwd = sub(s.URL), subMap(s.Headers), sub(s.Cwd)
			if isRelPath(s.Command) {
				s.Command = filepath.Join(ext.Dir, s.Command)
			}
			if s.Cwd != "" && !filepath.IsAbs(s.Cwd) {
				s.Cwd = filepath.Join(ext.Dir, s.Cwd)
			}
			ss[name] = s
		}
		m.MCPServers = ss
	}
	if m.Skills != nil {
		m.Skills = append([]schema.Skill(nil), m.Skills...)
	}
	ext.Manifest = m
	return ext
}

// isRelPath reports a command that is a relative path ("./x", "bin/x"),
// not a program looked up on PATH.
func isRelPath(c string) bool {
	return c != "" && !filepath.IsAbs(c) && strings.ContainsRune(c, '/')
}
