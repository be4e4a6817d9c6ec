package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"time"
)

// newFlagSet returns a FlagSet for a subcommand whose errors are returned,
// not printed and exited on. Its usage text, printed on -h only, goes to
// env.Stdout: it was asked for, and may be piped to a pager.
func newFlagSet(name, synopsis string, env Env) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {
		if c, ok := commands[name]; ok {
			fmt.Fprintf(env.Stdout, "stackbench %s: %s\n\n", name, c.Short)
		}
		fmt.Fprintf(env.Stdout, "Usage: stackbench %s %s\n\nFlags:\n", name, synopsis)
		printFlags(env.Stdout, fs)
	}
	return fs
}

// printFlags lists the flags as the docs write them: -o and -f with one
// dash, --window with two (the flag package accepts either).
func printFlags(w io.Writer, fs *flag.FlagSet) {
	var b strings.Builder
	fs.VisitAll(func(f *flag.Flag) {
		dash := "--"
		if len(f.Name) == 1 {
			dash = "-"
		}
		arg, usage := flag.UnquoteUsage(f)
		if sf, ok := f.Value.(*settingFlag); ok {
			arg = sf.arg
		}
		fmt.Fprintf(&b, "  %s%s", dash, f.Name)
		if arg != "" {
			b.WriteString(" " + arg)
		}
		b.WriteString("\n    \t" + strings.ReplaceAll(usage, "\n", "\n    \t"))
		if def := f.DefValue; def != "" && def != "false" && def != "0" && def != "[]" {
			fmt.Fprintf(&b, " (default %s)", def)
		}
		b.WriteString("\n")
	})
	io.WriteString(w, b.String())
}

// parseFlags parses args, allowing flags after positional arguments
// ("stackbench load URL -c 10"), and returns the positional arguments.
// A "--" ends flag parsing. -h prints the usage and returns errHelp; a bad
// flag is one line, not the whole usage (the flag package would print it
// before the error, burying the line that says what went wrong).
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	usage := fs.Usage
	fs.Usage = func() {}
	defer func() { fs.Usage = usage }()
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				usage()
				return nil, errHelp
			}
			return nil, &UsageError{Msg: flagError(fs, err) + "; run with -h for the flags"}
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

// badValue matches the flag package's message for a value that does not parse.
var badValue = regexp.MustCompile(`^invalid (?:boolean )?value "(.*)" for (?:flag )?-([^:]+): (.*)$`)

// flagError rewrites the flag package's "invalid value "10" for flag
// -window: parse error" into what to write instead; other errors are kept.
func flagError(fs *flag.FlagSet, err error) string {
	msg := strings.TrimSpace(err.Error())
	m := badValue.FindStringSubmatch(msg)
	if m == nil {
		return msg
	}
	value, name, why := m[1], m[2], m[3]
	f := fs.Lookup(name)
	if f == nil {
		return msg
	}
	dash := "--"
	if len(name) == 1 {
		dash = "-"
	}
	want := ""
	switch f.Value.(flag.Getter).Get().(type) {
	case time.Duration:
		want = "a duration with a unit, e.g. " + dash + name + " 5s (units: ms, s, m, h)"
	case int, int64, uint, uint64:
		want = "a whole number"
		if why == "value out of range" {
			want = "a smaller whole number"
		}
	case float64:
		want = "a number"
	case bool:
		want = "true or false, as " + dash + name + "=false (or just " + dash + name + " for true)"
	default:
		return msg
	}
	return fmt.Sprintf("%s%s %q: write %s", dash, name, value, want)
}

// stackSelection is the stacks a command is limited to: --stacks a,b, the
// one spelling every command that starts stacks takes, with --stack as its
// alias; either may be repeated, and a name given twice counts once.
type stackSelection []string

func (s *stackSelection) String() string { return strings.Join(*s, ",") }

func (s *stackSelection) Set(v string) error {
	for _, name := range commaList(v) {
		if !slices.Contains(*s, name) {
			*s = append(*s, name)
		}
	}
	return nil
}

// stacksFlag registers --stacks and its alias --stack on fs; what selects
// is what the command does with them, said by usage.
func stacksFlag(fs *flag.FlagSet, usage string) *stackSelection {
	var s stackSelection
	fs.Var(&s, "stacks", usage+": names comma-separated, e.g. --stacks a,b (the file's order is kept)")
	fs.Var(&s, "stack", "the same as --stacks")
	return &s
}
