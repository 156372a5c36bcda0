package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strings"

	"github.com/ollm/ollm/internal/lazyre"
)

// ToolKey identifies an MCP tool: its server and its own name. Its String
// form "server:tool" is the namespaced name users and policy rules write.
type ToolKey struct{ Server, Tool string }

func (k ToolKey) String() string { return k.Server + ":" + k.Tool }

// ParseToolKey splits "server:tool" at the last colon that leaves a
// non-empty tool name (extension servers are "ext:server" themselves).
func ParseToolKey(s string) (ToolKey, bool) {
	i := strings.LastIndexByte(s, ':')
	if i <= 0 || i == len(s)-1 {
		return ToolKey{}, false
	}
	return ToolKey{Server: s[:i], Tool: s[i+1:]}, true
}

// ModelNamePattern is what model providers accept as a tool name.
var ModelNamePattern = lazyre.New(`^[a-zA-Z0-9_-]{1,64}$`)

const maxModelName = 64

// Names is a reversible map between tools and the names the model sees.
type Names struct {
	byKey  map[ToolKey]string
	byName map[string]ToolKey
}

// Name returns the model-facing name of a tool.
func (n Names) Name(k ToolKey) (string, bool) { s, ok := n.byKey[k]; return s, ok }

// Key returns the tool a model-facing name stands for.
func (n Names) Key(name string) (ToolKey, bool) { k, ok := n.byName[name]; return k, ok }

// AssignNames gives every tool a model-facing name matching
// ModelNamePattern. A tool whose name is unique among all servers and not
// reserved (a built-in tool's name) keeps it, cleaned up; tools whose names
// collide are all namespaced as server__tool. Names that are too long, or
// that clash after cleaning, get a short hash of the key. The result does
// not depend on the order of keys.
func AssignNames(keys []ToolKey, reserved func(string) bool) Names {
	if reserved == nil {
		reserved = func(string) bool { return false }
	}
	sorted := append([]ToolKey(nil), keys...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].String() < sorted[j].String() })
	count := map[string]int{}
	for _, k := range sorted {
		count[k.Tool]++
	}
	n := Names{byKey: map[ToolKey]string{}, byName: map[string]ToolKey{}}
	for _, k := range sorted {
		name := sanitizeName(k.Tool)
		if count[k.Tool] > 1 || reserved(name) {
			name = sanitizeName(k.Server) + "__" + sanitizeName(k.Tool)
		}
		if _, taken := n.byName[name]; taken || reserved(name) || len(name) > maxModelName {
			name = hashedName(name, k)
		}
		n.byKey[k] = name
		n.byName[name] = k
	}
	return n
}

// sanitizeName replaces every character a model name may not hold with
// "_"; an empty name becomes "_".
func sanitizeName(s string) string {
	b := []byte(s)
	for i, c := range b {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
		if !ok {
			b[i] = '_'
		}
	}
	if len(b) == 0 {
		return "_"
	}
	return string(b)
}

// hashedName shortens name to fit with an 8-character hash of the key, so
// distinct keys keep distinct names.
func hashedName(name string, k ToolKey) string {
	sum := sha256.Sum256([]byte(k.Server + "\x00" + k.Tool))
	suffix := "_" + hex.EncodeToString(sum[:4])
	if len(name)+len(suffix) > maxModelName {
		name = name[:maxModelName-len(suffix)]
	}
	return name + suffix
}
