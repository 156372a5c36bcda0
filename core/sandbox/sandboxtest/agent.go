package sandboxtest

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// Listener is a server of the host that a sandboxed program should (or
// should not) reach: Hits counts what it received, counted before it
// answers, so a program that read the answer was counted.
type Listener struct {
	Addr string // host:port, a socket path, or "@name" for an abstract socket
	hits atomic.Int64
}

// Hits is how many connections or datagrams the listener received.
func (l *Listener) Hits() int64 { return l.hits.Load() }

// ListenStream serves "hi\n" on each connection of network ("tcp",
// "unix") at addr ("127.0.0.1:0", a path, "@name").
func ListenStream(t testing.TB, network, addr string) *Listener {
	t.Helper()
	ln, err := net.Listen(network, addr)
	if err != nil {
		t.Fatalf("listen %s %s: %v", network, addr, err)
	}
	t.Cleanup(func() { ln.Close() })
	l := &Listener{Addr: ln.Addr().String()}
	if network == "unix" && strings.HasPrefix(addr, "@") {
		l.Addr = addr
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			l.hits.Add(1)
			c.Write([]byte("hi\n"))
			c.Close()
		}
	}()
	return l
}

// ListenUDP answers every datagram on the host's loopback with "hi\n".
// A DNS query is a datagram like any other: a program that gets an
// answer from it has sent one out.
func ListenUDP(t testing.TB) *Listener {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	l := &Listener{Addr: pc.LocalAddr().String()}
	go func() {
		buf := make([]byte, 1500)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			l.hits.Add(1)
			if n >= 12 { // a DNS query: answer with its id, "no such name"
				reply := append([]byte{buf[0], buf[1], 0x81, 0x83}, buf[4:n]...)
				pc.WriteTo(reply, from)
				continue
			}
			pc.WriteTo([]byte("hi\n"), from)
		}
	}()
	return l
}

// Agent is a running ssh-agent holding one key, as on a developer's
// machine.
type Agent struct {
	Sock string // its socket ($SSH_AUTH_SOCK)
	Key  string // the public key it holds, as ssh-add -L prints it
}

// StartAgent runs /usr/bin/ssh-agent with its socket in dir and adds a
// new ed25519 key to it; it stops with the test.
func StartAgent(t testing.TB, dir string) *Agent {
	t.Helper()
	for _, p := range []string{"ssh-agent", "ssh-add", "ssh-keygen"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Fatalf("%s is not installed (apt-get install openssh-client): %v", p, err)
		}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	a := &Agent{Sock: filepath.Join(dir, "agent.sock")}
	cmd := exec.Command("ssh-agent", "-D", "-a", a.Sock)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for i := 0; ; i++ { // ssh-agent forks nothing with -D; wait for its socket
		if _, err := os.Stat(a.Sock); err == nil {
			break
		}
		if i == 500 {
			t.Fatalf("ssh-agent did not create %s: %s", a.Sock, out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	key := filepath.Join(dir, "id_ed25519")
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "sandbox-test", "-f", key).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v %s", err, out)
	}
	add := exec.Command("ssh-add", key)
	add.Env = append(os.Environ(), "SSH_AUTH_SOCK="+a.Sock)
	if out, err := add.CombinedOutput(); err != nil {
		t.Fatalf("ssh-add: %v %s", err, out)
	}
	pub, err := os.ReadFile(key + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	a.Key = strings.TrimSpace(string(pub))
	return a
}
