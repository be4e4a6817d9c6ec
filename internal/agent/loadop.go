package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"

	"github.com/stackbench/stackbench/internal/platform/local"
)

// LoadSpec is one load window to run on the agent's host: `stackbench
// load` with Args (the first of them "load", the rest as the local run
// passes them). To start generators on several hosts at one instant, give
// each --start-at with the instant on its host's clock: the generator
// opens its connections first, then waits for it.
type LoadSpec struct {
	Args []string `json:"args"`
}

// runLoad runs the agent's own binary as the load generator, as the local
// run does, and returns its JSON result as it printed it. Exit status 1 with a result means nothing succeeded: the
// result is still returned, as locally.
func runLoad(ctx context.Context, spec *LoadSpec) (json.RawMessage, error) {
	if spec == nil || len(spec.Args) == 0 || spec.Args[0] != "load" {
		return nil, errors.New(`agent: a load window's arguments must start with "load"`)
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("agent: find its own binary: %w", err)
	}
	cmd := exec.CommandContext(ctx, exe, spec.Args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	local.Group(cmd)
	local.CancelGroup(cmd)
	runErr := local.Run(cmd)
	out := bytes.TrimSpace(stdout.Bytes())
	if len(out) == 0 || !json.Valid(out) {
		msg := bytes.TrimSpace(stderr.Bytes())
		if len(msg) > 800 {
			msg = msg[len(msg)-800:]
		}
		if runErr == nil {
			runErr = errors.New("no result on stdout")
		}
		return nil, fmt.Errorf("load generator failed (%v): %s", runErr, msg)
	}
	return json.RawMessage(out), nil
}
