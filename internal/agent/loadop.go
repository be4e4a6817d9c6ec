package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/stackbench/stackbench/internal/platform/local"
)

// LoadSpec is one load window to run on the agent's host: `stackbench
// load` with Args (the first of them "load", the rest as the local run
// passes them). To start generators on several hosts at one instant, give
// each --start-at with the instant on its host's clock: the generator
// opens its connections first, then waits for it.
type LoadSpec struct {
	Args []string `json:"args"`
	// Requests, when given, is a request pool (JSON lines, the format of
	// `stackbench load --requests`) made on the coordinator: the agent
	// writes it to a file of its own for the window and passes it as
	// --requests, so Args must not name one.
	Requests []byte `json:"requests,omitempty"`
}

// loadCommand is the generator's arguments for spec, with its request pool
// written to a temporary file; done removes the file.
func loadCommand(spec *LoadSpec) (args []string, done func(), err error) {
	if spec == nil || len(spec.Args) == 0 || spec.Args[0] != "load" {
		return nil, nil, errors.New(`agent: a load window's arguments must start with "load"`)
	}
	args = append([]string{}, spec.Args...)
	if len(spec.Requests) == 0 {
		return args, func() {}, nil
	}
	for _, a := range args {
		if a == "--requests" || strings.HasPrefix(a, "--requests=") {
			return nil, nil, errors.New("agent: a load window with a request pool must not name --requests itself")
		}
	}
	f, err := os.CreateTemp("", "stackbench-requests-*.jsonl")
	if err != nil {
		return nil, nil, fmt.Errorf("agent: request pool: %w", err)
	}
	_, werr := f.Write(spec.Requests)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		os.Remove(f.Name())
		return nil, nil, fmt.Errorf("agent: request pool: %w", werr)
	}
	// Flags go before the target URL, the last argument.
	last := len(args) - 1
	args = append(args[:last:last], "--requests", f.Name(), args[last])
	return args, func() { os.Remove(f.Name()) }, nil
}

// runLoad runs the agent's own binary as the load generator, as the local
// run does, and returns its JSON result as it printed it. Exit status 1 with a result means nothing succeeded: the
// result is still returned, as locally.
func runLoad(ctx context.Context, spec *LoadSpec) (json.RawMessage, error) {
	args, done, err := loadCommand(spec)
	if err != nil {
		return nil, err
	}
	defer done()
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("agent: find its own binary: %w", err)
	}
	cmd := exec.CommandContext(ctx, exe, args...)
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
