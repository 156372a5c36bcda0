// Package secrets holds the rules that keep secret values out of what
// ollm prints and logs: which variable and header names look secret
// (LooksSecret), how a secret is cut out of text (Redact) and how the
// password of a URL's userinfo is hidden (RedactURLs). profiles, core/ext
// and core/mcp share it, so a name that is a secret for one of them is a
// secret for all, and core/mcp need not import profiles to know it.
//
// Imports: the standard library only.
package secrets
