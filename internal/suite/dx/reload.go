package dx

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/stackbench/stackbench/internal/netutil"
	"github.com/stackbench/stackbench/internal/proc"
)

// PollInterval is the pause between two requests while waiting for the
// edited answer.
const PollInterval = time.Millisecond

// stopGrace is how long a watch-mode server gets after SIGTERM.
const stopGrace = 5 * time.Second

// MeasureReload starts t's watch-mode command, reads the answer on the
// reload path, edits the file and polls the path until the answer (status
// and body) differs, and returns the time from just before the write to
// that answer. The file is restored when it returns, whatever happens
// (cancellation and panics included), and the server is stopped.
func MeasureReload(ctx context.Context, t Target, logPath string) (d time.Duration, err error) {
	r := t.Reload
	port, err := netutil.FreePort()
	if err != nil {
		return 0, err
	}
	p, err := proc.Start(ctx, proc.Spec{
		Name: t.Name, Dir: t.Dir, Command: r.Start,
		Env:  append(append([]string(nil), t.Env...), "PORT="+strconv.Itoa(port)),
		Port: port, HealthPath: r.HealthPath, LogPath: logPath, BootTimeout: r.BootTimeout,
	})
	if err != nil {
		return 0, err
	}
	defer func() {
		if serr := p.Stop(stopGrace); serr != nil && err == nil {
			err = serr
		}
	}()
	url := "http://127.0.0.1:" + strconv.Itoa(port) + r.Path
	client := &http.Client{Timeout: time.Second, Transport: &http.Transport{DisableKeepAlives: true}, CheckRedirect: netutil.LoopbackRedirects}
	before, err := answer(ctx, client, url)
	if err != nil {
		return 0, fmt.Errorf("GET %s before the edit: %w", r.Path, err)
	}
	start := time.Now()
	e, err := ApplyEdit(r.File, r.Find, r.Replace)
	if err != nil {
		return 0, err
	}
	defer func() {
		if rerr := e.Restore(); rerr != nil {
			err = fmt.Errorf("%w: put the file back by hand (error before it: %v)", rerr, err)
		}
	}()
	d, err = waitChange(ctx, client, url, before, start, r.Timeout)
	if err != nil {
		return 0, fmt.Errorf("%w\n%s", err, p.LogTail())
	}
	return d, nil
}

// waitChange polls url until its answer differs from before and returns
// the time since start.
func waitChange(ctx context.Context, client *http.Client, url, before string, start time.Time, timeout time.Duration) (time.Duration, error) {
	deadline := start.Add(timeout)
	for {
		got, err := answer(ctx, client, url)
		if err == nil && got != before {
			return time.Since(start), nil
		}
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("the answer on %s did not change within %s of the edit; check that the start command watches the edited file and that the edit changes that route's answer", url, timeout)
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(PollInterval):
		}
	}
}

// answer is a route's status and body as one string; a transport error
// (the server restarting) is an error, not an answer.
func answer(ctx context.Context, client *http.Client, url string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return "", err
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	if _, err := io.Copy(&b, resp.Body); err != nil {
		return "", err
	}
	return strconv.Itoa(resp.StatusCode) + "\n" + b.String(), nil
}
