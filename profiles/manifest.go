package profiles

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"cuelang.org/go/cue"
	cuejson "cuelang.org/go/encoding/json"

	"github.com/ollm/ollm/schema"
)

// Manifest file names, in the order they are looked for.
const (
	ManifestFile       = "manifest.json"
	GeminiManifestFile = "gemini-extension.json"
)

// ErrNoManifest is an extension tree without a manifest at its top.
var ErrNoManifest = errors.New("no manifest.json, gemini-extension.json or .claude-plugin/plugin.json at the top of the extension's folder")

// ManifestError is a manifest that does not validate: every diagnostic,
// positioned in File.
type ManifestError struct {
	File  string
	Diags []Diagnostic
}

func (e *ManifestError) Error() string {
	parts := make([]string, 0, len(e.Diags))
	for _, d := range e.Diags {
		if d.Pos == "" || isSchemaFile(d.Pos) {
			d.Pos = e.File
		}
		parts = append(parts, d.String())
	}
	return "invalid manifest: " + strings.Join(parts, "\n  ")
}

// ValidateManifest checks the manifest at the top of the extension tree
// dir as the loader will (schema, paths that stay inside the extension)
// and returns the manifest's file name and contents. Positions name the manifest by its file name alone
// (manifest.json:3:14), as it sits in its source, so that the resolver can
// refuse a fetched tree before it enters the store. A tree without a
// manifest is ErrNoManifest; an invalid one a *ManifestError.
func ValidateManifest(dir string) (string, schema.Manifest, error) {
	for _, f := range []struct{ name, format string }{{ManifestFile, "ollm"}, {GeminiManifestFile, "gemini"}} {
		data, err := os.ReadFile(filepath.Join(dir, f.name))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return f.name, schema.Manifest{}, err
		}
		m, diags, ok := memoizedManifest(f.name, data, f.format)
		if !ok {
			c, err := compilers.get()
			if err != nil {
				return f.name, schema.Manifest{}, err
			}
			m, diags = c.manifest(f.name, data, f.format)
			compilers.put(c)
		}
		if len(diags) > 0 {
			return f.name, m, &ManifestError{File: f.name, Diags: diags}
		}
		return f.name, m, nil
	}
	return validateClaudePlugin(dir)
}

// manifest validates one manifest file through the CUE schema and decodes
// it. The diagnostics name the file and the position of each error.
// What a manifest validated to is remembered for the process
// (manifestMemo).
func (c *compiler) manifest(file string, data []byte, format string) (schema.Manifest, []Diagnostic) {
	if m, diags, ok := memoizedManifest(file, data, format); ok {
		return m, diags
	}
	m, ok, diags := c.validateManifest(file, data, format)
	e := memoEntry{diags: slices.Clone(diags)}
	if ok {
		e.json, _ = json.Marshal(m) // cannot fail: plain data
	}
	if len(data) <= memoMaxBytes {
		manifestMemo.put(memoKey(file, data, format), e)
	}
	return m, diags
}

// validateManifest validates one manifest and decodes it; ok says it
// decoded. A manifest whose only fault is a path leaving its directory
// comes with its diagnostics.
func (c *compiler) validateManifest(file string, data []byte, format string) (m schema.Manifest, ok bool, diags []Diagnostic) {
	expr, err := cuejson.Extract(file, data)
	if err != nil {
		return m, false, diagnostics(err, nil)
	}
	def := "Manifest"
	if format == "gemini" {
		def = "GeminiManifest"
	}
	v := c.def(def).Unify(c.ctx.BuildExpr(expr))
	if err := v.Validate(cue.Concrete(true)); err != nil {
		diags = diagnostics(err, userPosIn(v))
	}
	if format != "gemini" {
		diags = hookEventFields(expr, diags)
	}
	if len(diags) > 0 {
		return m, false, diags
	}
	if m, err = decodeValidated(v, expr, data, format); err != nil {
		return schema.Manifest{}, false, []Diagnostic{{Pos: file, Message: "decode validated manifest: " + err.Error()}}
	}
	return m, true, checkPaths(v, m, filepath.Dir(file))
}

