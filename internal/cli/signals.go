package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"sync"

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

// NotifyInterrupts returns the channel main hands to Main as
// Env.Interrupts: InterruptSignals, caught from now on.
func NotifyInterrupts() <-chan os.Signal {
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, InterruptSignals()...)
	return ch
}

// interruptNotes is what a command says on an interrupt: first when the
// first one cancels it, hard when a second one stops the process at once
// ("" for a command that a second interrupt does not stop: it tears down
// whatever it started before it returns).
type interruptNotes struct {
	mu          sync.Mutex
	first, hard string
}

// onInterrupt sets what the command says on a first and on a second
// interrupt; with a hard note, the second interrupt stops the process at
// once (Main returns ExitInterrupted without waiting for the command).
func (e Env) onInterrupt(first, hard string) {
	if e.stop == nil {
		return
	}
	e.stop.mu.Lock()
	defer e.stop.mu.Unlock()
	e.stop.first, e.stop.hard = first, hard
}

// notes returns the notes set so far.
func (n *interruptNotes) notes() (first, hard string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.first, n.hard
}

// runCommand runs c. Without env.Interrupts it is a plain call. With them,
// the command runs on its own goroutine while this one watches the
// signals: the first cancels ctx, and the second, if the command set a
// hard note, returns at once with hard set (main then exits: nothing is
// left to wait for). os.Exit is never called here; main owns the exit.
func runCommand(ctx context.Context, cancel context.CancelFunc, c Command, args []string, env Env) (hard bool, err error) {
	if env.Interrupts == nil {
		return false, c.Run(ctx, args, env)
	}
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx, args, env) }()
	n := 0
	for {
		select {
		case err := <-done:
			return false, err
		case <-env.Interrupts:
			n++
			first, hardNote := env.stop.notes()
			if n == 1 {
				cancel()
				if first != "" {
					fmt.Fprintln(env.Stderr, "\n"+first)
				}
				continue
			}
			if hardNote != "" {
				fmt.Fprintln(env.Stderr, hardNote)
				return true, nil
			}
		}
	}
}
