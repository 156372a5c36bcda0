package cli

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// A huge piped input is cut at 8 MiB, on a character boundary, with a
// warning; the prompt still follows it.
func TestReadPipedHuge(t *testing.T) {
	in := strings.Repeat("é", maxPiped/2) + "tail that is dropped"
	var errOut bytes.Buffer
	got, err := readPiped(strings.NewReader(in), true, &errOut)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != maxPiped || !strings.HasSuffix(got, "é") {
		t.Fatalf("read %d bytes ending %q, want %d ending in é", len(got), got[len(got)-4:], maxPiped)
	}
	if want := "warning: stdin is larger than 8 MiB; only its first 8 MiB are used\n"; errOut.String() != want {
		t.Fatalf("stderr %q, want %q", errOut.String(), want)
	}
	odd := strings.Repeat("x", maxPiped-1) + "é"
	got, _ = readPiped(strings.NewReader(odd), false, io.Discard)
	if len(got) != maxPiped-1 {
		t.Fatalf("a character cut at the cap is dropped: got %d bytes", len(got))
	}
	if p := joinPiped(got[:3]+"\n", "review"); p != "xxx\n\nreview" {
		t.Fatalf("joined %q", p)
	}
}

// A stdin that stays open and sends nothing is not waited for when -p
// gave the prompt.
func TestReadPipedOpenPipe(t *testing.T) {
	r, w := io.Pipe()
	defer w.Close()
	old := pipedWait
	pipedWait = 0
	defer func() { pipedWait = old }()
	got, err := readPiped(r, true, io.Discard)
	if err != nil || got != "" {
		t.Fatalf("got %q, %v; want nothing", got, err)
	}
}
