// Command release builds ollm's release archives: one tar.gz per platform
// (linux and darwin on amd64 and arm64) holding the binary, README.md and
// LICENSE when there is one, and a SHA256SUMS file. `make release` runs it.
//
// The archives are byte-identical when it runs twice on the same commit
// with the same Go: the binaries are built with -trimpath and an empty
// build id, and the archives have sorted entries, the commit's date as
// every mtime, no owner, and a gzip header without a time or name
// (`make release-check` builds twice and compares).
//
// Linux binaries are built with cgo and linked statically: the sandbox's
// trampoline is C (core/sandbox/trampoline_linux.c), and without cgo a
// Linux ollm has no sandbox. So linux/arm64 needs a C cross compiler
// (aarch64-linux-gnu-gcc, Debian's gcc-aarch64-linux-gnu and
// libc6-dev-arm64-cross; CC_LINUX_ARM64 names another). darwin has no
// sandbox yet (core/sandbox/launch_other.go) and is built without cgo; it
// loses nothing by it (os/user falls back to $USER, DNS goes through the
// system's resolver either way).
package main
