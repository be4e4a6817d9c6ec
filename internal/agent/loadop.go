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
//
// The files a window needs are sent with it, made on the coordinator: the
// agent writes each given one to a file of its own for the window and
// passes it with its flag, so Args must not name that flag.
type LoadSpec struct {
	Args []string `json:"args"`
	// Requests is a request pool (JSON lines, the format of `stackbench
	// load --requests`): --requests.
	Requests []byte `json:"requests,omitempty"`
	// Messages is a gRPC case's pool of request messages (one JSON
	// message a line): --messages (new in version 3).
	Messages []byte `json:"messages,omitempty"`
	// Metadata is the gRPC metadata of those messages (one JSON object
	// a line, line k with message k): --metadata (new in version 4).
	Metadata []byte `json:"metadata,omitempty"`
	// CACert is the certificate authority (PEM) the target's certificate
	// chains to, the run's throwaway one: --cacert (new in version 3).
	CACert []byte `json:"ca_cert,omitempty"`
	// Descriptors are a gRPC service's descriptors as a serialized
	// FileDescriptorSet, its imports included (resolved on the
	// coordinator from a .proto file or by server reflection): --proto
	// (new in version 3).
	Descriptors []byte `json:"descriptors,omitempty"`
	// Flow is a flow case's flow as JSON (the format of `stackbench load
	// --flow`): --flow (new in version 6). Each generator runs its share
	// of the users, numbered from its Args' --first-user.
	Flow []byte `json:"flow,omitempty"`
}

// Size is the bytes of files the spec carries.
func (s LoadSpec) Size() int {
	return len(s.Requests) + len(s.Messages) + len(s.Metadata) + len(s.CACert) + len(s.Descriptors) + len(s.Flow)
}

// loadFile is one file a LoadSpec carries: its content, the flag that
// names it and the pattern of its temporary name.
type loadFile struct {
	data          []byte
	flag, pattern string
}

func (spec *LoadSpec) files() []loadFile {
	return []loadFile{
		{spec.Requests, "--requests", "stackbench-requests-*.jsonl"},
		{spec.Messages, "--messages", "stackbench-messages-*.jsonl"},
		{spec.Metadata, "--metadata", "stackbench-metadata-*.jsonl"},
		{spec.CACert, "--cacert", "stackbench-ca-*.pem"},
		// .pb: `load --proto` reads a descriptor set by that name.
		{spec.Descriptors, "--proto", "stackbench-descriptors-*.pb"},
		{spec.Flow, "--flow", "stackbench-flow-*.json"},
	}
}

// loadCommand is the generator's arguments for spec, with the files it
// carries written to temporary files of the agent's (mode 0600); done
// removes them.
func loadCommand(spec *LoadSpec) (args []string, done func(), err error) {
	if spec == nil || len(spec.Args) == 0 || spec.Args[0] != "load" {
		return nil, nil, errors.New(`agent: a load window's arguments must start with "load"`)
	}
	args = append([]string{}, spec.Args...)
	var extra, written []string
	done = func() {
		for _, f := range written {
			os.Remove(f)
		}
	}
	for _, lf := range spec.files() {
		if len(lf.data) == 0 {
			continue
		}
		for _, a := range args {
			if a == lf.flag || strings.HasPrefix(a, lf.flag+"=") {
				done()
				return nil, nil, fmt.Errorf("agent: a load window that carries the file of %s must not name %s itself", lf.flag, lf.flag)
			}
		}
		path, err := writeTemp(lf.pattern, lf.data)
		if err != nil {
			done()
			return nil, nil, fmt.Errorf("agent: the file of %s: %w", lf.flag, err)
		}
		written = append(written, path)
		extra = append(extra, lf.flag, path)
	}
	if len(extra) == 0 {
		return args, done, nil
	}
	// Flags go before the target URL, the last argument.
	last := len(args) - 1
	args = append(append(args[:last:last], extra...), args[last])
	return args, done, nil
}

// writeTemp writes data to a new temporary file (os.CreateTemp: mode
// 0600) named after pattern, and returns its path.
func writeTemp(pattern string, data []byte) (string, error) {
	f, err := os.CreateTemp("", pattern)
	if err != nil {
		return "", err
	}
	_, werr := f.Write(data)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		os.Remove(f.Name())
		return "", werr
	}
	return f.Name(), nil
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
