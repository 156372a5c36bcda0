// Package tools holds ollm's built-in tools: one file per tool, each with
// its model-facing description embedded from a .md file beside it.
// Builtin(cfg) returns them all, built on the configuration the runtime
// resolved (workspace root, extra directories, the profile's tools section,
// store paths and an HTTP client).
//
// The file tools are confined to the workspace and tools.extraDirs
// (paths.go): a path is checked by name, then opened, created and renamed
// only through an os.Root on the allowed directory that holds it (loc.go),
// so a symlink swapped during the call cannot lead out. The search tools
// share one walker that opens everything below its base without following
// a symlink (openat2 RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS, beneath*.go) and
// honours .gitignore at every level, .git/info/exclude and git's global
// excludes (walk.go, ignore.go). Memory and todos go through
// store.UpdateJSON so several processes can write at once.
//
// Imports: the standard library, core/tool, schema, store,
// github.com/bmatcuk/doublestar/v4, github.com/PuerkitoBio/goquery,
// go-git's gitignore and config parsers and golang.org/x/sys/unix. Never
// cmd, never the TUI; it does not print.
package tools
