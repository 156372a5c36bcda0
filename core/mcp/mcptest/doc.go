// Package mcptest holds the OAuth pieces that tests of MCP clients run
// against, all on loopback: an authorization server (RFC 8414 metadata,
// RFC 7591 registration, authorization code with PKCE, refresh token
// rotation), an MCP server built with mcp-go's server package that requires
// its tokens, and a "browser" that follows the authorization redirect to
// the client's callback; and GetStreamServer, a streamable HTTP server that
// sends elicitation and sampling requests on the standalone GET stream,
// outside any call. Tests of core/mcp and of the CLI use it; nothing
// else may import it. Imports: the standard library, testing and mcp-go.
package mcptest
