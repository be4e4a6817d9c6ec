package run

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"time"

	"github.com/stackbench/stackbench/internal/cpuset"
	"github.com/stackbench/stackbench/internal/load"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/platform/local"
	"github.com/stackbench/stackbench/internal/stack"
	"github.com/stackbench/stackbench/internal/workload"
)

// loadRun is one `stackbench load` child process.
type loadRun struct {
	cmd    *exec.Cmd
	events *os.File // read end of the events pipe
	stdout bytes.Buffer
	stderr bytes.Buffer
}

// loadArgs builds the command line for one window of a case over HTTP/1.1
// in cleartext: the case's request, or the request pool in poolFile when
// one is given.
func loadArgs(baseURL string, c workload.Case, poolFile string, conc int, warmup warmupSpan, window, timeout time.Duration) []string {
	return loadArgsAt(baseURL, c, poolFile, loadWire{}, conc, 0, warmup, window, timeout)
}

// loadWire is how a window's generator reaches its stack (the stack's
// plan.Wire) and the files that go with it.
type loadWire struct {
	wire plan.Wire
	// caFile is the run's throwaway CA (stack.TLSFiles) for a stack with
	// TLS; proto the stack's descriptors file ("" with reflection).
	caFile, proto string
	// messages is a pool file of a gRPC case's messages, one JSON
	// message a line ("" sends the case's one message), metadata the
	// file of their metadata, one JSON object a line ("": none).
	messages, metadata string
}

// loadArgsAt is the command line for one window of a case on a stack
// reached as lw says, at an open-loop rate in requests per second (0:
// closed loop; conc then being the most requests in flight, as in a
// capacity probe): loadFlags, with the result and the events as the
// harness reads them here.
func loadArgsAt(baseURL string, c workload.Case, poolFile string, lw loadWire, conc int, rateRPS float64, warmup warmupSpan, window, timeout time.Duration) []string {
	f, url := loadFlags(baseURL, c, poolFile, lw, conc, rateRPS, warmup, window, timeout)
	f.Output, f.EventsFD = "json", loadEventsFD
	return append([]string{"load"}, f.Args(url)...)
}

// loadFlags are the generator's flags and target for one window of a case
// on a stack reached as lw says, at an open-loop rate in requests per
// second (0: closed loop). baseURL is the stack's scheme, address and
// port. An HTTP case sends its request, or the request pool in poolFile
// when one is given; on a gRPC stack it sends the case's gRPC call, with
// the descriptors of lw.proto or by server reflection when it is "".
func loadFlags(baseURL string, c workload.Case, poolFile string, lw loadWire, conc int, rateRPS float64, warmup warmupSpan, window, timeout time.Duration) (load.Flags, string) {
	cfg := c.LoadConfig(baseURL)
	if lw.wire.GRPC() {
		// A call succeeds on grpc-status 0 alone; the case's HTTP
		// request and statuses are not the gRPC stack's.
		cfg = load.Config{URL: baseURL + "/", Method: "POST"}
	}
	cfg.Connections, cfg.Duration, cfg.Warmup, cfg.Timeout = conc, window, warmup.floor, timeout
	if warmup.max > warmup.floor {
		cfg.WarmupMax = warmup.max
	}
	cfg.Rate = rateRPS
	if p := lw.wire.ProtocolOf(); p != load.ProtoHTTP1 && p != load.ProtoGRPC {
		cfg.Protocol = p
	}
	cfg.Streams = lw.wire.Streams
	cfg.TLS = lw.wire.TLS
	f := load.FlagsOf(cfg)
	f.CACert = lw.caFile
	url := cfg.URL
	switch {
	case lw.wire.GRPC():
		f.Method = ""
		f.GRPC, f.Proto, f.Reflect = c.GRPC.Method, lw.proto, lw.proto == ""
		if lw.messages != "" {
			f.Messages = lw.messages
		} else {
			f.Message = c.GRPC.Message
		}
		// Metadata goes in a file (requestPools.grpcFiles), never on
		// the command line, where ps shows it to every user of the host.
		f.Metadata = lw.metadata
	case poolFile != "" && c.IsFlow():
		f.Method, f.Headers, f.Body, f.Expect = "", nil, "", ""
		f.Flow, url = poolFile, baseURL
	case poolFile != "":
		f.Method, f.Headers, f.Body = "", nil, ""
		f.Requests, url = poolFile, baseURL
		if c.IsMix() {
			// Each pool line carries its route's statuses.
			f.Expect = ""
			f.Mix, f.Seed = load.FormatMix(mixRoutes(c)), c.MixSeed
		}
	}
	return f, url
}

