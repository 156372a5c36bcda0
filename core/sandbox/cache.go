package sandbox

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// PrivateCache is the directory the build caches of workspace-write
// processes go in: <user cache dir>/ollm-sandbox/<workspace name>-<hash of
// its path>. It is outside $OLLM_HOME (which no sandboxed process may
// read), one per workspace (a hostile repository's build cannot plant a
// compiled package or a module another project's sandboxed build then
// uses), and nothing outside the sandbox reads it: the user's own go, npm
// and cargo keep their own caches, which are read-only inside. "" without
// a home directory.
func PrivateCache(env Env) string {
	base := ""
	if env.Getenv != nil {
		if x := env.Getenv("XDG_CACHE_HOME"); filepath.IsAbs(x) {
			base = filepath.Clean(x)
		}
	}
	if base == "" {
		home := homeDir(env)
		if home == "" {
			return ""
		}
		base = filepath.Join(home, ".cache")
	}
	name := "no-workspace"
	if env.Workspace != "" {
		sum := sha256.Sum256([]byte(filepath.Clean(env.Workspace)))
		name = strings.Map(func(r rune) rune {
			if r == '.' || r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
				return r
			}
			return '_'
		}, filepath.Base(env.Workspace)) + "-" + hex.EncodeToString(sum[:6])
	}
	return filepath.Join(base, "ollm-sandbox", name)
}

// cacheEnv points the build tools at the private cache. Without network,
// Go fetches modules from the user's own module cache (read-only here, a
// file:// proxy) and nowhere else, so a build whose dependencies the user
// already downloaded works offline; with network, it downloads as usual
// into the private cache.
func cacheEnv(cache string, env Env, network bool) []string {
	get := env.Getenv
	if get == nil {
		get = func(string) string { return "" }
	}
	j := func(parts ...string) string { return filepath.Join(append([]string{cache}, parts...)...) }
	out := []string{
		"GOPATH=" + j("go"),
		"GOMODCACHE=" + j("go", "pkg", "mod"),
		"GOCACHE=" + j("go-build"),
		"XDG_CACHE_HOME=" + j("xdg"),
		"npm_config_cache=" + j("npm"),
		"npm_config_store_dir=" + j("pnpm-store"),
		"YARN_CACHE_FOLDER=" + j("yarn"),
		"PIP_CACHE_DIR=" + j("pip"),
		"UV_CACHE_DIR=" + j("uv"),
		"CARGO_HOME=" + j("cargo"),
		"GRADLE_USER_HOME=" + j("gradle"),
		"MAVEN_OPTS=" + strings.TrimSpace(get("MAVEN_OPTS")+" -Dmaven.repo.local="+j("m2", "repository")),
	}
	if !network {
		if mc := userModCache(env); mc != "" {
			out = append(out, "GOPROXY=file://"+filepath.ToSlash(filepath.Join(mc, "cache", "download"))+",off")
		}
	}
	return out
}

// userModCache is where the user's go keeps modules: $GOMODCACHE, else
// the first $GOPATH entry's pkg/mod, else ~/go/pkg/mod (a GOMODCACHE set
// only with go env -w is not seen).
func userModCache(env Env) string {
	get := env.Getenv
	if get == nil {
		get = func(string) string { return "" }
	}
	if m := get("GOMODCACHE"); filepath.IsAbs(m) {
		return filepath.Clean(m)
	}
	if gp := filepath.SplitList(get("GOPATH")); len(gp) > 0 && filepath.IsAbs(gp[0]) {
		return filepath.Join(gp[0], "pkg", "mod")
	}
	if home := homeDir(env); home != "" {
		return filepath.Join(home, "go", "pkg", "mod")
	}
	return ""
}

// prepareCache creates p's private cache (0700: it holds what the
// workspace's builds downloaded).
func prepareCache(p Policy) error {
	if p.Cache == "" {
		return nil
	}
	if err := os.MkdirAll(p.Cache, 0o700); err != nil {
		return fmt.Errorf("sandbox: private build cache: %w (set XDG_CACHE_HOME to a writable directory)", err)
	}
	return nil
}
