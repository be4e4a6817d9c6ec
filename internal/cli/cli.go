// Package cli wires stackbench's subcommands. Each subcommand lives in its own
// file and registers itself; the engines it calls are libraries under
// internal/ that never touch flags, files they were not given, or os.Exit.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"sort"
	"strings"

	"golang.org/x/term"

	"github.com/stackbench/stackbench/internal/plan"
)

// Env is the process-wide state a command may use: standard streams, the
// environment and the working directory. Tests build their own Env, so
// commands are tested like programs.
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Getenv reads an environment variable.
	Getenv func(string) string
	// Dir is the working directory that relative paths are resolved against.
	Dir string
	// StdoutIsTerminal and StderrIsTerminal say whether a live display is wanted.
	StdoutIsTerminal bool
	StderrIsTerminal bool
	// StderrWidth is the width of the terminal on Stderr in columns, 0
	// when it is not one; nil means 0.
	StderrWidth func() int
	// Interrupts delivers the signals that stop a command (main passes
	// NotifyInterrupts()); nil in tests that send none. Main cancels the
	// command's context on the first, and on the second returns
	// ExitInterrupted at once when the command asked for that
	// (Env.onInterrupt).
	Interrupts <-chan os.Signal

	// stop is the command's word on interrupts, set through onInterrupt;
	// Main makes one per command.
	stop *interruptNotes
}

// lookup reads an environment variable; "" when Getenv is not set.
func (e Env) lookup(name string) string {
	if e.Getenv == nil {
		return ""
	}
	return e.Getenv(name)
}

// OSEnv returns the Env of the running process.
func OSEnv() Env {
	dir, err := os.Getwd()
	if err != nil {
		dir = "."
	}
	return Env{
		Stdin:            os.Stdin,
		Stdout:           os.Stdout,
		Stderr:           os.Stderr,
		Getenv:           os.Getenv,
		Dir:              dir,
		StdoutIsTerminal: term.IsTerminal(int(os.Stdout.Fd())),
		StderrIsTerminal: term.IsTerminal(int(os.Stderr.Fd())),
		StderrWidth: func() int {
			w, _, err := term.GetSize(int(os.Stderr.Fd()))
			if err != nil {
				return 0
			}
			return w
		},
	}
}

// Command is one subcommand.
type Command struct {
	Name  string
	Short string // one line for the command list
	// Order places the command in the list; lower comes first.
	Order int
	// Hidden leaves the command out of the command list (stackbench
	// agent, which only the coordinator runs).
	Hidden bool
	Run    func(ctx context.Context, args []string, env Env) error
}

var commands = map[string]Command{}

// register adds a subcommand; called from the init function of its file.
func register(c Command) {
	if _, dup := commands[c.Name]; dup {
		panic("cli: command registered twice: " + c.Name)
	}
	commands[c.Name] = c
}

// UsageError is bad input from the user: a flag, an argument, a config file.
// It exits with ExitUsage.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// usagef returns a UsageError with a formatted message.
func usagef(format string, a ...any) error {
	return &UsageError{Msg: fmt.Sprintf(format, a...)}
}

// ExitError ends the command with a code after its output has been printed,
// for example ExitGateFailed when a load run had no success or a parity
// check failed.
type ExitError struct {
	Code int
	Msg  string // printed to stderr when not empty
}

func (e *ExitError) Error() string {
	if e.Msg == "" {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Msg
}

// Main runs the command named by args[0] and returns the process exit code.
func Main(ctx context.Context, args []string, env Env) int {
	if len(args) == 0 {
		printUsage(env.Stderr)
		return ExitUsage
	}
	if args[0] == "help" && len(args) > 1 {
		// "stackbench help run" is "stackbench run -h".
		args = []string{args[1], "-h"}
	}
	if args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		printUsage(env.Stdout)
		return ExitOK
	}
	if args[0] == "version" || args[0] == "--version" {
		printVersion(env.Stdout)
		return ExitOK
	}
	c, ok := commands[args[0]]
	if !ok {
		names := slices.Sorted(maps.Keys(commands))
		hint := ""
		if s := plan.Suggest(args[0], names); s != "" {
			hint = fmt.Sprintf("did you mean %q? ", s)
		}
		fmt.Fprintf(env.Stderr, "stackbench: unknown command %q; %srun 'stackbench help' for the list\n", args[0], hint)
		return ExitUsage
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	env.stop = &interruptNotes{}
	hard, err := runCommand(ctx, cancel, c, args[1:], env)
	if hard {
		return ExitInterrupted
	}
	if errors.Is(err, context.Canceled) && ctx.Err() != nil {
		// Ctrl-C: the command has torn down what it started.
		fmt.Fprintf(env.Stderr, "stackbench %s: interrupted\n", c.Name)
		return ExitInterrupted
	}
	return exitCode(err, c.Name, env.Stderr)
}

func exitCode(err error, name string, stderr io.Writer) int {
	if err == nil {
		return ExitOK
	}
	var ue *UsageError
	var ee *ExitError
	switch {
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "stackbench %s: %s\n", name, ue.Msg)
		return ExitUsage
	case errors.As(err, &ee):
		if ee.Msg != "" {
			fmt.Fprintf(stderr, "stackbench %s: %s\n", name, ee.Msg)
		}
		return ee.Code
	case errors.Is(err, errHelp):
		return ExitOK
	default:
		// An error that stopped the command: nothing it measured failed a
		// gate, it could not measure.
		fmt.Fprintf(stderr, "stackbench %s: %v\n", name, err)
		return ExitNotMeasured
	}
}

// errHelp is returned by a command that printed its help on -h.
var errHelp = errors.New("help requested")

func printUsage(w io.Writer) {
	list := make([]Command, 0, len(commands))
	for _, c := range commands {
		if !c.Hidden {
			list = append(list, c)
		}
	}
	sort.Slice(list, func(i, j int) bool {
		if list[i].Order != list[j].Order {
			return list[i].Order < list[j].Order
		}
		return list[i].Name < list[j].Name
	})
	width := 0
	for _, c := range list {
		width = max(width, len(c.Name))
	}
	var b strings.Builder
	b.WriteString("stackbench: what does each layer of your API stack buy?\n\nUsage: stackbench <command> [flags]\n\nCommands:\n")
	for _, c := range list {
		fmt.Fprintf(&b, "  %-*s  %s\n", width, c.Name, c.Short)
	}
	b.WriteString("\nRun 'stackbench <command> -h' for a command's flags. The manual is in docs/.\n")
	b.WriteString("\n")
	io.WriteString(w, b.String())
	printExitCodes(w)
}
