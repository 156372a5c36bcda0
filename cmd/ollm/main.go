// Command ollm is a terminal agent for local models, configured by one
// CUE-validated profile. See the cli package for the commands.
package main

import (
	"os"

	"github.com/ollm/ollm/cmd/cli"
)

func main() { os.Exit(int(cli.Main())) }
