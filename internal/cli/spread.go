package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/stackbench/stackbench/internal/analysis"
	"github.com/stackbench/stackbench/internal/report"
)

func init() {
	register(Command{Name: "spread", Short: "measure this machine's run-to-run spread from repeated runs of one file (A/A), for report A B", Order: 72, Run: runSpread})
}

const spreadSynopsis = "DIR1 DIR2 DIR3 [DIR…] [--no-save]"

// spreadFileName is where a measured spread is kept, under the user's
// configuration directory.
const spreadFileName = "stackbench/spread.json"

// storedSpread is a measured spread as kept on disk.
type storedSpread struct {
	analysis.SpreadMeasure
	Measured time.Time `json:"measured"`
}

// spreadPath is the file a measured spread is kept in; "" when the user
// has no configuration directory.
func spreadPath(env Env) string {
	if d := env.lookup("XDG_CONFIG_HOME"); d != "" {
		return filepath.Join(d, spreadFileName)
	}
	if h := env.lookup("HOME"); h != "" {
		return filepath.Join(h, ".config", spreadFileName)
	}
	d, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, spreadFileName)
}

func runSpread(ctx context.Context, args []string, env Env) error {
	fs := newFlagSet("spread", spreadSynopsis, env)
	noSave := fs.Bool("no-save", false, "print the spread without keeping it for report A B")
	dirs, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(dirs) < analysis.MinSpreadRuns {
		return usagef("name %d or more results directories of the same file run on this machine (A/A: the same stacks every time), e.g. for i in 1 2 3; do stackbench run; done; stackbench spread results/*", analysis.MinSpreadRuns)
	}
	var ms []*report.Model
	for _, d := range dirs {
		res, err := readResults(resolvePath(env, d))
		if err != nil {
			return err
		}
		m, err := report.FromResults(res, report.BuildOptions{})
		if err != nil {
			return err
		}
		ms = append(ms, m)
	}
	sm, err := report.BetweenRunSpread(ms)
	var other *report.OtherStacksError
	if errors.As(err, &other) {
		return usagef("%s ran other stacks than %s (their names, builds, starts or revisions differ): a spread is measured on repeated runs of the same stacks", dirs[other.Index], dirs[0])
	}
	if err != nil {
		return err
	}
	for _, line := range report.SpreadLines(sm) {
		fmt.Fprintln(env.Stdout, line)
	}
	if *noSave {
		return nil
	}
	path := spreadPath(env)
	if path == "" {
		return errors.New("no configuration directory to keep the spread in: set XDG_CONFIG_HOME or HOME, or pass the figure to report A B with --between-run")
	}
	data, err := json.MarshalIndent(storedSpread{SpreadMeasure: sm, Measured: time.Now().UTC()}, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("keep the spread: %w", err)
	}
	if err := os.WriteFile(path, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("keep the spread: %w", err)
	}
	fmt.Fprintf(env.Stdout, "kept in %s: report A B on this machine uses it instead of the assumed 3 %%\n", path)
	return nil
}

// measuredSpread is the spread kept for the host the runs ran on; ok is
// false when none is kept, it cannot be read, or it was measured on
// another machine.
func measuredSpread(env Env, h analysis.Host) (storedSpread, bool) {
	path := spreadPath(env)
	if path == "" {
		return storedSpread{}, false
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) || err != nil {
		return storedSpread{}, false
	}
	var s storedSpread
	if json.Unmarshal(data, &s) != nil || s.ThroughputSD <= 0 {
		return storedSpread{}, false
	}
	if !s.Host.SameMachine(h) {
		return storedSpread{}, false
	}
	return s, true
}
