package cli

import (
	"fmt"
	"io"

	"github.com/ollm/ollm/schema"
)

// printImport shows what `ollm ext info` knows of an extension in another
// CLI's format: each part imported (and what it became) and each part
// skipped, with why.
func printImport(w io.Writer, r *schema.ImportReport) {
	if r == nil {
		return
	}
	if len(r.Imported) > 0 {
		fmt.Fprintf(w, "imported from the %s:\n", importFormatName(r.Format))
		for _, it := range r.Imported {
			fmt.Fprintf(w, "  %s -> %s", it.What, it.As)
			if it.Pos != "" {
				fmt.Fprintf(w, " (%s)", it.Pos)
			}
			fmt.Fprintln(w)
		}
	}
	if len(r.Skipped) > 0 {
		fmt.Fprintln(w, "skipped:")
		for _, it := range r.Skipped {
			fmt.Fprintf(w, "  %s", it.What)
			if it.Pos != "" {
				fmt.Fprintf(w, " (%s)", it.Pos)
			}
			fmt.Fprintf(w, ": %s\n", it.Why)
		}
	}
}

func importFormatName(f string) string {
	if f == "claude-plugin" {
		return "Claude Code plugin"
	}
	return f
}
