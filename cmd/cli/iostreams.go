package cli

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"

	"golang.org/x/term"
)

// IOStreams are the command's standard streams and what it may do with them.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	StdinTTY  bool
	StdoutTTY bool
	StderrTTY bool

	// Verbose is -v: commands list each value an unapproved workspace
	// holds back instead of one line (printHeld).
	Verbose bool
}

// CanPrompt reports whether the user can answer a question: both stdin and
// stdout are terminals and CI is not set.
func (s *IOStreams) CanPrompt() bool {
	return s.StdinTTY && s.StdoutTTY && os.Getenv("CI") == ""
}

// DropTypeAhead discards input that reached the terminal before the
// question just printed, so that keys typed ahead, or pushed into the
// terminal by a program, cannot answer it: call it after printing the
// question and before reading the answer. buffered are readers over In
// whose unread bytes go too. Without a terminal on stdin (a pipe, a file,
// a test) nothing is dropped: a script's answers are meant.
func (s *IOStreams) DropTypeAhead(buffered ...*bufio.Reader) {
	if !s.StdinTTY {
		return
	}
	if f, ok := s.In.(interface{ Fd() uintptr }); ok {
		_ = flushInput(int(f.Fd()))
	}
	for _, b := range buffered {
		_, _ = b.Discard(b.Buffered())
	}
}

// ReadAnswer reads one line from in, or returns ErrCancelled when ctx ends
// first (Ctrl-C: the signal context of root.go), so a question waiting at
// the terminal does not hold the interrupt back. EOF with nothing read is
// io.EOF.
func (s *IOStreams) ReadAnswer(ctx context.Context, in *bufio.Reader) (string, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	type read struct {
		line string
		err  error
	}
	ch := make(chan read, 1)
	go func() { // left blocked on a terminal read when ctx ends; the process is exiting
		line, err := in.ReadString('\n')
		ch <- read{line, err}
	}()
	select {
	case r := <-ch:
		if r.err == io.EOF && r.line != "" {
			r.err = nil
		}
		return r.line, r.err
	case <-ctx.Done():
		return "", ErrCancelled
	}
}

// SystemIO returns the process's streams.
func SystemIO() *IOStreams {
	return &IOStreams{
		In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr,
		StdinTTY:  term.IsTerminal(int(os.Stdin.Fd())),
		StdoutTTY: term.IsTerminal(int(os.Stdout.Fd())),
		StderrTTY: term.IsTerminal(int(os.Stderr.Fd())),
	}
}

// TestIO returns in-memory streams for tests.
func TestIO() (*IOStreams, *bytes.Buffer, *bytes.Buffer, *bytes.Buffer) {
	in, out, errOut := &bytes.Buffer{}, &bytes.Buffer{}, &bytes.Buffer{}
	return &IOStreams{In: in, Out: out, ErrOut: errOut}, in, out, errOut
}
