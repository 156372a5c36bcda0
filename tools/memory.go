package tools

import (
	"context"
	_ "embed"
	"fmt"
	"sort"
	"strings"

	"github.com/ollm/ollm/core/tool"
	"github.com/ollm/ollm/store"
)

//go:embed memory.md
var memoryMD string

type memoryParams struct {
	Action string `json:"action"`
	Key    string `json:"key"`
	Value  string `json:"value"`
	Scope  string `json:"scope"`
}

// memoryFile is the on-disk form of one memory scope.
type memoryFile struct {
	Entries map[string]string `json:"entries"`
}

func newMemory(e *env) tool.Tool {
	return &tool.Func[memoryParams]{
		Spec: tool.Spec{ToolName: "memory", Desc: memoryMD, ToolKind: tool.KindThink, Params: obj([]string{"action"}, map[string]*tool.Schema{
			"action": enum("what to do", "set", "get", "delete", "list"),
			"key":    str("entry name (set, get, delete)"),
			"value":  str("text to store (set)"),
			"scope":  enum("workspace (default) or global", "workspace", "global"),
		})},
		New: func(p memoryParams) (*tool.Call, error) {
			if p.Action != "list" && strings.TrimSpace(p.Key) == "" {
				return nil, &tool.Error{Kind: tool.ErrInvalidParams, Message: fmt.Sprintf("memory: parameter \"key\": required for %s", p.Action)}
			}
			file := e.memoryPath(p.Scope)
			desc := fmt.Sprintf("Memory %s %s", p.Action, p.Key)
			return &tool.Call{Desc: strings.TrimSpace(desc), Locs: []string{file}, Confirm: &tool.Confirmation{Title: strings.TrimSpace(desc)},
				Run: func(ctx context.Context, _ func(tool.Chunk)) (tool.Result, error) {
					return memoryRun(file, p), nil
				}}, nil
		},
	}
}

func (e *env) memoryPath(scope string) string {
	if scope == "global" {
		return e.cfg.Home.Memory()
	}
	return e.cfg.Workspace.Memory()
}

func memoryRun(file string, p memoryParams) tool.Result {
	var (
		msg   string
		found = true
	)
	var m memoryFile
	var err error
	switch p.Action {
	case "set", "delete":
		err = store.UpdateJSON(file, store.PermPrivate, func(f *memoryFile) error {
			if f.Entries == nil {
				f.Entries = map[string]string{}
			}
			_, found = f.Entries[p.Key]
			if p.Action == "set" {
				f.Entries[p.Key] = p.Value
			} else {
				delete(f.Entries, p.Key)
			}
			return nil
		})
	default:
		_, err = store.ReadJSON(file, &m)
	}
	if err != nil {
		return tool.Fail(tool.ErrExec, "memory file %s: %v", file, err)
	}
	switch p.Action {
	case "set":
		msg = fmt.Sprintf("Remembered %s.", p.Key)
	case "delete":
		if !found {
			return tool.Fail(tool.ErrNotFound, "no memory entry %q", p.Key)
		}
		msg = fmt.Sprintf("Forgot %s.", p.Key)
	case "get":
		v, ok := m.Entries[p.Key]
		if !ok {
			return tool.Fail(tool.ErrNotFound, "no memory entry %q; list shows the keys", p.Key)
		}
		msg = v
	case "list":
		msg = formatMemory(m.Entries)
	}
	return tool.OK(msg)
}

func formatMemory(entries map[string]string) string {
	if len(entries) == 0 {
		return "No memory entries."
	}
	keys := make([]string, 0, len(entries))
	for k := range entries {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s: %s\n", k, entries[k])
	}
	return b.String()
}
