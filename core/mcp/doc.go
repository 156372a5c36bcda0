// Package mcp is ollm's Model Context Protocol client. It starts the MCP
// servers a resolved profile declares (its own, its extensions' and a
// workspace .mcp.json's) over stdio, SSE or streamable HTTP, all in
// parallel, and exposes their tools as ordinary tool.Tool values so that
// the model and the policy engine see no difference between an MCP tool and
// a built-in one.
//
// A Manager owns every connection. Each server fails in isolation: one that
// cannot start, never answers initialize, exits or crashes is marked failed
// with an error naming it and its command, its tools leave the tool set
// (reported through Options.OnEvent), and stdio servers are restarted with
// backoff. Shutdown closes stdin, waits, then sends SIGTERM and SIGKILL to
// the server's process group, so no process is left behind.
//
// A stdio server's process runs in a kernel sandbox (core/sandbox) when
// Options.Sandbox gives a policy: its own declared sandbox, else its
// extension's permissions, else the profile's sandbox.mcp (SandboxPolicy,
// sandbox.go). When the machine cannot sandbox, it runs unsandboxed with
// a warning in its status, or fails when Options.SandboxRequired.
//
// HTTP servers that require OAuth get the MCP authorization flow (oauth_*.go):
// discovery through protected resource and authorization server metadata,
// dynamic client registration, authorization code with PKCE and a loopback
// callback on 127.0.0.1 (Login), tokens stored 0600 under store.Home.Tokens()
// and refreshed when they expire or the server answers 401 (authTransport).
//
// The decisions are pure functions with table tests: ${VAR} expansion
// (env.go), schema conversion (schema.go), model-facing names (names.go),
// result conversion (result.go), the .mcp.json reader (mcpjson.go) and the
// message size cap (limit.go, limit_http.go). Processes and sockets stay in process.go,
// conn.go and manager.go.
//
// What ollm says about a server (errors, Status.Command, the stderr line it
// quotes) never shows its secrets: the values of secret-looking variables
// in its environment, of its extension's sensitive settings, of its
// headers, and URL passwords (redact.go, rules in internal/secrets). The
// server's log file keeps its raw stderr, 0600 in a 0700 directory.
//
// This is the only package that imports github.com/mark3labs/mcp-go; no
// mcp-go type appears in its API. Imports: the standard library, mcp-go,
// schema, store, internal/secrets, core/sandbox and core/tool. Core never prints: status
// changes are events and server output goes to the server's log file under
// store.Home.Logs().
package mcp
