package store

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// The writer child: rewrites the file with alternating contents forever.
func TestMain(m *testing.M) {
	if path := os.Getenv("OLLM_STORE_TEST_WRITER"); path != "" {
		for i := 0; ; i++ {
			if err := WriteFile(path, content(i%2), PermShared); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(3)
			}
			if i == 0 {
				fmt.Println("ready") // the parent kills only once writes are under way
			}
		}
	}
	os.Exit(m.Run())
}

// content is large enough that a torn write would be visible.
func content(which int) []byte {
	c := byte('a' + which)
	return append(bytes.Repeat([]byte{c}, 256<<10), '\n')
}

// A writer killed with SIGKILL at random points leaves the complete old or
// the complete new content, never a mix or a truncated file.
func TestWriteFileSurvivesSIGKILL(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	if err := WriteFile(path, content(0), PermShared); err != nil {
		t.Fatal(err)
	}
	a, b := content(0), content(1)
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	const rounds = 200
	for i := 0; i < rounds; i++ {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "OLLM_STORE_TEST_WRITER="+path)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if _, err := bufio.NewReader(out).ReadString('\n'); err != nil {
			t.Fatalf("round %d: writer did not start: %v", i, err)
		}
		time.Sleep(time.Duration(rng.Intn(3000)) * time.Microsecond)
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("round %d: %v", i, err)
		}
		if !bytes.Equal(got, a) && !bytes.Equal(got, b) {
			t.Fatalf("round %d: torn file: %d bytes, first %q last %q", i, len(got), got[:1], got[len(got)-1:])
		}
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != PermShared {
		t.Errorf("mode = %v, %v; want %v", fi.Mode().Perm(), err, PermShared)
	}
}

func TestUpdateJSONConcurrent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "counter.json")
	type counter struct{ N int }
	done := make(chan error)
	for w := 0; w < 4; w++ {
		go func() {
			for i := 0; i < 50; i++ {
				if err := UpdateJSON(path, PermPrivate, func(c *counter) error { c.N++; return nil }); err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
	}
	for w := 0; w < 4; w++ {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	var c counter
	if _, err := ReadJSON(path, &c); err != nil || c.N != 200 {
		t.Errorf("counter = %d, %v; want 200", c.N, err)
	}
}

func TestReadJSONErrors(t *testing.T) {
	dir := t.TempDir()
	var v map[string]any
	if found, err := ReadJSON(filepath.Join(dir, "missing.json"), &v); found || err != nil {
		t.Errorf("missing file: found=%v err=%v", found, err)
	}
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte("{\n  \"a\": 1,\n  oops\n}"), 0o644)
	_, err := ReadJSON(bad, &v)
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte(bad+":3:3")) {
		t.Errorf("malformed JSON error = %v; want file:line:col", err)
	}
}

func TestFindWorkspace(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, ProfileFileName), []byte("version: 1\n"), 0o644)
	deep := filepath.Join(root, "a", "b")
	os.MkdirAll(deep, 0o755)
	ws, found := FindWorkspace(deep)
	if !found || ws.Root != root {
		t.Errorf("FindWorkspace = %v %v, want %s", ws, found, root)
	}
	other := t.TempDir()
	ws, found = FindWorkspace(other)
	if found || ws.Root != other {
		t.Errorf("no profile: FindWorkspace = %v %v", ws, found)
	}
}
