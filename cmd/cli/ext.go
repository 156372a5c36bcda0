package cli

import "github.com/spf13/cobra"

func newCmdExt(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "ext",
		Short: "List, enable, disable, inspect and manage extensions",
		Long: `Extensions are directories with a manifest.json (or a Gemini CLI
gemini-extension.json) that bundle hooks, MCP servers, settings and skills.
They are discovered in $OLLM_HOME/extensions, the workspace .ollm/extensions,
extensions.directories, the lock's store entries and --ext PATH.`,
		Example: `  ollm ext list
  ollm ext info my-ext
  ollm ext disable my-ext`,
	}
	for _, sub := range extSubcommands {
		cmd.AddCommand(sub(f))
	}
	return cmd
}

// extSubcommands lists the `ollm ext` subcommands, one per line.
var extSubcommands = []func(*Factory) *cobra.Command{
	newCmdExtList,
	newCmdExtInfo,
	newCmdExtEnable,
	newCmdExtDisable,
	newCmdExtRemove,
	newCmdExtLogs,
	newCmdExtLink,
	newCmdExtAdd,
	newCmdExtUpdate,
	newCmdExtVerify,
}
