package tools

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ollm/ollm/core/tool"
)

// The race tests swap a directory symlink inside the workspace between a
// directory inside it and one outside it, as fast as a goroutine can,
// while the file tools use paths through the link. Whatever the timing, a
// call must either work inside or be refused; it must never write, edit
// or read outside.

// swapper flips link between its two targets until stopped.
type swapper struct {
	link, inside, outside string
	stop                  chan struct{}
	done                  sync.WaitGroup
	swaps                 int
}

func startSwapper(t *testing.T, link, inside, outside string) *swapper {
	t.Helper()
	s := &swapper{link: link, inside: inside, outside: outside, stop: make(chan struct{})}
	must(t, os.Symlink(inside, link))
	tmp := link + ".swap"
	s.done.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-s.stop:
				return
			default:
			}
			target := inside
			if i%2 == 0 {
				target = outside
			}
			os.Remove(tmp)
			if os.Symlink(target, tmp) == nil && os.Rename(tmp, link) == nil {
				s.swaps++
			}
		}
	})
	t.Cleanup(s.halt)
	return s
}

func (s *swapper) halt() {
	select {
	case <-s.stop:
	default:
		close(s.stop)
	}
	s.done.Wait()
}

// raceFixture is a workspace with inside/ and link -> (inside | outside),
// outside being a directory out of the workspace.
func raceFixture(t *testing.T) (f *fixture, inside, outside string) {
	f = newFixture(t)
	inside = filepath.Join(f.root, "inside")
	mustMkdir(t, inside)
	outside = t.TempDir()
	return f, inside, outside
}

// raceCalls runs n calls of a tool through Build and Execute, as the agent
// does, and counts those that worked. A call may be refused as outside the
// workspace (the link pointed out when it was checked); any other failure
// fails the test. check sees every result and its confirmation.
func raceCalls(t *testing.T, f *fixture, n int, name string, params func(i int) string, check func(tool.Result, *tool.Confirmation)) (worked int) {
	t.Helper()
	for i := range n {
		inv, err := f.buildErr(name, params(i))
		if err != nil {
			if te, ok := err.(*tool.Error); !ok || te.Kind != tool.ErrOutsideRoot {
				t.Fatalf("%s %d: build: %v", name, i, err)
			}
			continue
		}
		res, err := inv.Execute(context.Background(), nil)
		if err != nil {
			t.Fatalf("%s %d: execute: %v", name, i, err)
		}
		check(res, inv.Confirmation())
		if res.Error != nil {
			if res.Error.Kind != tool.ErrOutsideRoot {
				t.Fatalf("%s %d: %v", name, i, res.Error)
			}
			continue
		}
		worked++
	}
	return worked
}

func raceN(t *testing.T) int {
	if testing.Short() {
		return 200
	}
	return 1000
}

func TestWriteFileRaceSymlinkSwap(t *testing.T) {
	f, inside, outside := raceFixture(t)
	s := startSwapper(t, filepath.Join(f.root, "link"), inside, outside)
	n := raceN(t)
	worked := raceCalls(t, f, n, "write_file", func(i int) string {
		return fmt.Sprintf(`{"path":"link/f%d.txt","content":"x"}`, i)
	}, func(tool.Result, *tool.Confirmation) {})
	s.halt()
	assertEmptyDir(t, outside)
	t.Logf("%d of %d writes worked, %d swaps", worked, n, s.swaps)
	if worked == 0 {
		t.Fatal("no write worked; the test proves nothing")
	}
}

