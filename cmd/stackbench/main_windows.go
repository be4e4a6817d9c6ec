// Command stackbench measures what each layer of an API stack buys: runtime,
// framework, database driver, build. See docs/ for the manual.
//
// On Windows it only says where it runs: the harness needs process groups,
// a process table and raw sockets of Linux or macOS.
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "stackbench runs on Linux and macOS; on Windows use WSL2")
	os.Exit(2)
}