// checkPaths rejects manifest paths that leave the extension directory:
// hook and server commands, path-like arguments, a server's cwd and the
// context file.
func checkPaths(v cue.Value, m schema.Manifest, dir string) []Diagnostic {
	var out []Diagnostic
	bad := func(p string, sel ...cue.Selector) {
		pos := v.LookupPath(cue.MakePath(sel...)).Pos()
		out = append(out, Diagnostic{
			Pos:     pos.String(),
			Path:    cue.MakePath(sel...).String(),
			Message: fmt.Sprintf("%s: path %q escapes the extension directory %s", cue.MakePath(sel...), p, dir),
		})
	}
	hooks := m.Hooks
	for event, list := range hooks {
		for i, h := range list {
			base := []cue.Selector{cue.Str("hooks"), cue.Str(event), cue.Index(i)}
			if escapes(h.Command) {
				bad(h.Command, append(base, cue.Str("command"))...)
			}
			for j, a := range h.Args {
				if escapes(a) {
					bad(a, append(base, cue.Str("args"), cue.Index(j))...)
				}
			}
		}
	}
	for name, s := range m.MCPServers {
		base := []cue.Selector{cue.Str("mcpServers"), cue.Str(name)}
		if escapes(s.Command) {
			bad(s.Command, append(base, cue.Str("command"))...)
		}
		for j, a := range s.Args {
			if escapes(a) {
				bad(a, append(base, cue.Str("args"), cue.Index(j))...)
			}
		}
		if escapes(s.Cwd) {
			bad(s.Cwd, append(base, cue.Str("cwd"))...)
		}
	}
	if escapes(m.ContextFileName) {
		bad(m.ContextFileName, cue.Str("contextFileName"))
	}
	return out
}

// escapes reports a relative path that climbs out of the directory it is
// resolved against. Absolute paths and bare program names are not paths
// into the extension and are left to the trust model.
func escapes(p string) bool {
	if p == "" || filepath.IsAbs(p) || strings.HasPrefix(p, "$") {
		return false
	}
	if !strings.Contains(p, "/") && p != ".." {
		return false
	}
	c := filepath.Clean(p)
	return c == ".." || strings.HasPrefix(c, "../")
}

// geminiManifest is the part of gemini-extension.json ollm understands.
type geminiManifest struct {
	Name            string                  `json:"name"`
	Version         string                  `json:"version"`
	Description     string                  `json:"description"`
	MCPServers      map[string]GeminiServer `json:"mcpServers"`
	ContextFileName any                     `json:"contextFileName"`
	ExcludeTools    []string                `json:"excludeTools"`
	Settings        []struct {
		Name        string `json:"name"`
		Description string `json:"description"`
		EnvVar      string `json:"envVar"`
		Sensitive   bool   `json:"sensitive"`
	} `json:"settings"`
}

// GeminiServer is a server of Gemini CLI's mcpServers (an extension's
// gemini-extension.json, its settings.json); `ollm mcp import` reads the
// same shape.
type GeminiServer struct {
	Command      string            `json:"command"`
	Args         []string          `json:"args"`
	Env          map[string]string `json:"env"`
	Cwd          string            `json:"cwd"`
	URL          string            `json:"url"`
	HTTPURL      string            `json:"httpUrl"`
	Headers      map[string]string `json:"headers"`
	Timeout      int               `json:"timeout"`
	IncludeTools []string          `json:"includeTools"`
	ExcludeTools []string          `json:"excludeTools"`
}

// convert maps a Gemini CLI extension onto an ollm manifest: httpUrl is
// streamable HTTP, url is SSE, command is stdio.
func (g geminiManifest) convert() schema.Manifest {
	m := schema.Manifest{
		Name: g.Name, Version: g.Version, Description: g.Description,
		ExcludeTools: g.ExcludeTools,
	}
	if m.Description == "" {
		m.Description = "Gemini CLI extension " + g.Name
	}
	switch c := g.ContextFileName.(type) {
	case string:
		m.ContextFileName = c
	case []any:
		if len(c) > 0 {
			m.ContextFileName, _ = c[0].(string)
		}
	}
	if len(g.MCPServers) > 0 {
		m.MCPServers = map[string]schema.MCPServer{}
	}
	for name, s := range g.MCPServers {
		ms := schema.MCPServer{
			Command: s.Command, Args: s.Args, Env: s.Env, Cwd: s.Cwd, Headers: s.Headers,
			Timeout: s.Timeout, IncludeTools: s.IncludeTools, ExcludeTools: s.ExcludeTools,
			Transport: "stdio", Enabled: true,
		}
		switch {
		case s.HTTPURL != "":
			ms.Transport, ms.URL = "http", s.HTTPURL
		case s.URL != "":
			ms.Transport, ms.URL = "sse", s.URL
		}
		m.MCPServers[name] = ms
	}
	for _, s := range g.Settings {
		desc := s.Description
		if desc == "" {
			desc = s.Name
		}
		m.Settings = append(m.Settings, schema.Setting{
			Name: s.Name, Description: desc, EnvVar: s.EnvVar, Sensitive: s.Sensitive, Type: "string",
		})
	}
	return m
}
