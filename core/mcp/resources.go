package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// Prompt is one prompt a server offers.
type Prompt struct {
	Server      string           `json:"server"`
	Name        string           `json:"name"`
	Title       string           `json:"title,omitempty"`
	Description string           `json:"description,omitempty"`
	Arguments   []PromptArgument `json:"arguments,omitempty"`
}

// PromptArgument is one argument of a prompt.
type PromptArgument struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

// ResourceContents is what resources/read returns: each part as the
// server sent it, text or base64 blob, whole.
type ResourceContents struct {
	Server   string            `json:"server"`
	URI      string            `json:"uri"`
	Contents []json.RawMessage `json:"contents"`
}

// requestTimeout bounds one listing or read.
func (m *Manager) requestTimeout() time.Duration { return m.opts.callTimeout() }

// servers returns the ready servers to ask: the one named, or all.
func (m *Manager) serversFor(server string) ([]string, error) {
	if server == "" {
		return m.readyServers(), nil
	}
	if _, err := m.readyConn(server); err != nil {
		return nil, err
	}
	return []string{server}, nil
}

// ListResources lists the resources and resource templates of the ready
// servers (or the one named), every page. A server that does not offer
// resources lists none; one that fails is reported and the others listed.
func (m *Manager) ListResources(ctx context.Context, server string) ([]Resource, []error) {
	names, err := m.serversFor(server)
	if err != nil {
		return nil, []error{err}
	}
	var out []Resource
	var errs []error
	for _, name := range names {
		c, err := m.readyConn(name)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if c.client.GetServerCapabilities().Resources == nil {
			continue
		}
		ctx, cancel := context.WithTimeout(ctx, m.requestTimeout())
		res, err := c.client.ListResources(ctx, mcp.ListResourcesRequest{})
		if err != nil {
			cancel()
			errs = append(errs, fmt.Errorf("MCP server %q: resources/list: %w", name, err))
			continue
		}
		for _, r := range res.Resources {
			out = append(out, Resource{Server: name, URI: r.URI, Name: r.Name, Title: r.Title, Description: r.Description, MIMEType: r.MIMEType, Size: sizeOf(r)})
		}
		tpl, err := c.client.ListResourceTemplates(ctx, mcp.ListResourceTemplatesRequest{})
		cancel()
		if err != nil {
			c.log.Debug("resources/templates/list failed", "err", err)
			continue
		}
		for _, t := range tpl.ResourceTemplates {
			r := Resource{Server: name, Name: t.Name, Title: t.Title, Description: t.Description, MIMEType: t.MIMEType}
			if t.URITemplate != nil && t.URITemplate.Template != nil {
				r.URITemplate = t.URITemplate.Raw()
			}
			out = append(out, r)
		}
	}
	return out, errs
}

func sizeOf(r mcp.Resource) int64 {
	b, err := json.Marshal(r)
	if err != nil {
		return 0
	}
	var s struct {
		Size int64 `json:"size"`
	}
	_ = json.Unmarshal(b, &s)
	return s.Size
}

// ReadContents reads one resource of a ready server; its contents come
// back whole (text as text, binary as base64), as the server sent them.
func (m *Manager) ReadContents(ctx context.Context, server, uri string) (*ResourceContents, error) {
	c, err := m.readyConn(server)
	if err != nil {
		return nil, err
	}
	if c.client.GetServerCapabilities().Resources == nil {
		return nil, fmt.Errorf("MCP server %q offers no resources", server)
	}
	ctx, cancel := context.WithTimeout(ctx, m.requestTimeout())
	defer cancel()
	req := mcp.ReadResourceRequest{}
	req.Params.URI = uri
	res, err := c.client.ReadResource(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("MCP server %q: reading %s: %w", server, uri, err)
	}
	out := &ResourceContents{Server: server, URI: uri}
	for _, rc := range res.Contents {
		b, err := json.Marshal(rc)
		if err != nil {
			return nil, err
		}
		out.Contents = append(out.Contents, b)
	}
	return out, nil
}

// ListPrompts lists the prompts of the ready servers (or the one named).
func (m *Manager) ListPrompts(ctx context.Context, server string) ([]Prompt, []error) {
	names, err := m.serversFor(server)
	if err != nil {
		return nil, []error{err}
	}
	var out []Prompt
	var errs []error
	for _, name := range names {
		c, err := m.readyConn(name)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if c.client.GetServerCapabilities().Prompts == nil {
			continue
		}
		ctx, cancel := context.WithTimeout(ctx, m.requestTimeout())
		res, err := c.client.ListPrompts(ctx, mcp.ListPromptsRequest{})
		cancel()
		if err != nil {
			errs = append(errs, fmt.Errorf("MCP server %q: prompts/list: %w", name, err))
			continue
		}
		for _, p := range res.Prompts {
			pr := Prompt{Server: name, Name: p.Name, Title: p.Title, Description: p.Description}
			for _, a := range p.Arguments {
				pr.Arguments = append(pr.Arguments, PromptArgument{Name: a.Name, Description: a.Description, Required: a.Required})
			}
			out = append(out, pr)
		}
	}
	return out, errs
}
