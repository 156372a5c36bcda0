package cli

import (
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/ollm/ollm/schema"
	"github.com/spf13/cobra"
)

// Version is ollm's version. `make build`, `make install` and `make
// release` set it at link time to `git describe --tags --always --dirty`
// (-ldflags "-X github.com/ollm/ollm/cmd/cli.Version=..."), which names the
// commit; otherwise Main takes the module version the go command recorded
// (`go install github.com/ollm/ollm/cmd/ollm@v1.2.3` gives v1.2.3); "dev"
// is left for a build that has neither.
var Version = "dev"

// resolveVersion replaces "dev" with the main module's version from the
// build information, when the go command recorded one.
func resolveVersion() {
	if Version != "dev" {
		return
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		Version = bi.Main.Version
	}
}

func newCmdVersion(f *Factory) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:     "version",
		Short:   "Print ollm's version",
		Args:    noArgs,
		Example: "  ollm version\n  ollm version --json",
		RunE: func(cmd *cobra.Command, args []string) error {
			resolveVersion()
			info := map[string]any{
				"version":        Version,
				"go":             runtime.Version(),
				"platform":       runtime.GOOS + "/" + runtime.GOARCH,
				"profileVersion": schema.Version,
				"lockVersion":    schema.LockVersion,
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
