package sandbox_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ollm/ollm/core/sandbox"
	"github.com/ollm/ollm/core/sandbox/sandboxtest"
	"github.com/ollm/ollm/schema"
)

// run runs argv in the box's workspace under s (the shell's default
// filling what s leaves out), with env added to ollm's environment.
func run(t *testing.T, b *sandboxtest.Box, s schema.Sandbox, env []string, argv ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = b.WS
	cmd.Env = append(append(os.Environ(), "TMPDIR="+b.Tmp), env...)
	if err := sandbox.Wrap(cmd, sandbox.Resolve(s, sandbox.ShellDefault, b.Env())); err != nil {
		t.Fatal(err)
	}
	out, err := sandbox.CombinedForTest(cmd)
	return string(out), err
}

// probes tries every way out a program has, one line each:
// "NAME: reached ..." or "NAME: blocked ...".
const probes = `
import socket, sys
tcp, udp, dns, abstract, outside, inside, temp = sys.argv[1:8]
def addr(a):
    h, p = a.rsplit(':', 1)
    return (h, int(p))
def probe(name, fn):
    try:
        print(name + ': reached ' + repr(fn()))
    except Exception as e:
        print(name + ': blocked ' + type(e).__name__ + ' ' + str(e))
def stream(family, proto, to):
    s = socket.socket(family, socket.SOCK_STREAM, proto)
    s.settimeout(3)
    s.connect(to)
    return s.recv(3)
def fastopen():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.sendto(b'x', socket.MSG_FASTOPEN, addr(tcp))  # blocking: connects as it sends
    s.settimeout(3)
    return s.recv(3)
def datagram(payload, to):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.settimeout(3)
    s.sendto(payload, to)
    return s.recv(64)
def raw():
    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
    s.sendto(b'\x08\x00\xf7\xff\x00\x00\x00\x00', ('127.0.0.1', 0))
    return 'sent'
query = b'\x12\x34\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00\x04leak\x07example\x00\x00\x01\x00\x01'
probe('tcp', lambda: stream(socket.AF_INET, 0, addr(tcp)))
probe('tcp-fastopen', fastopen)
probe('mptcp', lambda: stream(socket.AF_INET, 262, addr(tcp)))
probe('udp', lambda: datagram(b'ping', addr(udp)))
probe('dns', lambda: datagram(query, addr(dns)))
probe('raw', raw)
probe('abstract', lambda: stream(socket.AF_UNIX, 0, '\0' + abstract[1:]))
probe('unix-outside', lambda: stream(socket.AF_UNIX, 0, outside))
probe('unix-workspace', lambda: stream(socket.AF_UNIX, 0, inside))
probe('unix-temp', lambda: stream(socket.AF_UNIX, 0, temp))
def temp_write():
    with open(temp + '.txt', 'w') as f:
        f.write('x')
    return 'written'
probe('temp-dir-write', temp_write)
`

// Network off: nothing leaves the sandbox over IP of any kind, no unix
// socket of the host outside the workspace answers, abstract ones
// included, and the user's ssh-agent does not sign. Each listener is a
// real server of the host that counts what reached it; with the network
// on the same probes reach it, which shows they work.
func TestNetworkOffMeansOff(t *testing.T) {
	b := sandboxtest.New(t)
	tcp := sandboxtest.ListenStream(t, "tcp", "127.0.0.1:0")
	udp := sandboxtest.ListenUDP(t)
	dns := sandboxtest.ListenUDP(t)
	abstract := sandboxtest.ListenStream(t, "unix", fmt.Sprintf("@ollm-sandbox-test-%d", os.Getpid()))
	outside := sandboxtest.ListenStream(t, "unix", filepath.Join(b.Outside, "service.sock"))
	inside := sandboxtest.ListenStream(t, "unix", filepath.Join(b.WS, "dev.sock"))
	// A socket directly in a directory the process writes ($TMPDIR): the
	// socket is covered, not the directory.
	temp := sandboxtest.ListenStream(t, "unix", filepath.Join(b.Tmp, "daemon.sock"))
	agent := sandboxtest.StartAgent(t, filepath.Join(b.Outside, "ssh-agent"))
	argv := []string{"python3", "-c", probes, tcp.Addr, udp.Addr, dns.Addr, abstract.Addr, outside.Addr, inside.Addr, temp.Addr}
	agentEnv := []string{"SSH_AUTH_SOCK=" + agent.Sock}

	out, err := run(t, b, schema.Sandbox{}, agentEnv, argv...)
	if err != nil {
		t.Fatalf("probes: %v\n%s", err, out)
	}
	t.Logf("network off:\n%s", out)
	for _, name := range []string{"tcp", "tcp-fastopen", "mptcp", "udp", "dns", "raw", "abstract", "unix-outside", "unix-temp"} {
		if !strings.Contains(out, name+": blocked") {
			t.Errorf("network off: %s was not blocked:\n%s", name, out)
		}
	}
	if !strings.Contains(out, "unix-workspace: reached b'hi\\n'") || !strings.Contains(out, "temp-dir-write: reached 'written'") {
		t.Errorf("network off: a unix socket in the workspace should answer, and $TMPDIR stay writable:\n%s", out)
	}
	for name, l := range map[string]*sandboxtest.Listener{"tcp": tcp, "udp": udp, "dns": dns, "abstract": abstract, "unix-outside": outside, "unix-temp": temp} {
		if n := l.Hits(); n != 0 {
			t.Errorf("network off: the host's %s listener received %d connections or datagrams", name, n)
		}
	}
	if out, err := run(t, b, schema.Sandbox{}, agentEnv, "ssh-add", "-L"); err == nil || strings.Contains(out, agent.Key) {
		t.Errorf("network off: ssh-add -L listed the agent's key (%v):\n%s", err, out)
	}

	// The same probes with the network on reach the host's listeners; the
	// agent still needs its own grant.
	on := true
	out, err = run(t, b, schema.Sandbox{Network: &on}, agentEnv, argv...)
	if err != nil {
		t.Fatalf("probes, network on: %v\n%s", err, out)
	}
	t.Logf("network on:\n%s", out)
	for _, name := range []string{"tcp", "tcp-fastopen", "mptcp", "udp", "dns", "abstract", "unix-outside", "unix-workspace", "unix-temp"} {
		if !strings.Contains(out, name+": reached") {
			t.Errorf("network on: %s should be reached:\n%s", name, out)
		}
	}
	if out, err := run(t, b, schema.Sandbox{Network: &on}, agentEnv, "ssh-add", "-L"); err == nil || strings.Contains(out, agent.Key) {
		t.Errorf("network on without sshAgent: ssh-add -L listed the agent's key (%v):\n%s", err, out)
	}
	if out, err := run(t, b, schema.Sandbox{Network: &on, SSHAgent: true}, agentEnv, "ssh-add", "-L"); err != nil || !strings.Contains(out, agent.Key) {
		t.Errorf("sshAgent: true: ssh-add -L should list the agent's key (%v):\n%s", err, out)
	}
	// The grant lets ollm's own SSH_AUTH_SOCK through to a process whose
	// environment went through the allow-list (which keeps it out).
	t.Setenv("SSH_AUTH_SOCK", agent.Sock)
	filtered := func(s schema.Sandbox) (string, error) {
		cmd := exec.Command("ssh-add", "-L")
		cmd.Dir = b.WS
		cmd.Env = append(sandbox.Environ(os.Environ(), nil), "TMPDIR="+b.Tmp)
		if err := sandbox.Wrap(cmd, sandbox.Resolve(s, sandbox.ShellDefault, b.Env())); err != nil {
			t.Fatal(err)
		}
		out, err := sandbox.CombinedForTest(cmd)
		return string(out), err
	}
	if out, err := filtered(schema.Sandbox{Network: &on, SSHAgent: true}); err != nil || !strings.Contains(out, agent.Key) {
		t.Errorf("sshAgent: true with the allow-listed environment: ssh-add -L should list the agent's key (%v):\n%s", err, out)
	}
	if out, err := filtered(schema.Sandbox{Network: &on}); err == nil || strings.Contains(out, agent.Key) {
		t.Errorf("without sshAgent, the allow-listed environment reached the agent (%v):\n%s", err, out)
	}
	// The agent hides wherever SSH_AUTH_SOCK points, also when the
	// command's environment does not name it (ollm's does).
	t.Setenv("SSH_AUTH_SOCK", agent.Sock)
	if out, err := run(t, b, schema.Sandbox{Network: &on}, nil, "sh", "-c", "SSH_AUTH_SOCK="+agent.Sock+" ssh-add -L"); err == nil || strings.Contains(out, agent.Key) {
		t.Errorf("network on: the agent named by ollm's SSH_AUTH_SOCK answered (%v):\n%s", err, out)
	}
}
