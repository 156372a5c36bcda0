package mcp

import (
	"context"
	"encoding/base64"
	"fmt"
	"mime"
	"strings"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"
)

// What a session needs to attach a resource to a prompt (`@server:uri`):
// whether a Manager runs the server, a wait for that one server's first
// connection attempt (a session does not wait for its servers), and the
// resource as text a model can read.

// Has reports whether the Manager runs a server of that name (in any
// state).
func (m *Manager) Has(server string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, ok := m.servers[server]
	return ok
}

// ServerStatus is the status of one server of the Manager.
func (m *Manager) ServerStatus(server string) (Status, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.servers[server]
	if !ok {
		return Status{}, false
	}
	return s.snapshot(), true
}

// WaitServer waits until the server has finished its first connection
// attempt (ready or failed), or ctx ends; the Manager's other servers are
// not waited for.
func (m *Manager) WaitServer(ctx context.Context, server string) error {
	m.mu.Lock()
	s, ok := m.servers[server]
	m.mu.Unlock()
	if !ok {
		return fmt.Errorf("no MCP server %q", server)
	}
	m.need(s)
	select {
	case <-s.settled:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// ResourceText reads one resource of a ready server for a prompt: text
// contents as they are, binary contents of a textual MIME type (text/*,
// JSON, XML, YAML) decoded, other binary contents named with their type
// and size. The whole is cut at the result limit (Options.MaxResultBytes).
func (m *Manager) ResourceText(ctx context.Context, server, uri string) (string, error) {
	c, err := m.readyConn(server)
	if err != nil {
		return "", err
	}
	if c.client.GetServerCapabilities().Resources == nil {
		return "", fmt.Errorf("MCP server %q offers no resources", server)
	}
	ctx, cancel := context.WithTimeout(ctx, m.requestTimeout())
	defer cancel()
	req := mcp.ReadResourceRequest{}
	req.Params.URI = uri
	res, err := c.client.ReadResource(ctx, req)
	if err != nil {
		return "", fmt.Errorf("MCP server %q: reading %s: %w", server, uri, err)
	}
	var parts []string
	for _, rc := range res.Contents {
		parts = append(parts, resourcePart(rc))
	}
	return Truncate(strings.Join(parts, "\n"), m.opts.maxResult()), nil
}

// resourcePart is one part of a resource as text.
func resourcePart(rc mcp.ResourceContents) string {
	var b *mcp.BlobResourceContents
	switch v := rc.(type) {
	case mcp.TextResourceContents:
		return v.Text
	case *mcp.TextResourceContents:
		return v.Text
	case mcp.BlobResourceContents:
		b = &v
	case *mcp.BlobResourceContents:
		b = v
	default:
		return "[resource]"
	}
	if textual(b.MIMEType) {
		if raw, err := base64.StdEncoding.DecodeString(b.Blob); err == nil && utf8.Valid(raw) {
			return string(raw)
		}
	}
	return fmt.Sprintf("[binary contents of %s: %s, %d bytes]", b.URI, mimeOr(b.MIMEType), base64Len(b.Blob))
}

// textual reports whether a MIME type names text a model can read.
func textual(mimeType string) bool {
	t, _, err := mime.ParseMediaType(mimeType)
	if err != nil {
		return false
	}
	if strings.HasPrefix(t, "text/") {
		return true
	}
	for _, s := range []string{"json", "xml", "yaml", "javascript", "toml"} {
		if strings.HasSuffix(t, "/"+s) || strings.HasSuffix(t, "+"+s) || strings.HasSuffix(t, "/x-"+s) {
			return true
		}
	}
	return false
}
