package cli

import (
	"os"
	"os/signal"

	"github.com/stackbench/stackbench/internal/platform/local"
)

// InterruptSignals are the signals that stop a command cleanly (main
// cancels the command's context on the first): Ctrl-C, kill's default, and
// the hang-up of a closed terminal or dropped SSH session, unless it is
// ignored, as under nohup (catching it would undo that).
func InterruptSignals() []os.Signal {
	sigs := []os.Signal{os.Interrupt, local.Terminate}
	if !signal.Ignored(local.Hangup) {
		sigs = append(sigs, local.Hangup)
	}
	return sigs
}
