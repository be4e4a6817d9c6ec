//go:build !windows

// Command stackbench measures what each layer of an API stack buys: runtime,
// framework, database driver, build. See docs/ for the manual.
package main

import (
	"context"
	"os"
	"os/signal"

	"github.com/stackbench/stackbench/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), cli.InterruptSignals()...)
	code := cli.Main(ctx, os.Args[1:], cli.OSEnv())
	stop()
	os.Exit(code)
}
