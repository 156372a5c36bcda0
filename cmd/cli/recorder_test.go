package cli

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"sort"
	"strings"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"
)

// `http-recorder FILE` starts a loopback HTTP server that stands for an
// attacker's endpoint: every request it receives is appended to FILE
// (method, path and headers), and it answers 500. RECORDER_URL is its
// address. A script asserts `! exists FILE` to show nothing was sent.
var _ = registerRecorder()

func registerRecorder() bool {
	scriptCmds["http-recorder"] = httpRecorderCmd
	return true
}

func httpRecorderCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: http-recorder FILE")
	}
	file := ts.MkAbs(args[0])
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var b strings.Builder
		fmt.Fprintf(&b, "%s %s\n", r.Method, r.URL.Path)
		names := make([]string, 0, len(r.Header))
		for k := range r.Header {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			fmt.Fprintf(&b, "%s: %s\n", k, strings.Join(r.Header[k], ", "))
		}
		mu.Lock()
		defer mu.Unlock()
		f, err := os.OpenFile(file, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err == nil {
			_, _ = f.WriteString(b.String())
			_ = f.Close()
		}
		http.Error(w, "recorded", http.StatusInternalServerError)
	}))
	ts.Defer(srv.Close)
	ts.Setenv("RECORDER_URL", srv.URL)
}
