// Command stackbench measures what each layer of an API stack buys: runtime,
// framework, database driver, build. See docs/ for the manual.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/stackbench/stackbench/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Main(ctx, os.Args[1:], cli.OSEnv())
	stop()
	os.Exit(code)
}
