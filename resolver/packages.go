package resolver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ollm/ollm/internal/lazyre"
	"github.com/ollm/ollm/schema"
)

// Package runners whose packages the lock pins.
const (
	RunnerNPX  = "npx"
	RunnerPNPM = "pnpm dlx"
	RunnerUVX  = "uvx"
)

// PackageWant is an MCP server launched through a package runner with a
// package that names no exact version.
type PackageWant struct {
	Server  string // "name", or "ext:name" for an extension's server
	Runner  string
	Package string // as written in the args
}

// launch is where the package sits in a server's args.
type launch struct {
	runner string
	spec   string // the package spec
	index  int    // args[index] holds it
	prefix string // "--package=" when written that way
}

// valueFlags take a value in the next argument.
var valueFlags = map[string]map[string]bool{
	RunnerNPX:  {"-p": true, "--package": true, "-c": true, "--call": true},
	RunnerPNPM: {"--package": true},
	RunnerUVX:  {"--from": true, "--with": true, "--python": true, "-p": true, "--index": true, "--index-url": true, "--extra-index-url": true, "--with-requirements": true},
}

// parseLaunch finds the package a runner command launches.
func parseLaunch(command string, args []string) (launch, bool) {
	var runner string
	start := 0
	switch filepath.Base(command) {
	case "npx":
		runner = RunnerNPX
	case "uvx":
		runner = RunnerUVX
	case "pnpm":
		if len(args) == 0 || args[0] != "dlx" {
			return launch{}, false
		}
		runner, start = RunnerPNPM, 1
	default:
		return launch{}, false
	}
	pkgFlag := "--package"
	if runner == RunnerUVX {
		pkgFlag = "--from"
	}
	for i := start; i < len(args); i++ {
		a := args[i]
		if v, ok := strings.CutPrefix(a, pkgFlag+"="); ok {
			return launch{runner: runner, spec: v, index: i, prefix: pkgFlag + "="}, true
		}
		if (a == pkgFlag || (a == "-p" && runner == RunnerNPX)) && i+1 < len(args) {
			return launch{runner: runner, spec: args[i+1], index: i + 1}, true
		}
		if a == "--" {
			continue
		}
		if strings.HasPrefix(a, "-") {
			if valueFlags[runner][a] {
				i++
			}
			continue
		}
		return launch{runner: runner, spec: a, index: i}, true
	}
	return launch{}, false
}

var exactVersion = lazyre.New(`^v?\d+(\.\d+)*([-+.][0-9A-Za-z.+-]*)?$`)

// splitSpec splits a package spec into name and version ("" when absent).
// ok is false for specs that are not registry packages (URLs, paths).
func splitSpec(runner, spec string) (name, version string, ok bool) {
	if spec == "" || strings.ContainsAny(spec, ":/\\") && !strings.HasPrefix(spec, "@") || strings.HasPrefix(spec, ".") {
		return "", "", false
	}
	if runner == RunnerUVX {
		if n, v, found := strings.Cut(spec, "=="); found {
			return n, v, true
		}
		if strings.ContainsAny(spec, "<>=!~") {
			return spec, "*", true // a range: resolve it
		}
		n, v, _ := strings.Cut(spec, "@")
		return n, v, true
	}
	at := strings.LastIndex(spec, "@")
	if at <= 0 { // no version, or only the scope's @
		return spec, "", true
	}
	if strings.Contains(spec[at:], "/") {
		return "", "", false // github:user/repo#x and the like
	}
	return spec[:at], spec[at+1:], true
}

// unpinned reports whether spec names no exact version.
func unpinned(runner, spec string) (name string, ok bool) {
	n, v, isPkg := splitSpec(runner, spec)
	if !isPkg {
		return "", false
	}
	return n, v == "" || v == "latest" || !exactVersion.MatchString(v)
}