func TestEditFileRaceSymlinkSwap(t *testing.T) {
	f, inside, outside := raceFixture(t)
	os.WriteFile(filepath.Join(inside, "e.txt"), []byte("inside line\n"), 0o644)
	os.WriteFile(filepath.Join(outside, "e.txt"), []byte("OUTSIDE line\n"), 0o644)
	before, _ := os.Stat(filepath.Join(outside, "e.txt"))
	s := startSwapper(t, filepath.Join(f.root, "link"), inside, outside)
	n := raceN(t)
	worked := raceCalls(t, f, n, "edit_file", func(int) string {
		return `{"path":"link/e.txt","edits":[{"oldText":"line","newText":"line"}]}`
	}, func(res tool.Result, c *tool.Confirmation) {
		if strings.Contains(res.ForModel+res.Display, "OUTSIDE") || (c != nil && strings.Contains(c.Diff, "OUTSIDE")) {
			t.Fatalf("edit_file showed the outside file: %+v", res)
		}
	})
	s.halt()
	after, err := os.Stat(filepath.Join(outside, "e.txt"))
	if err != nil || !os.SameFile(before, after) || !after.ModTime().Equal(before.ModTime()) {
		t.Fatalf("edit_file replaced or changed the outside file (%v)", err)
	}
	assertDirHas(t, outside, "e.txt")
	t.Logf("%d of %d edits worked, %d swaps", worked, n, s.swaps)
	if worked == 0 {
		t.Fatal("no edit worked; the test proves nothing")
	}
}

func TestReadFileRaceSymlinkSwap(t *testing.T) {
	f, inside, outside := raceFixture(t)
	os.WriteFile(filepath.Join(inside, "r.txt"), []byte("inside\n"), 0o644)
	os.WriteFile(filepath.Join(outside, "r.txt"), []byte("OUTSIDE\n"), 0o644)
	s := startSwapper(t, filepath.Join(f.root, "link"), inside, outside)
	n := raceN(t)
	worked := raceCalls(t, f, n, "read_file", func(int) string { return `{"path":"link/r.txt"}` },
		func(res tool.Result, _ *tool.Confirmation) {
			if strings.Contains(res.ForModel, "OUTSIDE") {
				t.Fatalf("read_file returned the outside file: %q", res.ForModel)
			}
		})
	s.halt()
	t.Logf("%d of %d reads worked, %d swaps", worked, n, s.swaps)
	if worked == 0 {
		t.Fatal("no read worked; the test proves nothing")
	}
}

// TestWalkersRaceDirectorySwap swaps a directory the walkers descend into
// with a symlink to the outside: grep, glob and ls list the directory
// after seeing it as one, and must not follow what replaced it.
func TestWalkersRaceDirectorySwap(t *testing.T) {
	f, inside, outside := raceFixture(t)
	os.WriteFile(filepath.Join(inside, "in.txt"), []byte("needle inside\n"), 0o644)
	os.WriteFile(filepath.Join(outside, "OUTSIDE.txt"), []byte("needle OUTSIDE\n"), 0o644)
	dir := filepath.Join(f.root, "d")
	parked := filepath.Join(f.root, "parked")
	mustMkdir(t, dir)
	os.WriteFile(filepath.Join(dir, "d.txt"), []byte("needle d\n"), 0o644)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() { // d is a directory, then a symlink to outside, then a directory again
		for {
			select {
			case <-stop:
				return
			default:
			}
			os.Rename(dir, parked)
			os.Symlink(outside, dir)
			os.Remove(dir)
			os.Rename(parked, dir)
		}
	})
	defer func() { close(stop); wg.Wait() }()
	n := raceN(t) / 5
	for i := range n {
		for _, c := range []struct{ name, params string }{
			{"grep", `{"pattern":"needle"}`},
			{"glob", `{"pattern":"**/*.txt"}`},
			{"ls", `{"recursive":true}`},
		} {
			res := f.call(c.name, c.params)
			if strings.Contains(res.ForModel, "OUTSIDE") {
				t.Fatalf("%s %d followed the swapped directory out: %q", c.name, i, res.ForModel)
			}
		}
	}
}

func assertEmptyDir(t *testing.T, dir string) {
	t.Helper()
	assertDirHas(t, dir)
}

func assertDirHas(t *testing.T, dir string, want ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, ",") != strings.Join(want, ",") {
		t.Fatalf("%s holds %v; want %v", dir, names, want)
	}
}
