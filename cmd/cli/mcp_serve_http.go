package cli

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/server"
)

// minTokenLen is the shortest token ollm accepts from a file or the
// environment.
const minTokenLen = 16

// httpServe is `ollm mcp serve --http`: a listener on a loopback address
// and the token every request must carry.
type httpServe struct {
	ln        net.Listener
	token     string
	generated bool
}

// listenHTTP checks the address (loopback only), reads or makes the token
// and listens.
func listenHTTP(addr, tokenFile string, getenv func(string) string) (*httpServe, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, &FlagError{Err: fmt.Errorf("--http %q: want HOST:PORT or :PORT (%v)", addr, err)}
	}
	switch {
	case host == "" || strings.EqualFold(host, "localhost"):
		host = "127.0.0.1"
	default:
		ip := net.ParseIP(host)
		if ip == nil || !ip.IsLoopback() {
			return nil, &FlagError{Err: fmt.Errorf("--http %q: ollm mcp serve listens on a loopback address only (127.0.0.1, ::1 or localhost)", addr)}
		}
	}
	token, generated, err := serveToken(tokenFile, getenv)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, port))
	if err != nil {
		return nil, fmt.Errorf("ollm mcp serve: %w", err)
	}
	return &httpServe{ln: ln, token: token, generated: generated}, nil
}

// serveToken is the token from --token-file, else OLLM_MCP_TOKEN, else a
// new random one (generated reports that).
func serveToken(file string, getenv func(string) string) (token string, generated bool, err error) {
	src := "OLLM_MCP_TOKEN"
	token = getenv("OLLM_MCP_TOKEN")
	if file != "" {
		b, err := readTokenFile(file)
		if err != nil {
			return "", false, &FlagError{Err: fmt.Errorf("--token-file: %w", err)}
		}
		src, token = file, string(b)
	}
	token = strings.TrimSpace(token)
	if token != "" || file != "" {
		if len(token) < minTokenLen {
			return "", false, &FlagError{Err: fmt.Errorf("the token in %s is shorter than %d characters; use a longer random one (openssl rand -hex 32)", src, minTokenLen)}
		}
		return token, false, nil
	}
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", false, err
	}
	return base64.RawURLEncoding.EncodeToString(b[:]), true, nil
}

// serve runs the streamable HTTP server at /mcp until ctx ends. It prints
// the URL, and the token when it made one (a token from a file or the
// environment is never printed).
func (h *httpServe) serve(ctx context.Context, srv *server.MCPServer, out io.Writer, origins []string) error {
	mux := http.NewServeMux()
	mcpHandler := server.NewStreamableHTTPServer(srv, server.WithStateful(true))
	mux.Handle("/mcp", checkOrigins(origins, requireToken(h.token, requireSession(newHTTPCancels().wrap(mcpHandler)))))
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second,
		BaseContext: func(net.Listener) context.Context { return ctx }}
	fmt.Fprintf(out, "ollm mcp serve: http://%s/mcp\n", h.ln.Addr())
	if h.generated {
		fmt.Fprintf(out, "token: %s\n", h.token)
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(h.ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		_ = hs.Close()
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// requireToken lets through only requests whose Authorization header
// carries the token as a bearer token (the scheme in any case, the token
// compared in constant time); the rest get 401.
func requireToken(token string, next http.Handler) http.Handler {
	want := []byte(token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		scheme, got, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		if !strings.EqualFold(scheme, "Bearer") || subtle.ConstantTimeCompare([]byte(strings.TrimSpace(got)), want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="ollm mcp serve"`)
			http.Error(w, "401 unauthorized: send the header \"Authorization: Bearer TOKEN\" with the token ollm mcp serve printed (or the one in its --token-file or OLLM_MCP_TOKEN)", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}
