package proc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/stackbench/stackbench/internal/netutil"
)

// healthPollInterval is the pause between two health requests during boot.
const healthPollInterval = time.Millisecond

// healthAttemptTimeout bounds one health request, so a server that accepts
// connections but never answers is retried rather than waited on forever.
const healthAttemptTimeout = 2 * time.Second

// pollHealth requests the health path until it answers 200 and returns
// the time the 200 arrived. It fails when the process exits (done is
// closed), the boot timeout passes, or ctx ends.
func pollHealth(ctx context.Context, s Spec, done <-chan struct{}, spawned time.Time) (time.Time, error) {
	ctx, cancel := context.WithDeadline(ctx, spawned.Add(s.BootTimeout))
	defer cancel()
	url := "http://127.0.0.1:" + strconv.Itoa(s.Port) + s.HealthPath
	client := healthClient()
	defer client.CloseIdleConnections()
	lastProblem := "no answer yet"
	for {
		select {
		case <-done:
			return time.Time{}, errors.New("the process exited before answering 200 on " + s.HealthPath + " (" + lastProblem + ")")
		default:
		}
		status, at, err := healthOnce(ctx, client, url)
		if status == http.StatusOK {
			return at, nil
		}
		if err != nil {
			lastProblem = "last attempt: " + err.Error()
		} else {
			lastProblem = "last answer: status " + strconv.Itoa(status)
		}
		if ctx.Err() != nil {
			if errors.Is(context.Cause(ctx), context.DeadlineExceeded) && time.Since(spawned) >= s.BootTimeout {
				return time.Time{}, fmt.Errorf("no 200 from %s within the boot timeout of %s (%s); raise boot_timeout if the stack is slow to start", url, s.BootTimeout, lastProblem)
			}
			return time.Time{}, fmt.Errorf("boot of %s interrupted: %w", url, ctx.Err())
		}
		select {
		case <-done:
		case <-ctx.Done():
		case <-time.After(healthPollInterval):
		}
	}
}

// healthClient opens a fresh connection per attempt (no idle connection to
// the stack is left behind to weigh on its first measured window) and
// follows redirects on this machine only.
func healthClient() *http.Client {
	return &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, CheckRedirect: netutil.LoopbackRedirects}
}

// healthOnce sends one GET and returns its status and when the response
// head arrived.
func healthOnce(ctx context.Context, client *http.Client, url string) (int, time.Time, error) {
	ctx, cancel := context.WithTimeout(ctx, healthAttemptTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, time.Time{}, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, time.Time{}, err
	}
	at := time.Now()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	return resp.StatusCode, at, nil
}
