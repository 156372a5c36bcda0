// Package ext is the extension manager. It is built from a resolved
// profile (profiles does discovery and manifest validation) and does the
// work of enabling and disabling each extension:
//
//   - hooks are registered in the hook registry, with the extension root
//     as working directory and the extension's settings in the environment;
//   - MCP servers are started through the Servers interface (MCPServers
//     runs one core/mcp Manager per extension) and their tools join the
//     tool registry, leaving it when a server stops or crashes;
//   - skills from the manifest and the extension's skills/ folder join the
//     skills registry.
//
// Whether an extension is wanted is decided by Wanted: extensions.enabled,
// then extensions.enable.<name> in the profile, then --ext, then the state
// the user chose (persisted in $OLLM_HOME/state/extensions.json, never in a
// manifest), then extensions.autoEnable. Settings come from the profile,
// else the envVar, else the default, and are validated against their
// definition; a missing required or invalid setting keeps that extension
// off with an error naming it and what to set. Sensitive values are
// redacted from every error, event and log line the manager produces.
//
// One extension's failure never stops another: Start and Reload carry on
// and return every error in Stats, and each error names its extension.
//
// Imports: the standard library, schema, store, core/hooks, core/mcp,
// core/skills and core/tool. Never cmd or the TUI.
package ext
