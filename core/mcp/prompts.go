package mcp

import (
	"context"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/ollm/ollm/schema"
)

// readyConn returns a ready server's connection.
func (m *Manager) readyConn(server string) (*conn, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.servers[server]
	if !ok {
		return nil, fmt.Errorf("no MCP server %q", server)
	}
	if s.conn == nil {
		return nil, fmt.Errorf("MCP server %q is %s%s", server, s.status.State, colon(s.status.Error))
	}
	return s.conn, nil
}

// readyServers lists the servers that are ready, in name order.
func (m *Manager) readyServers() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var names []string
	for _, n := range m.order {
		if m.servers[n].conn != nil {
			names = append(names, n)
		}
	}
	return names
}

// Skills turns the prompts of every ready server into skills named
// "server:prompt". Each prompt is rendered with its arguments set to
// "{name}", so the skill's template carries the same placeholders; a prompt
// the server will not render that way becomes its description followed by
// the placeholders. Servers that fail are reported and skipped.
func (m *Manager) Skills(ctx context.Context) ([]schema.Skill, []error) {
	var skills []schema.Skill
	var errs []error
	for _, name := range m.readyServers() {
		c, err := m.readyConn(name)
		if err != nil || c.client.GetServerCapabilities().Prompts == nil {
			continue
		}
		res, err := c.client.ListPrompts(ctx, mcp.ListPromptsRequest{})
		if err != nil {
			errs = append(errs, fmt.Errorf("MCP server %q: prompts/list: %w", name, err))
			continue
		}
		for _, p := range res.Prompts {
			skills = append(skills, promptSkill(ctx, c, name, p))
		}
	}
	return skills, errs
}

func promptSkill(ctx context.Context, c *conn, server string, p mcp.Prompt) schema.Skill {
	args := map[string]string{}
	var holders []string
	for _, a := range p.Arguments {
		args[a.Name] = "{" + a.Name + "}"
		holders = append(holders, a.Name+": {"+a.Name+"}")
	}
	sk := schema.Skill{Name: server + ":" + p.Name, Description: p.Description}
	req := mcp.GetPromptRequest{}
	req.Params.Name = p.Name
	req.Params.Arguments = args
	if res, err := c.client.GetPrompt(ctx, req); err == nil {
		sk.Prompt = renderPrompt(res.Messages)
	}
	if sk.Prompt == "" {
		sk.Prompt = strings.TrimSpace(p.Description + "\n" + strings.Join(holders, "\n"))
	}
	return sk
}

// renderPrompt joins a prompt's messages; assistant turns are marked.
func renderPrompt(msgs []mcp.PromptMessage) string {
	var parts []string
	for _, msg := range msgs {
		text, _ := describeContent(msg.Content)
		if msg.Role == mcp.RoleAssistant {
			text = "Assistant: " + text
		}
		parts = append(parts, text)
	}
	return strings.Join(parts, "\n\n")
}

// Resource is one resource, or resource template, a server offers.
type Resource struct {
	Server      string `json:"server"`
	URI         string `json:"uri,omitempty"`
	URITemplate string `json:"uriTemplate,omitempty"` // for a template
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
	Size        int64  `json:"size,omitempty"`
}

// Resources lists a ready server's resources (every page).
func (m *Manager) Resources(ctx context.Context, server string) ([]Resource, error) {
	c, err := m.readyConn(server)
	if err != nil {
		return nil, err
	}
	if c.client.GetServerCapabilities().Resources == nil {
		return nil, nil
	}
	res, err := c.client.ListResources(ctx, mcp.ListResourcesRequest{})
	if err != nil {
		return nil, fmt.Errorf("MCP server %q: resources/list: %w", server, err)
	}
	out := make([]Resource, 0, len(res.Resources))
	for _, r := range res.Resources {
		out = append(out, Resource{Server: server, URI: r.URI, Name: r.Name, Description: r.Description, MIMEType: r.MIMEType})
	}
	return out, nil
}

// ReadResource reads one resource as text; binary contents are described,
// and the whole is cut at the result limit.
func (m *Manager) ReadResource(ctx context.Context, server, uri string) (string, error) {
	c, err := m.readyConn(server)
	if err != nil {
		return "", err
	}
	req := mcp.ReadResourceRequest{}
	req.Params.URI = uri
	res, err := c.client.ReadResource(ctx, req)
	if err != nil {
		return "", fmt.Errorf("MCP server %q: resources/read %s: %w", server, uri, err)
	}
	var parts []string
	for _, rc := range res.Contents {
		parts = append(parts, describeResource(rc))
	}
	return Truncate(strings.Join(parts, "\n"), m.opts.maxResult()), nil
}
