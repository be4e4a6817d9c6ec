package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// newFlagSet returns a FlagSet for a subcommand whose usage text goes to
// env.Stderr and whose errors are returned, not printed and exited on.
func newFlagSet(name, synopsis string, env Env) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {
		fmt.Fprintf(env.Stderr, "Usage: stackbench %s %s\n\nFlags:\n", name, synopsis)
		fs.SetOutput(env.Stderr)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
	return fs
}

// parseFlags parses args, allowing flags after positional arguments
// ("stackbench load URL -c 10"), and returns the positional arguments.
// A "--" ends flag parsing. -h prints the usage and returns errHelp.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, errHelp // the flag package has printed the usage
			}
			return nil, &UsageError{Msg: strings.TrimSpace(err.Error()) + "; run with -h for the flags"}
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, nil
		}
		if len(args) > 0 && len(rest) < len(args) && args[len(args)-len(rest)-1] == "--" {
			return append(positional, rest...), nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ", ") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }
