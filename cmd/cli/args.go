package cli

import "github.com/spf13/cobra"

// Argument validators that report usage errors as FlagError (exit 2).
// Use these instead of cobra's own.

func usageArgs(v cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := v(cmd, args); err != nil {
			return &FlagError{Err: err}
		}
		return nil
	}
}

var noArgs = usageArgs(cobra.NoArgs)

func exactArgs(n int) cobra.PositionalArgs      { return usageArgs(cobra.ExactArgs(n)) }
func maxArgs(n int) cobra.PositionalArgs        { return usageArgs(cobra.MaximumNArgs(n)) }
func minArgs(n int) cobra.PositionalArgs        { return usageArgs(cobra.MinimumNArgs(n)) }
func rangeArgs(lo, hi int) cobra.PositionalArgs { return usageArgs(cobra.RangeArgs(lo, hi)) }
