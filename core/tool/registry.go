package tool

import (
	"sort"
	"sync"
)

// Registry holds the tools the model may call, keyed by name. It is safe for
// concurrent use.
type Registry struct {
	mu    sync.RWMutex
	tools map[string]Tool
}

// NewRegistry returns a registry holding tools (later ones replace earlier
// ones of the same name).
func NewRegistry(tools ...Tool) *Registry {
	r := &Registry{tools: map[string]Tool{}}
	for _, t := range tools {
		r.Register(t)
	}
	return r
}

// Register stores t under its name, replacing any tool of that name.
func (r *Registry) Register(t Tool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.tools == nil {
		r.tools = map[string]Tool{}
	}
	r.tools[t.Name()] = t
}

// Unregister removes the tool called name and reports whether it was there.
func (r *Registry) Unregister(name string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.tools[name]
	delete(r.tools, name)
	return ok
}

// Get returns the tool called name, or nil and false.
func (r *Registry) Get(name string) (Tool, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	t, ok := r.tools[name]
	return t, ok
}

// List returns every tool in alphabetical order of name.
func (r *Registry) List() []Tool {
	r.mu.RLock()
	out := make([]Tool, 0, len(r.tools))
	for _, t := range r.tools {
		out = append(out, t)
	}
	r.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out
}

// Definition is a provider-neutral function schema: what a model provider
// needs to offer a tool to the model. Package llm converts it to the wire
// format of each provider.
type Definition struct {
	Name        string  `json:"name"`
	Description string  `json:"description"`
	Parameters  *Schema `json:"parameters"`
}

// Definitions returns the provider schemas of every tool, in List order.
func (r *Registry) Definitions() []Definition {
	tools := r.List()
	out := make([]Definition, len(tools))
	for i, t := range tools {
		out[i] = DefinitionOf(t)
	}
	return out
}

// DefinitionOf is t's provider schema; a nil schema becomes an empty object.
func DefinitionOf(t Tool) Definition {
	s := t.Schema()
	if s == nil {
		s = &Schema{Type: "object", Properties: map[string]*Schema{}}
	}
	return Definition{Name: t.Name(), Description: t.Description(), Parameters: s}
}
