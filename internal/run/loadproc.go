package run

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/stackbench/stackbench/internal/cpuset"
	"github.com/stackbench/stackbench/internal/load"
	"github.com/stackbench/stackbench/internal/workload"
)

// loadRun is one `stackbench load` child process.
type loadRun struct {
	cmd    *exec.Cmd
	events *os.File // read end of the events pipe
	stdout bytes.Buffer
	stderr bytes.Buffer
}

// loadArgs builds the command line for one window of a case: the case's
// request, or the request pool in poolFile when one is given.
func loadArgs(baseURL string, c workload.Case, poolFile string, conc int, warmup warmupSpan, window, timeout time.Duration) []string {
	return loadArgsAt(baseURL, c, poolFile, conc, 0, warmup, window, timeout)
}

// loadArgsAt is loadArgs at an open-loop rate in requests per second (0:
// closed loop), conc then being the most requests in flight: a capacity
// probe's command line.
func loadArgsAt(baseURL string, c workload.Case, poolFile string, conc int, rateRPS float64, warmup warmupSpan, window, timeout time.Duration) []string {
	cfg := c.LoadConfig(baseURL)
	cfg.Connections, cfg.Duration, cfg.Warmup, cfg.Timeout = conc, window, warmup.floor, timeout
	if warmup.max > warmup.floor {
		cfg.WarmupMax = warmup.max
	}
	cfg.Rate = rateRPS
	f := load.FlagsOf(cfg)
	f.Output, f.EventsFD = "json", loadEventsFD
	url := cfg.URL
	if poolFile != "" {
		f.Method, f.Headers, f.Body = "", nil, ""
		f.Requests, url = poolFile, baseURL
	}
	return append([]string{"load"}, f.Args(url)...)
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
	lr.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cpuset.Start(lr.cmd, cpus); err != nil {
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
		syscall.Kill(-lr.cmd.Process.Pid, syscall.SIGKILL)
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
