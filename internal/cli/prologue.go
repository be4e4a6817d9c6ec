package cli

import (
	"errors"
	"flag"
	"fmt"
	iofs "io/fs"
	"path/filepath"

	"github.com/stackbench/stackbench/internal/plan"
)

// prologue is how the commands that read a comparison file begin (boot,
// parity, plan, run): the file's flag (-f), no positional arguments, for
// most an output format (-o text|json), then the file loaded, the
// command's own step applied to it, and the file's warnings printed.
type prologue struct {
	fs     *flag.FlagSet
	env    Env
	file   *string
	output *string // nil for a command without -o
}

// newPrologue returns a command's FlagSet with -f registered (fileUsage) and,
// when outputUsage is not empty, -o.
func newPrologue(name, synopsis, fileUsage, outputUsage string, env Env) *prologue {
	p := &prologue{fs: newFlagSet(name, synopsis, env), env: env}
	p.file = p.fs.String("f", "stackbench.yaml", fileUsage)
	if outputUsage != "" {
		p.output = p.fs.String("o", "text", outputUsage)
	}
	return p
}

// parse parses args: flags only, and -o text or json.
func (p *prologue) parse(args []string) error {
	rest, err := parseFlags(p.fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef("unexpected argument %q; name the file with -f", rest[0])
	}
	if p.output != nil && *p.output != "text" && *p.output != "json" {
		return usagef("-o %s: write -o text or -o json", *p.output)
	}
	return nil
}

// json reports whether -o json was given.
func (p *prologue) json() bool { return p.output != nil && *p.output == "json" }

// comparison loads the file named by -f (see readComparison).
func (p *prologue) comparison(then func(*plan.File) error) (*plan.File, error) {
	return readComparison(p.env, *p.file, then)
}

// readComparison loads a comparison file (relative to env.Dir), applies
// then to it (resolving the plan, choosing the stacks; nil for nothing), and
// prints the file's warnings once both succeeded. A missing or invalid
// file, or a ConfigError from then, is a usage error whose message lists
// every problem.
func readComparison(env Env, file string, then func(*plan.File) error) (*plan.File, error) {
	f, err := plan.LoadEnv(resolvePath(env, file), env.Getenv)
	if err == nil && then != nil {
		err = then(f)
	}
	var ce *plan.ConfigError
	switch {
	case errors.As(err, &ce):
		return nil, &UsageError{Msg: ce.Error()}
	case errors.Is(err, iofs.ErrNotExist):
		return nil, &UsageError{Msg: err.Error()}
	case err != nil:
		return nil, err
	}
	for _, w := range f.Warnings {
		fmt.Fprintf(env.Stderr, "warning: %s\n", w)
	}
	return f, nil
}

// resolvePath makes a path given on the command line relative to the
// command's directory (env.Dir).
func resolvePath(env Env, p string) string {
	if filepath.IsAbs(p) || env.Dir == "" {
		return p
	}
	return filepath.Join(env.Dir, p)
}
