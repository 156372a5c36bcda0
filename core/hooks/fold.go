package hooks

import (
	"fmt"
	"maps"
	"strings"
)

// Fold is the state of one event's chain as hooks answer, in order. It is
// a pure value: Apply only reads the verdict and changes the fold.
type Fold struct {
	Data      map[string]any // the event data with every rewrite so far
	Extra     map[string]any // unknown output fields, visible to later hooks
	Messages  []string       // system messages in execution order
	Blocked   bool
	Reason    string
	BlockedBy string
	// Notices name what hooks answered that could not be applied.
	Notices []string

	// Gemini's tool selection: the tools offered when the first gemini
	// hook answered (narrowed by later ollm hooks), the union of the
	// gemini hooks' lists, and whether one said no tools at all.
	unionBase []any
	union     []any
	noTools   bool
}

// NewFold starts a chain on data. The caller's map is never changed.
func NewFold(data map[string]any) *Fold {
	d := maps.Clone(data)
	if d == nil {
		d = map[string]any{}
	}
	return &Fold{Data: d}
}

// Apply folds one hook's verdict in and reports whether the chain stops.
// A failure is ignored unless the hook is fail-closed, in which case it
// blocks; a block stops the chain.
func (f *Fold) Apply(hook string, failClosed bool, v Verdict) (stop bool) {
	if v.Failure != "" {
		if !failClosed {
			return false
		}
		f.block(hook, fmt.Sprintf("hook %s failed closed (%s): %s", hook, v.Failure, v.Detail))
		return true
	}
	if v.SystemMessage != "" {
		f.Messages = append(f.Messages, v.SystemMessage)
	}
	if v.Notice != "" {
		f.Notices = append(f.Notices, "hook "+hook+": "+v.Notice)
	}
	for k, val := range v.Data {
		f.setData(k, val)
	}
	f.selectTools(v)
	if len(v.Extra) > 0 {
		if f.Extra == nil {
			f.Extra = map[string]any{}
		}
		prev, prevWhy := f.Extra["permissionDecision"], f.Extra["permissionDecisionReason"]
		maps.Copy(f.Extra, v.Extra)
		if permissionRank(prev) > permissionRank(v.Extra["permissionDecision"]) {
			// Claude Code: an earlier hook's ask beats a later one's allow
			f.Extra["permissionDecision"], f.Extra["permissionDecisionReason"] = prev, prevWhy
		}
	}
	if v.Block {
		f.block(hook, v.Reason)
		return true
	}
	return false
}

func (f *Fold) block(hook, reason string) {
	f.Blocked, f.Reason, f.BlockedBy = true, reason, hook
}

// selectTools folds a verdict's Gemini tool selection: lists are joined
// (Gemini CLI's union) and filter the tools offered when the first of
// them came; NONE leaves no tools whatever comes after.
func (f *Fold) selectTools(v Verdict) {
	if v.NoTools {
		f.noTools = true
	}
	if len(v.Allowed) > 0 {
		if f.unionBase == nil {
			f.unionBase = anyList(f.Data["available_tools"])
		}
		f.union = append(f.union, v.Allowed...)
		f.Data["available_tools"] = filterTools(f.unionBase, f.union)
	}
	if f.noTools {
		f.Data["available_tools"] = []any{}
	}
}

func anyList(v any) []any {
	switch l := v.(type) {
	case []any:
		return l
	case []string:
		out := make([]any, len(l))
		for i, s := range l {
			out[i] = s
		}
		return out
	}
	return nil
}

// setData replaces one field of the event data. available_tools can only
// shrink: the new list filters the current one and keeps its order.
func (f *Fold) setData(k string, val any) {
	if k == "available_tools" && f.unionBase != nil {
		f.unionBase = filterTools(f.unionBase, val) // an ollm hook narrows what the union may keep
	}
	if k == "available_tools" {
		if cur, ok := f.Data[k].([]any); ok {
			f.Data[k] = filterTools(cur, val)
			return
		}
	}
	f.Data[k] = val
}

// filterTools keeps the entries of cur whose name the hook listed.
func filterTools(cur []any, want any) []any {
	list, _ := want.([]any)
	if s, ok := want.([]string); ok {
		for _, x := range s {
			list = append(list, x)
		}
	}
	keep := map[string]bool{}
	for _, w := range list {
		keep[toolName(w)] = true
	}
	out := []any{}
	for _, c := range cur {
		if keep[toolName(c)] {
			out = append(out, c)
		}
	}
	return out
}

// toolName reads a tool entry: a name, or an object with a name (also
// the {"function": {"name"}} shape of chat APIs).
func toolName(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case map[string]any:
		if n, ok := t["name"].(string); ok {
			return n
		}
		if fn, ok := t["function"].(map[string]any); ok {
			n, _ := fn["name"].(string)
			return n
		}
	}
	return ""
}

// SystemMessage joins the messages in execution order.
func (f *Fold) SystemMessage() string { return strings.Join(f.Messages, "\n\n") }

// permissionRank orders Claude Code's permissionDecision answers of
// PreToolUse hooks (deny blocks before it gets here): ask over allow.
func permissionRank(v any) int {
	switch v {
	case "ask":
		return 2
	case "allow":
		return 1
	}
	return 0
}
