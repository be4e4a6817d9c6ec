package cli

import (
	"fmt"
	"io"
)

// The exit codes every command uses. A pipeline can branch on them: only
// ExitGateFailed means that what was measured failed what was asked of it.
const (
	// ExitOK: done; with --fail-on, every gated check passed.
	ExitOK = 0
	// ExitGateFailed: a gate failed (--fail-on matched a call or a
	// threshold), or a command's own check did (parity found differences,
	// no load request succeeded, no capacity was confirmed).
	ExitGateFailed = 1
	// ExitUsage: bad flags, arguments or configuration (the comparison file,
	// a results directory that is not one, a pricing file).
	ExitUsage = 2
	// ExitCannotJudge: the gate cannot judge the runs it was given (two
	// runs whose hosts differ, lack a host-speed probe, or share no
	// reference).
	ExitCannotJudge = 3
	// ExitNotMeasured: the command could not measure: the run's parity gate
	// failed, a stack never came up (build, start), the database could not
	// be made, a gated step's cell is insufficient, or any other error
	// stopped it.
	ExitNotMeasured = 4
	// ExitInterrupted: stopped by Ctrl-C (a run can be resumed).
	ExitInterrupted = 130
)

// exitCodes is the table of exit codes, as help prints it and docs/ci.md
// lists it (a test holds the two to this).
var exitCodes = []struct {
	Code    int
	Meaning string
}{
	{ExitOK, "passed: done, and every gated check passed"},
	{ExitGateFailed, "a gate failed: --fail-on matched a call or a threshold, or a command's own check failed (parity, load, capacity)"},
	{ExitUsage, "usage or configuration error: flags, arguments, the comparison file, a results directory"},
	{ExitCannotJudge, "cannot judge: two runs' hosts differ (CPU model, count, memory, kernel), lack a host-speed probe, or share no reference"},
	{ExitNotMeasured, "could not measure: parity failed, a stack never came up, a gated step's cells are insufficient, or another error stopped the command (the database, a file)"},
	{ExitInterrupted, "interrupted (Ctrl-C); a run continues with --resume"},
}

// printExitCodes writes the exit-code table for help.
func printExitCodes(w io.Writer) {
	fmt.Fprintln(w, "Exit status:")
	for _, e := range exitCodes {
		fmt.Fprintf(w, "  %3d  %s\n", e.Code, e.Meaning)
	}
}
