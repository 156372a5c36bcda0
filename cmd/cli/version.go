package cli

import (
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/ollm/ollm/schema"
	"github.com/spf13/cobra"
)

// Version is set at link time (-ldflags "-X github.com/ollm/ollm/cmd/cli.Version=v1.2.3").
var Version = "dev"

func newCmdVersion(f *Factory) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "version",
		Short:   "Print ollm's version",
		Args:    noArgs,
		Example: "  ollm version\n  ollm version --json",
		RunE: func(cmd *cobra.Command, args []string) error {
			info := map[string]any{
				"version":        Version,
				"go":             runtime.Version(),
				"platform":       runtime.GOOS + "/" + runtime.GOARCH,
				"profileVersion": schema.Version,
				"lockVersion":    schema.LockVersion,
			}
			if bi, ok := debug.ReadBuildInfo(); ok && Version == "dev" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
				info["version"] = bi.Main.Version
			}
			if asJSON {
				enc := json.NewEncoder(f.IO.Out)
				enc.SetIndent("", "  ")
				return enc.Encode(info)
			}
			fmt.Fprintf(f.IO.Out, "ollm %s (%s, %s, profile schema v%d)\n", info["version"], info["go"], info["platform"], schema.Version)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	return cmd
}
