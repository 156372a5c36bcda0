package tools

import (
	"context"
	_ "embed"
	"fmt"
	"strconv"
	"strings"

	"github.com/ollm/ollm/core/tool"
	"github.com/ollm/ollm/store"
)

//go:embed write_todos.md
var writeTodosMD string

type todoParams struct {
	Action string `json:"action"`
	Text   string `json:"text"`
	ID     string `json:"id"`
}

// todoFile is the on-disk todo list. NextID only grows, so ids are never
// reused.
type todoFile struct {
	NextID int    `json:"nextId"`
	Todos  []todo `json:"todos"`
}

type todo struct {
	ID   string `json:"id"`
	Text string `json:"text"`
	Done bool   `json:"done"`
}

func newWriteTodos(e *env) tool.Tool {
	return &tool.Func[todoParams]{
		Spec: tool.Spec{ToolName: "write_todos", Desc: writeTodosMD, ToolKind: tool.KindThink, Params: obj([]string{"action"}, map[string]*tool.Schema{
			"action": enum("what to do", "add", "complete", "remove", "list"),
			"text":   str("todo text (add)"),
			"id":     str("todo id (complete, remove)"),
		})},
		New: func(p todoParams) (*tool.Call, error) {
			if err := checkTodoParams(p); err != nil {
				return nil, err
			}
			file := e.cfg.Workspace.Todos()
			desc := strings.TrimSpace(fmt.Sprintf("Todos: %s %s%s", p.Action, p.ID, p.Text))
			return &tool.Call{Desc: desc, Locs: []string{file}, Confirm: &tool.Confirmation{Title: desc},
				Run: func(ctx context.Context, _ func(tool.Chunk)) (tool.Result, error) {
					return todoRun(file, p), nil
				}}, nil
		},
	}
}

func checkTodoParams(p todoParams) error {
	switch {
	case p.Action == "add" && strings.TrimSpace(p.Text) == "":
		return &tool.Error{Kind: tool.ErrInvalidParams, Message: "write_todos: parameter \"text\": required for add"}
	case (p.Action == "complete" || p.Action == "remove") && p.ID == "":
		return &tool.Error{Kind: tool.ErrInvalidParams, Message: fmt.Sprintf("write_todos: parameter \"id\": required for %s", p.Action)}
	}
	return nil
}

func todoRun(file string, p todoParams) tool.Result {
	var list todoFile
	var err error
	if p.Action == "list" {
		_, err = store.ReadJSON(file, &list)
	} else {
		err = store.UpdateJSON(file, store.PermPrivate, func(f *todoFile) error {
			if err := applyTodo(f, p); err != nil {
				return err
			}
			list = *f
			return nil
		})
	}
	if te, ok := err.(*tool.Error); ok {
		return tool.FromError(te, tool.ErrNotFound)
	}
	if err != nil {
		return tool.Fail(tool.ErrExec, "todo file %s: %v", file, err)
	}
	return tool.Result{ForModel: formatTodos(list.Todos), Display: formatTodos(list.Todos), Data: list.Todos}
}

// applyTodo changes the list in memory; a pure function of list and params.
func applyTodo(f *todoFile, p todoParams) error {
	if p.Action == "add" {
		f.NextID++
		f.Todos = append(f.Todos, todo{ID: strconv.Itoa(f.NextID), Text: p.Text})
		return nil
	}
	for i := range f.Todos {
		if f.Todos[i].ID != p.ID {
			continue
		}
		if p.Action == "complete" {
			f.Todos[i].Done = true
		} else {
			f.Todos = append(f.Todos[:i], f.Todos[i+1:]...)
		}
		return nil
	}
	return &tool.Error{Kind: tool.ErrNotFound, Message: fmt.Sprintf("no todo with id %q; list shows the ids", p.ID)}
}

func formatTodos(todos []todo) string {
	if len(todos) == 0 {
		return "No todos."
	}
	var b strings.Builder
	for _, t := range todos {
		mark := " "
		if t.Done {
			mark = "x"
		}
		fmt.Fprintf(&b, "[%s] %s %s\n", mark, t.ID, t.Text)
	}
	return b.String()
}
