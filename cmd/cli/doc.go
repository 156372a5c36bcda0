// Package cli holds ollm's cobra commands and is the one place that wires
// real dependencies (the factory) into the core packages. Each command is an
// options struct, a NewCmdX constructor and an xRun function that tests can
// call against in-memory streams. Typed errors map to exit codes in Main.
//
// Imports: anything in the module; nothing imports cli but cmd/ollm.
package cli
