package store

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkRunDirsAndHash is what a loose hook's approval check adds per
// dispatch: finding the run directories of `sh -c "sh scripts/guard.sh"`
// and hashing scripts/ (20 files of 4 KiB), from the stat cache.
func BenchmarkRunDirsAndHash(b *testing.B) {
	ws := b.TempDir()
	dir := filepath.Join(ws, "scripts")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	for i := range 20 {
		p := filepath.Join(dir, fmt.Sprintf("f%d.sh", i))
		if err := os.WriteFile(p, make([]byte, 4096), 0o644); err != nil {
			b.Fatal(err)
		}
		_ = os.Chtimes(p, old, old)
	}
	words := []string{"sh", "-c", "sh scripts/f0.sh"}
	if os.Getenv("BENCH_COLD") == "" {
		time.Sleep(racyWindow + 100*time.Millisecond) // ctime past the racy window: cached
	}
	for b.Loop() {
		if os.Getenv("BENCH_COLD") != "" {
			sums.Lock()
			clear(sums.m)
			sums.Unlock()
		}
		for _, d := range RunDirs(words, ws, ws) {
			if _, err := HashTree(sha256.New(), d, d, DefaultTreeLimits); err != nil {
				b.Fatal(err)
			}
		}
	}
}
