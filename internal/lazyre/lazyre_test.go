package lazyre

import (
	"sync"
	"testing"
)

func TestCompiledOnceOnFirstUse(t *testing.T) {
	r := New(`^a(b+)$`)
	if r.re != nil {
		t.Fatal("compiled before use")
	}
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if !r.MatchString("abb") || r.MatchString("ac") {
				t.Error("wrong match")
			}
		}()
	}
	wg.Wait()
	if m := r.FindStringSubmatch("abbb"); len(m) != 2 || m[1] != "bbb" {
		t.Fatalf("submatch %q", m)
	}
	if got := New(`b+`).ReplaceAllString("abba", "-"); got != "a-a" {
		t.Fatalf("replace %q", got)
	}
}

func TestInvalidPanicsOnUse(t *testing.T) {
	r := New(`(`)
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	r.MatchString("x")
}
