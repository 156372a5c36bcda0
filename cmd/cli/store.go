package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ollm/ollm/store"
)

func newCmdStore(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "store",
		Short: "Maintain the content-addressed extension store",
		Long: `The store ($OLLM_HOME/store) holds one read-only directory per fetched
extension or team profile, at <hash>/<name>. Entries enter it only after
their hash was checked against ollm.lock.`,
		Example: "  ollm store gc --dry-run\n  ollm store gc",
	}
	cmd.AddCommand(newCmdStoreGC(f))
	return cmd
}

// StoreGCOptions are the options of `ollm store gc`.
type StoreGCOptions struct {
	Home   func() (store.Home, error)
	IO     *IOStreams
	DryRun bool
	JSON   bool
}

func newCmdStoreGC(f *Factory) *cobra.Command {
	opts := &StoreGCOptions{Home: f.Home, IO: f.IO}
	cmd := &cobra.Command{
		Use:   "gc",
		Short: "Remove store entries that no generation references",
		Long: `gc removes every store entry that no generation (of any workspace) uses, and
downloads left unfinished by an interrupted apply. Entries fetched by
'ollm profile lock' alone are not referenced by a generation until an apply.`,
		Args:    noArgs,
		Example: "  ollm store gc\n  ollm store gc --dry-run --json",
		RunE:    func(cmd *cobra.Command, args []string) error { return storeGCRun(opts) },
	}
	cmd.Flags().BoolVar(&opts.DryRun, "dry-run", false, "list what would be removed")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the removed entries as JSON")
	return cmd
}

func storeGCRun(opts *StoreGCOptions) error {
	home, err := opts.Home()
	if err != nil {
		return err
	}
	cas := store.NewCAS(home.Store())
	unlock, err := cas.LockExclusive()
	if err != nil {
		return err
	}
	defer unlock()
	gens, err := store.Generations{Dir: home.Generations()}.All()
	if err != nil {
		return err
	}
	keep := map[string]bool{}
	for _, g := range gens {
		for _, e := range g.StoreEntries {
			keep[e] = true
		}
	}
	removed, err := cas.GC(keep, opts.DryRun)
	if err != nil {
		return err
	}
	if opts.JSON {
		if removed == nil {
			removed = []string{}
		}
		return writeJSON(opts.IO.Out, map[string]any{"removed": removed, "kept": len(keep), "dryRun": opts.DryRun})
	}
	verb := "removed"
	if opts.DryRun {
		verb = "would remove"
	}
	for _, r := range removed {
		fmt.Fprintf(opts.IO.Out, "%s %s\n", verb, r)
	}
	fmt.Fprintf(opts.IO.Out, "%s %d entr(y/ies); %d referenced by generations\n", verb, len(removed), len(keep))
	return nil
}
