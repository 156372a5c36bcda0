package tools

import (
	"fmt"
	"strings"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// lineOp is one line of a line diff: ' ', '-' or '+'.
type lineOp struct {
	op   byte
	text string // without its newline
}

// unifiedDiff is a unified diff of old and new with 3 lines of context,
// headed --- a/name, +++ b/name. Identical texts give "".
func unifiedDiff(name, old, new string) string {
	if old == new {
		return ""
	}
	ops := lineDiff(old, new)
	var b strings.Builder
	fmt.Fprintf(&b, "--- a/%s\n+++ b/%s\n", name, name)
	for _, h := range hunks(ops, 3) {
		writeHunk(&b, ops, h)
	}
	return b.String()
}

func lineDiff(old, new string) []lineOp {
	dmp := diffmatchpatch.New()
	a, b, lines := dmp.DiffLinesToRunes(old, new)
	diffs := dmp.DiffCharsToLines(dmp.DiffMainRunes(a, b, false), lines)
	var ops []lineOp
	for _, d := range diffs {
		op := byte(' ')
		switch d.Type {
		case diffmatchpatch.DiffDelete:
			op = '-'
		case diffmatchpatch.DiffInsert:
			op = '+'
		}
		for _, l := range splitLines(d.Text) {
			ops = append(ops, lineOp{op: op, text: l})
		}
	}
	return ops
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// hunk is a range [start, end) of ops.
type hunk struct{ start, end int }

// hunks groups changed lines with ctx lines of context, merging groups
// whose context would overlap.
func hunks(ops []lineOp, ctx int) []hunk {
	var out []hunk
	for i, o := range ops {
		if o.op == ' ' {
			continue
		}
		start, end := max(i-ctx, 0), min(i+ctx+1, len(ops))
		if n := len(out); n > 0 && start <= out[n-1].end {
			out[n-1].end = max(out[n-1].end, end)
			continue
		}
		out = append(out, hunk{start, end})
	}
	return out
}

func writeHunk(b *strings.Builder, ops []lineOp, h hunk) {
	oldLine, newLine := 1, 1
	for _, o := range ops[:h.start] {
		if o.op != '+' {
			oldLine++
		}
		if o.op != '-' {
			newLine++
		}
	}
	var oldN, newN int
	for _, o := range ops[h.start:h.end] {
		if o.op != '+' {
			oldN++
		}
		if o.op != '-' {
			newN++
		}
	}
	fmt.Fprintf(b, "@@ -%s +%s @@\n", hunkRange(oldLine, oldN), hunkRange(newLine, newN))
	for _, o := range ops[h.start:h.end] {
		fmt.Fprintf(b, "%c%s\n", o.op, o.text)
	}
}

func hunkRange(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start-1)
	}
	if n == 1 {
		return fmt.Sprintf("%d", start)
	}
	return fmt.Sprintf("%d,%d", start, n)
}