// PackageWants lists the resolved profile's MCP servers that a runner
// launches with an unpinned package: profile servers by name, extension
// servers as "ext:server". Sorted by server.
func PackageWants(r *schema.Resolved) []PackageWant {
	var out []PackageWant
	add := func(server string, s schema.MCPServer) {
		l, ok := parseLaunch(s.Command, s.Args)
		if !ok {
			return
		}
		if _, ok := unpinned(l.runner, l.spec); ok {
			out = append(out, PackageWant{Server: server, Runner: l.runner, Package: l.spec})
		}
	}
	if r != nil {
		for name, s := range r.Profile.MCP.Servers {
			add(name, s)
		}
		for _, x := range r.Extensions {
			for name, s := range x.Manifest.MCPServers {
				add(x.Name+":"+name, s)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Server < out[j].Server })
	return out
}

// PinCommand returns the args the runtime should start the server with:
// the package spec replaced by the version the lock pins. Servers the lock
// does not pin keep their args. args is not modified.
func PinCommand(lock *schema.Lock, server, command string, args []string) []string {
	out := append([]string(nil), args...)
	l, ok := parseLaunch(command, args)
	if !ok || lock == nil {
		return out
	}
	p := findPackage(lock.Packages, server, l.runner, l.spec)
	if p == nil {
		return out
	}
	name, _, _ := splitSpec(l.runner, l.spec)
	pinned := name + "@" + p.Version
	if l.runner == RunnerUVX && (l.prefix != "" || l.index > 0 && args[l.index-1] == "--from") {
		pinned = name + "==" + p.Version
	}
	out[l.index] = l.prefix + pinned
	return out
}

// Versions finds the exact version a package spec resolves to now.
type Versions interface {
	Version(ctx context.Context, runner, spec string) (string, error)
}

// VersionsFunc adapts a function to Versions.
type VersionsFunc func(ctx context.Context, runner, spec string) (string, error)

// Version implements Versions.
func (f VersionsFunc) Version(ctx context.Context, runner, spec string) (string, error) {
	return f(ctx, runner, spec)
}

// Registry resolves versions with the package managers' own tools: `npm
// view` for npx and pnpm dlx packages (or, with NPMDir, `npm ls` in an npm
// project folder that has the packages installed, for offline mirrors),
// and `uv pip compile` for uvx packages.
type Registry struct {
	NPMDir string // resolve npm packages from this installed folder instead
	// Run runs a program and returns its stdout; nil runs it for real.
	Run func(ctx context.Context, dir, stdin, name string, args ...string) ([]byte, error)
}

func (r Registry) run(ctx context.Context, dir, stdin, name string, args ...string) ([]byte, error) {
	if r.Run != nil {
		return r.Run(ctx, dir, stdin, name, args...)
	}
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// Version implements Versions.
func (r Registry) Version(ctx context.Context, runner, spec string) (string, error) {
	name, version, ok := splitSpec(runner, spec)
	if !ok {
		return "", fmt.Errorf("%q is not a registry package", spec)
	}
	switch runner {
	case RunnerUVX:
		return r.uv(ctx, name, version)
	case RunnerNPX, RunnerPNPM:
		if r.NPMDir != "" {
			return r.npmInstalled(ctx, name)
		}
		return r.npmView(ctx, name, version)
	}
	return "", fmt.Errorf("unknown runner %q", runner)
}

func (r Registry) npmView(ctx context.Context, name, version string) (string, error) {
	spec := name
	if version != "" {
		spec += "@" + version
	}
	out, err := r.run(ctx, "", "", "npm", "view", spec, "version", "--json")
	if err != nil {
		return "", err
	}
	var one string
	if json.Unmarshal(out, &one) == nil && one != "" {
		return one, nil
	}
	var many []string // a range matching several versions: the last is the highest
	if json.Unmarshal(out, &many) == nil && len(many) > 0 {
		return many[len(many)-1], nil
	}
	return "", fmt.Errorf("npm view %s: no version in %q", spec, strings.TrimSpace(string(out)))
}

func (r Registry) npmInstalled(ctx context.Context, name string) (string, error) {
	out, err := r.run(ctx, r.NPMDir, "", "npm", "ls", "--json", "--depth=0", name)
	if err != nil && len(out) == 0 {
		return "", err
	}
	var ls struct {
		Dependencies map[string]struct {
			Version string `json:"version"`
		} `json:"dependencies"`
	}
	if err := json.Unmarshal(out, &ls); err != nil {
		return "", fmt.Errorf("npm ls in %s: %v", r.NPMDir, err)
	}
	d, ok := ls.Dependencies[name]
	if !ok || d.Version == "" {
		return "", fmt.Errorf("%s is not installed in %s; run `npm install %s` there", name, r.NPMDir, name)
	}
	return d.Version, nil
}

func (r Registry) uv(ctx context.Context, name, version string) (string, error) {
	req := name
	if version != "" && version != "latest" && version != "*" {
		req = name + "==" + version
	}
	out, err := r.run(ctx, "", req+"\n", "uv", "pip", "compile", "--quiet", "--no-header", "--no-annotate", "-")
	if err != nil {
		return "", err
	}
	norm := func(s string) string { return strings.ToLower(strings.NewReplacer("_", "-", ".", "-").Replace(s)) }
	for _, line := range strings.Split(string(out), "\n") {
		n, v, ok := strings.Cut(strings.TrimSpace(line), "==")
		if ok && norm(n) == norm(name) {
			return strings.TrimSpace(v), nil
		}
	}
	return "", fmt.Errorf("uv pip compile %s: no pin for %s in its output", req, name)
}

// PinServers returns a copy of r in which every MCP server launched through
// a package runner starts the version the lock pins: the profile's servers
// by name, extension servers as "extension:server". r is not modified.
func PinServers(lock *schema.Lock, r *schema.Resolved) *schema.Resolved {
	if lock == nil || len(lock.Packages) == 0 {
		return r
	}
	c := *r
	c.Profile.MCP.Servers = pinMap(lock, "", r.Profile.MCP.Servers)
	c.Extensions = make([]schema.Extension, len(r.Extensions))
	for i, x := range r.Extensions {
		x.Manifest.MCPServers = pinMap(lock, x.Name+":", x.Manifest.MCPServers)
		c.Extensions[i] = x
	}
	return &c
}

func pinMap(lock *schema.Lock, prefix string, servers map[string]schema.MCPServer) map[string]schema.MCPServer {
	if servers == nil {
		return nil
	}
	out := make(map[string]schema.MCPServer, len(servers))
	for name, s := range servers {
		s.Args = PinCommand(lock, prefix+name, s.Command, s.Args)
		out[name] = s
	}
	return out
}
