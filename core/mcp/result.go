package mcp

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/ollm/ollm/core/tool"
)

// DefaultMaxResultBytes caps the text of one tool result the model gets.
const DefaultMaxResultBytes = 256 << 10

// ConvertResult turns an MCP tool result into what the model gets
// (ForModel) and what the user sees (Display). Text passes through; images,
// audio, embedded resources and resource links are described; content whose
// audience is only the user stays out of ForModel and content only for the
// assistant stays out of Display. structuredContent becomes Data, and the
// model text when the result has no text of its own. isError turns the
// result into a tool error carrying the server's message. ForModel is cut
// at maxBytes with a note saying how much was left out.
func ConvertResult(key ToolKey, r *mcp.CallToolResult, maxBytes int) tool.Result {
	var model, display []string
	for _, c := range r.Content {
		text, audience := describeContent(c)
		if audience != mcp.RoleUser {
			model = append(model, text)
		}
		if audience != mcp.RoleAssistant {
			display = append(display, text)
		}
	}
	out := tool.Result{Data: r.StructuredContent}
	if r.StructuredContent != nil && len(model) == 0 {
		if b, err := json.Marshal(r.StructuredContent); err == nil {
			model = append(model, string(b))
			display = append(display, string(b))
		}
	}
	out.ForModel = Truncate(strings.Join(model, "\n"), maxBytes)
	out.Display = Truncate(strings.Join(display, "\n"), maxBytes)
	if r.IsError {
		msg := out.ForModel
		if msg == "" {
			msg = "the tool reported an error without a message"
		}
		out.Error = &tool.Error{Kind: tool.ErrExec, Message: fmt.Sprintf("MCP tool %s: %s", key, msg)}
	}
	return out
}

// describeContent renders one content block as text and says whom it is
// for: "" for both, or the only audience it names.
func describeContent(c mcp.Content) (string, mcp.Role) {
	switch v := c.(type) {
	case mcp.TextContent:
		return v.Text, audience(v.Annotations)
	case *mcp.TextContent:
		return v.Text, audience(v.Annotations)
	case mcp.ImageContent:
		return describeMedia("image", v.MIMEType, v.Data), audience(v.Annotations)
	case *mcp.ImageContent:
		return describeMedia("image", v.MIMEType, v.Data), audience(v.Annotations)
	case mcp.AudioContent:
		return describeMedia("audio", v.MIMEType, v.Data), audience(v.Annotations)
	case *mcp.AudioContent:
		return describeMedia("audio", v.MIMEType, v.Data), audience(v.Annotations)
	case mcp.EmbeddedResource:
		return describeResource(v.Resource), audience(v.Annotations)
	case *mcp.EmbeddedResource:
		return describeResource(v.Resource), audience(v.Annotations)
	case mcp.ResourceLink:
		return describeLink(v), audience(v.Annotations)
	case *mcp.ResourceLink:
		return describeLink(*v), audience(v.Annotations)
	default:
		b, _ := json.Marshal(c)
		return string(b), ""
	}
}

func audience(a *mcp.Annotations) mcp.Role {
	if a == nil || len(a.Audience) != 1 {
		return ""
	}
	return a.Audience[0]
}

// describeMedia names binary content without putting its bytes in front
// of a text model.
func describeMedia(kind, mime, b64 string) string {
	return fmt.Sprintf("[%s: %s, %d bytes]", kind, mime, base64Len(b64))
}

func base64Len(s string) int {
	n := len(s) / 4 * 3
	switch {
	case strings.HasSuffix(s, "=="):
		n -= 2
	case strings.HasSuffix(s, "="):
		n--
	}
	return n
}

func describeResource(rc mcp.ResourceContents) string {
	switch v := rc.(type) {
	case mcp.TextResourceContents:
		return resourceText(v.URI, v.MIMEType, v.Text)
	case *mcp.TextResourceContents:
		return resourceText(v.URI, v.MIMEType, v.Text)
	case mcp.BlobResourceContents:
		return fmt.Sprintf("[resource %s: %s, %d bytes]", v.URI, mimeOr(v.MIMEType), base64Len(v.Blob))
	case *mcp.BlobResourceContents:
		return fmt.Sprintf("[resource %s: %s, %d bytes]", v.URI, mimeOr(v.MIMEType), base64Len(v.Blob))
	default:
		return "[resource]"
	}
}

func resourceText(uri, mime, text string) string {
	return fmt.Sprintf("[resource %s (%s)]\n%s", uri, mimeOr(mime), text)
}

func mimeOr(m string) string {
	if m == "" {
		return "unknown type"
	}
	return m
}

func describeLink(l mcp.ResourceLink) string {
	s := fmt.Sprintf("[resource link %s: %s", l.Name, l.URI)
	if l.MIMEType != "" {
		s += " (" + l.MIMEType + ")"
	}
	if l.Description != "" {
		s += " - " + l.Description
	}
	return s + "]"
}

// Truncate cuts s to at most max bytes on a rune boundary and says how many
// bytes were left out. max <= 0 means no limit.
func Truncate(s string, max int) string {
	if max <= 0 || len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("\n[truncated: %d of %d bytes shown]", cut, len(s))
}
