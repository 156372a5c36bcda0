package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"
)

// maxPiped bounds the piped input `ollm run` reads, as Gemini CLI's 8 MB.
const maxPiped = 8 << 20

// pipedWait is how long `ollm run -p` waits for the first byte (or the
// end) of a stdin that is not a terminal before going on without it: a
// caller that leaves an unused pipe open must not hang the run (Gemini CLI
// waits the same 500 ms).
var pipedWait = 500 * time.Millisecond

// readPiped reads stdin up to maxPiped. With waitFirst (a prompt was given
// with -p) a stdin that sends nothing in pipedWait is given up on. Input
// beyond the cap is dropped with a warning; the cut falls on a character
// boundary.
func readPiped(in io.Reader, waitFirst bool, errOut io.Writer) (string, error) {
	type chunk struct {
		b   []byte
		err error
	}
	first := make(chan chunk, 1)
	go func() {
		buf := make([]byte, 64<<10)
		n, err := in.Read(buf)
		first <- chunk{buf[:n], err}
	}()
	var c chunk
	if waitFirst {
		select {
		case c = <-first:
		case <-time.After(pipedWait):
			return "", nil
		}
	} else {
		c = <-first
	}
	data := c.b
	if c.err == nil {
		rest, err := io.ReadAll(io.LimitReader(in, int64(maxPiped+1-len(data))))
		if err != nil {
			return "", fmt.Errorf("read stdin: %w", err)
		}
		data = append(data, rest...)
	} else if !errors.Is(c.err, io.EOF) {
		return "", fmt.Errorf("read stdin: %w", c.err)
	}
	if len(data) > maxPiped {
		data = data[:maxPiped]
		for i := 0; i < utf8.UTFMax-1 && len(data) > 0; i++ {
			if r, size := utf8.DecodeLastRune(data); r != utf8.RuneError || size != 1 {
				break
			}
			data = data[:len(data)-1] // part of a character cut at the cap
		}
		fmt.Fprintf(errOut, "warning: stdin is larger than %d MiB; only its first %d MiB are used\n", maxPiped>>20, maxPiped>>20)
	}
	return string(data), nil
}

// joinPiped puts piped input before the prompt, a blank line between.
func joinPiped(piped, prompt string) string {
	piped = strings.TrimRight(piped, " \t\r\n")
	prompt = strings.TrimSpace(prompt)
	switch {
	case strings.TrimSpace(piped) == "":
		return prompt
	case prompt == "":
		return strings.TrimLeft(piped, "\r\n")
	}
	return strings.TrimLeft(piped, "\r\n") + "\n\n" + prompt
}
