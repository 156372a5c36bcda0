package main

import (
	"os"

	"github.com/ollm/ollm/cmd/cli"
)

func main() { os.Exit(int(cli.Main())) }
