package cli

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// everythingScript finds server-everything, installed by `make deps`.
func everythingScript(t testing.TB) string {
	t.Helper()
	dir := npmDir()
	p := filepath.Join(dir, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("server-everything is not installed (%v); run make deps", err)
	}
	return p
}

// TestMCPCallURL calls server-everything over streamable HTTP with --url
// and no profile at all.
func TestMCPCallURL(t *testing.T) {
	addr := startEverythingHTTP(t)
	io, _, out, errOut := TestIO()
	f := &Factory{IO: io, Context: context.Background(), Getenv: func(k string) string {
		if k == "OLLM_HOME" {
			return t.TempDir()
		}
		return ""
	}, Environ: os.Environ, Getwd: os.Getwd, Now: time.Now}
	o := newMCPOptions(f)
	o.URL = "http://" + addr + "/mcp"
	server, name, params, err := mcpCallArgs(o, []string{"trigger-long-running-operation", `{"duration":0.2,"steps":2}`})
	if err != nil || server != adHocName {
		t.Fatal(server, err)
	}
	if err := mcpCallRun(o, server, name, params); err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	if !strings.Contains(out.String(), "completed") || !strings.Contains(errOut.String(), "progress 2/2") {
		t.Errorf("stdout %q stderr %q", out, errOut)
	}
}

// get-roots-list makes server-everything ask for the roots on the GET
// stream, outside the call: the answer comes back within the call, and the
// root is the directory ollm runs in.
func TestMCPCallURLRootsOverGetStream(t *testing.T) {
	addr := startEverythingHTTP(t)
	wd := t.TempDir()
	io, _, out, errOut := TestIO()
	f := &Factory{IO: io, Context: context.Background(), Getenv: func(k string) string {
		if k == "OLLM_HOME" {
			return t.TempDir()
		}
		return ""
	}, Environ: os.Environ, Getwd: func() (string, error) { return wd, nil }, Now: time.Now}
	o := newMCPOptions(f)
	o.URL = "http://" + addr + "/mcp"
	if err := mcpCallRun(o, adHocName, "get-roots-list", "{}"); err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	if !strings.Contains(out.String(), "URI: file://"+wd) {
		t.Errorf("stdout %q stderr %q", out, errOut)
	}
}

// startEverythingHTTP runs server-everything over streamable HTTP on a
// loopback port and returns its address.
func startEverythingHTTP(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	preload, _ := filepath.Abs(filepath.Join("..", "..", "core", "mcp", "testdata", "loopback.cjs"))
	srv := exec.Command("node", "--require", preload, everythingScript(t), "streamableHttp")
	srv.Env = append(os.Environ(), "PORT="+strconv.Itoa(port))
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Process.Kill(); srv.Wait() })
	addr := "127.0.0.1:" + strconv.Itoa(port)
	for i := 0; ; i++ {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			break
		}
		if i == 1500 {
			t.Fatal("server-everything never listened")
		}
		time.Sleep(20 * time.Millisecond)
	}
	return addr
}
