package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/stackbench/stackbench/internal/plan"
)

func init() {
	register(Command{Name: "init", Short: "write an annotated starter stackbench.yaml here", Order: 50, Run: runInit})
}

// runInit writes plan.StarterYAML to stackbench.yaml in the working
// directory, refusing to overwrite an existing file without --force.
func runInit(_ context.Context, args []string, env Env) error {
	fs := newFlagSet("init", "[--force]", env)
	force := fs.Bool("force", false, "overwrite an existing stackbench.yaml")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef("unexpected argument %q; init writes stackbench.yaml in the current directory", rest[0])
	}
	path := filepath.Join(env.Dir, "stackbench.yaml")
	if err := writeStarter(path, *force); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "wrote %s\nnext: edit its stacks, check it with 'stackbench plan', then 'stackbench run'\n", path)
	return nil
}

func writeStarter(path string, force bool) error {
	flags := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	if !force {
		flags = os.O_WRONLY | os.O_CREATE | os.O_EXCL
	}
	f, err := os.OpenFile(path, flags, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return usagef("%s already exists; edit it, or pass --force to replace it with the starter", path)
	}
	if err != nil {
		return fmt.Errorf("write starter file: %w", err)
	}
	if _, err := f.WriteString(plan.StarterYAML); err != nil {
		f.Close()
		return fmt.Errorf("write starter file %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write starter file %s: %w", path, err)
	}
	return nil
}
