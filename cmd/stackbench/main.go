//go:build !windows

// Command stackbench measures what each layer of an API stack buys: runtime,
// framework, database driver, build. See docs/ for the manual.
package main

import (
	"context"
	"os"

	"github.com/stackbench/stackbench/internal/cli"
)

func main() {
	env := cli.OSEnv()
	env.Interrupts = cli.NotifyInterrupts()
	os.Exit(cli.Main(context.Background(), os.Args[1:], env))
}
