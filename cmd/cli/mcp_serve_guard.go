package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// checkOrigin checks an origin given to --allow-origin or
// mcp.serve.allowedOrigins: scheme://host[:port], nothing more.
func checkOrigin(origin string) error {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
		(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return fmt.Errorf("origin %q: want scheme://host[:port], e.g. https://app.example.com", origin)
	}
	return nil
}

// normalOrigin is an origin as compared: scheme and host in lower case,
// no trailing slash.
func normalOrigin(origin string) string { return strings.ToLower(strings.TrimSuffix(origin, "/")) }

// loopbackOrigin reports whether a browser origin is a page on this
// machine (http or https on localhost, 127.0.0.0/8 or ::1).
func loopbackOrigin(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	host := u.Hostname()
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// checkOrigins refuses with 403 a request whose Origin header names a
// page elsewhere than on this machine and not in allowed (MCP's defence
// against DNS rebinding and hostile pages), whatever token it carries.
// Requests without Origin (not from a browser) pass.
func checkOrigins(allowed []string, next http.Handler) http.Handler {
	allow := make([]string, 0, len(allowed))
	for _, a := range allowed {
		allow = append(allow, normalOrigin(a))
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		if origin != "" && !loopbackOrigin(origin) && !slices.Contains(allow, normalOrigin(origin)) {
			http.Error(w, fmt.Sprintf("403 forbidden: origin %q may not call ollm mcp serve; start it with --allow-origin %s (or add it to mcp.serve.allowedOrigins) if that page is yours", origin, origin), http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// maxPeek is the most of a request body requireSession reads to see its
// method.
const maxPeek = 8 << 20

// requireSession answers 400 to a request without an Mcp-Session-Id
// header other than initialize (MCP streamable HTTP); one with an
// unknown or ended (DELETE) session gets mcp-go's 404. Requests of
// protocol 2026-07-28, which has no sessions, pass.
func requireSession(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get(server.HeaderKeySessionID) != "" || mcp.IsModernProtocol(r.Header.Get(mcp.HeaderProtocolVersion)) {
			next.ServeHTTP(w, r)
			return
		}
		if r.Method == http.MethodPost {
			body, err := io.ReadAll(io.LimitReader(r.Body, maxPeek))
			if err != nil {
				http.Error(w, "400 bad request: "+err.Error(), http.StatusBadRequest)
				return
			}
			r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), r.Body))
			var m struct {
				Method string `json:"method"`
			}
			if json.Unmarshal(body, &m) != nil || m.Method == string(mcp.MethodInitialize) || m.Method == string(mcp.MethodServerDiscover) {
				next.ServeHTTP(w, r) // mcp-go answers what it cannot parse
				return
			}
		}
		http.Error(w, "400 bad request: no "+server.HeaderKeySessionID+" header; send initialize first and then the session id it returned with every request", http.StatusBadRequest)
	})
}

// readTokenFile reads --token-file, first making it readable by its
// owner only (0600) when others could read it; a file that does not exist
// gets a new random token, written 0600.
func readTokenFile(file string) ([]byte, error) {
	f, err := os.OpenFile(file, os.O_RDONLY, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return writeTokenFile(file)
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", file)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		if err := f.Chmod(0o600); err != nil {
			return nil, fmt.Errorf("%s can be read by others (mode %04o) and could not be made 0600: %w; run chmod 600 %s", file, fi.Mode().Perm(), err, file)
		}
	}
	return io.ReadAll(io.LimitReader(f, 64<<10))
}

// writeTokenFile writes a new token to file, which must not exist yet.
func writeTokenFile(file string) ([]byte, error) {
	token, _, err := serveToken("", func(string) string { return "" })
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, err
	}
	if _, err := f.WriteString(token + "\n"); err != nil {
		f.Close()
		return nil, err
	}
	return []byte(token), f.Close()
}