// loadWireOf is the wire a window on cur's stack is driven over, writing
// the gRPC case's message pool when it is templated.
func (r siteParts) loadWireOf(cur *server, c workload.Case) (loadWire, error) {
	st := cur.stack
	lw := loadWire{wire: st.Wire, proto: st.ProtoFile()}
	if st.Wire.TLS {
		ca, err := stack.TLSFiles(logsDir(r.opt.Dir))
		if err != nil {
			return lw, err
		}
		lw.caFile = ca.CAFile
	}
	if st.Wire.GRPC() {
		var err error
		if lw.messages, lw.metadata, err = r.pools.grpcFiles(cur, c); err != nil {
			return lw, err
		}
	}
	return lw, nil
}

// baseURL is the address the generator reaches cur at on this machine.
func baseURL(cur *server) string {
	return cur.stack.BaseURL(net.JoinHostPort("127.0.0.1", strconv.Itoa(cur.tree.Port())))
}

// loadEventsFD is the generator's descriptor for its events: the first of
// cmd.ExtraFiles.
const loadEventsFD = 3

// startLoad starts the generator as its own process (in its own process
// group, killed if the harness dies) so the OS accounts for its CPU apart
// from the harness's, and it could later run on another machine. cpus is
// its lane under placement: lanes, set at spawn (empty: the harness's mask).
func startLoad(exe string, args []string, cpus cpuset.Set) (*loadRun, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("events pipe: %w", err)
	}
	lr := &loadRun{events: r}
	lr.cmd = exec.Command(exe, args...)
	lr.cmd.Stdout = &lr.stdout
	lr.cmd.Stderr = &lr.stderr
	lr.cmd.ExtraFiles = []*os.File{w}
	local.Group(lr.cmd)
	if err := local.Start(lr.cmd, cpus); err != nil {
		r.Close()
		w.Close()
		return nil, fmt.Errorf("start load generator %s: %w", exe, err)
	}
	w.Close() // the child holds its copy; EOF on r when it exits
	return lr, nil
}

// follow reads events until the child closes the pipe, calling on for each.
func (lr *loadRun) follow(on func(load.Event)) {
	sc := bufio.NewScanner(lr.events)
	for sc.Scan() {
		var ev load.Event
		if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.Kind != "" {
			on(ev)
		}
	}
	lr.events.Close()
}

// kill stops the generator at once.
func (lr *loadRun) kill() {
	if lr.cmd.Process != nil {
		local.KillGroup(lr.cmd.Process.Pid)
	}
}

// wait waits for the generator and decodes its result. Exit status 1 with a
// result on stdout means nothing succeeded: the result is still returned.
func (lr *loadRun) wait(ctx context.Context) (*load.Result, error) {
	done := make(chan error, 1)
	go func() { done <- lr.cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		lr.kill()
		<-done
		return nil, ctx.Err()
	}
	var res load.Result
	if jerr := json.Unmarshal(lr.stdout.Bytes(), &res); jerr != nil || res.SchemaVersion == 0 {
		msg := bytes.TrimSpace(lr.stderr.Bytes())
		if len(msg) > 800 {
			msg = msg[len(msg)-800:]
		}
		if err == nil {
			err = errors.New("no result on stdout")
		}
		return nil, fmt.Errorf("load generator failed (%v): %s", err, msg)
	}
	return &res, nil
}

// mixRoutes are a mix case's routes as the generator takes them.
func mixRoutes(c workload.Case) []load.MixRoute {
	out := make([]load.MixRoute, len(c.Mix))
	for i, m := range c.Mix {
		out[i] = load.MixRoute{Name: m.Case, Weight: m.Weight}
	}
	return out
}
