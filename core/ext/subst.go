package ext

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/ollm/ollm/core/mcp"
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

// Prepare returns a copy of ext with the variables substituted in every
// string of its manifest (also ${extensionDataPath}, its .ollm/data/<name>
// in the workspace, the one place under .ollm/ its processes may write),
// and relative server paths (command, cwd) resolved against the extension
// root. A Gemini CLI extension's stdio servers run where Gemini CLI runs
// them: in the project (the workspace), a relative cwd taken from there.
// The input is not changed.
func Prepare(ext schema.Extension, workspace string) schema.Extension {
	data := sandbox.ExtensionData(workspace, ext.Name)
	sub := func(s string) string {
		if data != "" {
			s = strings.ReplaceAll(s, "${extensionDataPath}", data)
		}
		return Substitute(s, ext.Dir, workspace)
	}
	// Every string field of the manifest, as Gemini CLI hydrates its
	// whole gemini-extension.json (contextFileName too); name and
	// version are the extension's identity and stay as written.
	m := copyManifest(ext.Manifest)
	name, version := m.Name, m.Version
	substStrings(reflect.ValueOf(&m).Elem(), sub)
	m.Name, m.Version = name, version
	if m.MCPServers != nil {
		for name, s := range m.MCPServers {
			if isRelPath(s.Command) {
				s.Command = filepath.Join(ext.Dir, s.Command)
			}
			switch {
			case s.Cwd != "" && !filepath.IsAbs(s.Cwd) && ext.Format == "gemini" && workspace != "":
				// Gemini CLI starts an extension's server in its own working
				// directory, the project: a relative cwd is the project's.
				s.Cwd = filepath.Join(workspace, s.Cwd)
			case s.Cwd != "" && !filepath.IsAbs(s.Cwd):
				s.Cwd = filepath.Join(ext.Dir, s.Cwd)
			case s.Cwd == "" && ext.Format == "gemini" && s.Transport == "stdio" && workspace != "":
				s.Cwd = workspace
			}
			m.MCPServers[name] = s
		}
	}
	ext.Manifest = m
	return ext
}

// copyManifest is a deep copy, so that substitution leaves the input alone.
func copyManifest(m schema.Manifest) schema.Manifest {
	data, err := json.Marshal(m)
	if err != nil {
		return m
	}
	var out schema.Manifest
	if json.Unmarshal(data, &out) != nil {
		return m
	}
	return out
}

// substStrings applies sub to every string v holds: fields, list
// elements, map values (not keys) and strings inside interfaces.
func substStrings(v reflect.Value, sub func(string) string) {
	switch v.Kind() {
	case reflect.String:
		if v.CanSet() {
			v.SetString(sub(v.String()))
		}
	case reflect.Pointer:
		if !v.IsNil() {
			substStrings(v.Elem(), sub)
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				substStrings(v.Field(i), sub)
			}
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			substStrings(v.Index(i), sub)
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(v.MapIndex(k))
			substStrings(e, sub)
			v.SetMapIndex(k, e)
		}
	case reflect.Interface:
		if v.IsNil() {
			return
		}
		e := reflect.New(v.Elem().Type()).Elem()
		e.Set(v.Elem())
		substStrings(e, sub)
		if v.CanSet() {
			v.Set(e)
		}
	}
}

// isRelPath reports a command that is a relative path ("./x", "bin/x"),
// not a program looked up on PATH.
func isRelPath(c string) bool {
	return c != "" && !filepath.IsAbs(c) && strings.ContainsRune(c, '/')
}

// overrideCwd applies mcp.overrides."<extension>:<server>".cwd: variables
// substituted, a relative path taken in the workspace.
func overrideCwd(spec *mcp.Spec, o schema.MCPOverride, workspace string) {
	if o.Cwd == "" {
		return
	}
	dir := Substitute(o.Cwd, spec.Dir, workspace)
	if !filepath.IsAbs(dir) && workspace != "" {
		dir = filepath.Join(workspace, dir)
	}
	spec.Config.Cwd = dir
}
