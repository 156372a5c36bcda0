package sandbox

import (
	"os"
	"path"
	"slices"
	"strings"
)

// BaseEnv names the variables of ollm's environment that every process it
// starts for the model, a hook or an MCP server is given: where things
// are (PATH, HOME, toolchains, trust anchors) and how to talk (locale,
// terminal), never what proves who you are. docs/security.md ("The
// environment") gives the reason for each, and for the ones left out.
// Kept sorted; a test holds the docs table to it.
var BaseEnv = []string{
	"ALL_PROXY", "ANDROID_HOME", "ANDROID_SDK_ROOT",
	"BUN_INSTALL",
	"CARGO_HOME", "CARGO_TARGET_DIR", "CC", "CFLAGS", "CGO_CFLAGS", "CGO_CPPFLAGS", "CGO_CXXFLAGS",
	"CGO_ENABLED", "CGO_LDFLAGS", "CI", "COLORTERM", "CONDA_PREFIX", "COREPACK_HOME", "CPPFLAGS",
	"CURL_CA_BUNDLE", "CXX", "CXXFLAGS",
	"DENO_DIR",
	"GEM_HOME", "GEM_PATH", "GIT_AUTHOR_EMAIL", "GIT_AUTHOR_NAME", "GIT_COMMITTER_EMAIL",
	"GIT_COMMITTER_NAME", "GIT_SSL_CAINFO", "GOBIN", "GOCACHE", "GOENV", "GOEXPERIMENT", "GOFLAGS",
	"GOINSECURE", "GOMODCACHE", "GONOPROXY", "GONOSUMDB", "GOPATH", "GOPRIVATE", "GOPROXY", "GOROOT",
	"GOSUMDB", "GOTOOLCHAIN", "GRADLE_USER_HOME",
	"HOME", "HTTPS_PROXY", "HTTP_PROXY",
	"JAVA_HOME",
	"LANG", "LANGUAGE", "LC_ADDRESS", "LC_ALL", "LC_COLLATE", "LC_CTYPE", "LC_IDENTIFICATION",
	"LC_MEASUREMENT", "LC_MESSAGES", "LC_MONETARY", "LC_NAME", "LC_NUMERIC", "LC_PAPER",
	"LC_TELEPHONE", "LC_TIME", "LDFLAGS", "LOGNAME",
	"M2_HOME", "MAVEN_HOME",
	"NODE_EXTRA_CA_CERTS", "NODE_PATH", "NO_COLOR", "NO_PROXY", "NVM_DIR",
	"OLLM_HOME",
	"PATH", "PKG_CONFIG_PATH", "PNPM_HOME", "PYENV_ROOT", "PYTHONPATH",
	"RBENV_ROOT", "REQUESTS_CA_BUNDLE", "RUSTFLAGS", "RUSTUP_HOME", "RUSTUP_TOOLCHAIN",
	"SDKMAN_DIR", "SHELL", "SSL_CERT_DIR", "SSL_CERT_FILE",
	"TERM", "TMPDIR", "TZ",
	"USER",
	"VIRTUAL_ENV", "VOLTA_HOME",
	"XDG_CACHE_HOME", "XDG_CONFIG_DIRS", "XDG_CONFIG_HOME", "XDG_DATA_DIRS", "XDG_DATA_HOME",
	"XDG_STATE_HOME",
	"all_proxy", "http_proxy", "https_proxy", "no_proxy",
}

// AgentEnv are the variables that reach the user's ssh-agent. They are
// not in BaseEnv: the agent signs with the user's keys for whoever asks.
// Environ never passes them; a policy with SSHAgent gets ollm's own
// values from Wrap and External (agentEnv), after the caller's filtering.
var AgentEnv = []string{"SSH_AUTH_SOCK", "SSH_AGENT_PID"}

// Environ builds the environment of a process ollm starts for the model,
// a hook or an MCP server from parent (ollm's own) by allow-list: the
// variables of BaseEnv, unless the value holds a URL with a password
// (http_proxy=http://user:pw@proxy), and those allow names (exact names or
// path.Match globs such as "GOPRIVATE_*": tools.shell.allowEnv), whatever
// their value. No other variable of parent passes. What a process is given
// on purpose (a hook's or server's env, its extension's settings,
// OLLM_PROJECT_DIR) the caller adds after; so does Wrap what the sandbox
// itself needs. The order of parent is kept; the result is a new slice.
func Environ(parent, allow []string) []string {
	out := make([]string, 0, len(BaseEnv))
	for _, kv := range parent {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			continue
		}
		if allowedName(name, allow) || (inBase(name) && !HasURLPassword(value)) {
			out = append(out, kv)
		}
	}
	return out
}

