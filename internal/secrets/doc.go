// Package secrets holds the rules that keep secret values out of what
// ollm prints and logs: which variable and header names look secret
// (LooksSecret), how a secret is cut out of text (Redact), how the
// credentials of a URL are hidden (RedactURLs: the userinfo password and
// key-like query parameters, SecretParam) and Scrub, the two together:
// the one redaction for every URL, error and log line ollm shows or
// writes. profiles, core/ext
// and core/mcp share it, so a name that is a secret for one of them is a
// secret for all, and core/mcp need not import profiles to know it.
//
// Imports: the standard library only.
package secrets
