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
	"strconv"
	"syscall"
	"time"

	"github.com/stackbench/stackbench/internal/load"
	"github.com/stackbench/stackbench/internal/workload"
)

// loadEvent is one line of `stackbench load --events-fd`.
type loadEvent struct {
	Event     string  `json:"event"`
	UnixNano  int64   `json:"unix_ns"`
	ElapsedS  float64 `json:"elapsed_s"`
	Successes int64   `json:"successes"`
	Errors    int64   `json:"errors"`
}

// loadRun is one `stackbench load` child process.
type loadRun struct {
	cmd    *exec.Cmd
	events *os.File // read end of the events pipe
	stdout bytes.Buffer
	stderr bytes.Buffer
}

// loadArgs builds the command line for one window of a case.
func loadArgs(baseURL string, c workload.Case, poolFile string, conc int, warmup, window, timeout time.Duration) []string {
	args := []string{"load",
		"-c", strconv.Itoa(conc),
		"-d", window.String(),
		"--warmup", warmup.String(),
		"-t", timeout.String(),
		"-o", "json",
		"--events-fd", "3",
	}
	for _, s := range c.Expect {
		args = append(args, "--expect", strconv.Itoa(s))
	}
	if poolFile != "" {
		args = append(args, "--requests", poolFile)
		return append(args, baseURL)
	}
	args = append(args, "-m", c.Method)
	for _, h := range c.Header {
		args = append(args, "-H", h.Name+": "+h.Value)
	}
	if len(c.Body) > 0 {
		args = append(args, "-b", string(c.Body))
	}
	return append(args, baseURL+c.Path)
}

// startLoad starts the generator as its own process (in its own process
// group, killed if the harness dies) so the OS accounts for its CPU apart
// from the harness's, and it could later run on another machine.
func startLoad(exe string, args []string) (*loadRun, error) {
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
	if err := lr.cmd.Start(); err != nil {
		r.Close()
		w.Close()
		return nil, fmt.Errorf("start load generator %s: %w", exe, err)
	}
	w.Close() // the child holds its copy; EOF on r when it exits
	return lr, nil
}

// follow reads events until the child closes the pipe, calling on for each.
func (lr *loadRun) follow(on func(loadEvent)) {
	sc := bufio.NewScanner(lr.events)
	for sc.Scan() {
		var ev loadEvent
		if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.Event != "" {
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