// ApprovedEnviron is Environ for hooks and MCP servers, code whose
// approval covers the directories it runs from (a change asks again): it
// also sets PYTHONDONTWRITEBYTECODE=1 unless parent or allow passes it,
// so a Python hook or server does not write __pycache__ into those
// directories on its first run and lose its approval (a .pyc is hashed
// like the source: a planted one would run instead of it).
func ApprovedEnviron(parent, allow []string) []string {
	out := Environ(parent, allow)
	if !slices.ContainsFunc(out, func(kv string) bool { return strings.HasPrefix(kv, "PYTHONDONTWRITEBYTECODE=") }) {
		out = append(out, "PYTHONDONTWRITEBYTECODE=1")
	}
	return out
}

// agentEnv adds ollm's own AgentEnv values to env when p grants the
// ssh-agent and env does not set them: Environ keeps them out of every
// process, so the grant is what lets them through.
func agentEnv(env []string, p Policy) []string {
	if !p.SSHAgent {
		return env
	}
	for _, k := range AgentEnv {
		v, ok := os.LookupEnv(k)
		if ok && !slices.ContainsFunc(env, func(kv string) bool { return strings.HasPrefix(kv, k+"=") }) {
			env = append(env, k+"="+v)
		}
	}
	return env
}

func inBase(name string) bool {
	_, found := slices.BinarySearch(BaseEnv, name)
	return found
}

func allowedName(name string, allow []string) bool {
	for _, a := range allow {
		if a == name {
			return true
		}
		if ok, _ := path.Match(a, name); ok {
			return true
		}
	}
	return false
}

// HasURLPassword reports whether value holds a URL with a password in it,
// scheme://user:password@host (a proxy, a module proxy, a list of index
// URLs). "user@host" alone and "host:port/path@x" are not passwords.
func HasURLPassword(value string) bool {
	for rest := value; ; {
		i := strings.Index(rest, "://")
		if i < 0 {
			return false
		}
		rest = rest[i+3:]
		token := rest
		if end := strings.IndexAny(rest, " \t\n,"); end >= 0 {
			token = rest[:end]
		}
		if hasPassword(token) {
			return true
		}
	}
}

// hasPassword looks at what follows "://" up to the next blank or comma.
func hasPassword(token string) bool {
	at := strings.IndexByte(token, '@')
	if at < 0 {
		return false
	}
	user, pw, ok := strings.Cut(token[:at], ":")
	if !ok || pw == "" || strings.ContainsAny(user, "/?#") {
		return false
	}
	port, _, isPath := strings.Cut(pw, "/")
	return !(isPath && port != "" && strings.Trim(port, "0123456789") == "")
}

// Lookup finds a variable's value; ok is false when it is unset.
type Lookup func(name string) (value string, ok bool)

// Expand substitutes ${VAR} and ${VAR:-default} in s: how a hook's or an
// MCP server's declared env takes a value from ollm's environment. A
// variable that is unset (or, with a default, unset or empty) and has no
// default expands to the empty string and is reported in missing, once
// per name. A "$" that does not open a complete ${...} is kept as it is.
func Expand(s string, lookup Lookup) (out string, missing []string) {
	if !strings.Contains(s, "${") {
		return s, nil
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			break
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			b.WriteString(s)
			break
		}
		b.WriteString(s[:i])
		val, unset := expandOne(s[i+2:i+j], lookup)
		b.WriteString(val)
		if unset != "" && !slices.Contains(missing, unset) {
			missing = append(missing, unset)
		}
		s = s[i+j+1:]
	}
	return b.String(), missing
}

// expandOne expands the inside of one ${...}; unset names the variable when
// it was unset and had no default.
func expandOne(expr string, lookup Lookup) (val, unset string) {
	name, def, hasDef := strings.Cut(expr, ":-")
	v, ok := lookup(name)
	switch {
	case hasDef && (!ok || v == ""):
		return def, ""
	case !ok:
		return "", name
	default:
		return v, ""
	}
}
