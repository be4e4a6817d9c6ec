// Package boot is the cold-start suite: it starts each stack many times
// and measures, on every fresh process, spawn → first 200 on the health
// path, the latency of the first request to a database route, and the
// idle memory of the process tree 500 ms after the first 200.
//
// Every stack gets one unmeasured start first, which warms the file cache
// so the first measured start is not the only one that reads the binary
// from disk. The measured starts then run in rounds; each round starts
// every stack once, in a balanced (Williams) order, so that over a cycle of
// rounds every stack goes first equally often and right after every other
// stack equally often (a drift in the machine's state, or what the
// previous start left behind, spreads over all stacks). Run returns plain data; the
// command prints it.
package boot

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/stackbench/stackbench/internal/netutil"
	"github.com/stackbench/stackbench/internal/proc"
	"github.com/stackbench/stackbench/internal/stack"
	"github.com/stackbench/stackbench/internal/stats"
	"github.com/stackbench/stackbench/internal/workload"
)

// DefaultStarts is the number of measured cold starts per stack.
const DefaultStarts = 10

// IdleDelay is how long after the first 200 the idle RSS is read.
const IdleDelay = 500 * time.Millisecond

// Stack is one stack to cold-start, as internal/stack describes it from
// the plan (stack.BootStacks).
type Stack = stack.BootTarget

// Options configures Run.
type Options struct {
	// Starts is the number of measured starts per stack; 0 means DefaultStarts.
	Starts int
	// Request is the first request sent to each fresh process, normally a
	// database route (see FirstRequestCase).
	Request     workload.Case
	BootTimeout time.Duration // per start; 0 means 60 s
	StopGrace   time.Duration // SIGTERM → SIGKILL; 0 means 5 s
	// RequestTimeout bounds the first request; 0 means 60 s.
	RequestTimeout time.Duration
	// Progress, when set, receives one line per start.
	Progress func(line string)
}

// Start is one measured cold start.
type Start struct {
	Stack string `json:"stack"`
	// Seq is the start's position among all measured starts, from 0.
	Seq   int `json:"seq"`
	Round int `json:"round"`
	// Boot is spawn → first 200 on the health path.
	Boot time.Duration `json:"boot_ns"`
	// FirstRequest is the latency of Options.Request on the fresh process,
	// a new connection included; FirstStatus its status (0 on a transport
	// error, described in FirstError).
	FirstRequest time.Duration `json:"first_request_ns"`
	FirstStatus  int           `json:"first_status"`
	FirstOK      bool          `json:"first_ok"`
	FirstError   string        `json:"first_error,omitempty"`
	// IdleRSSBytes is the RSS of the process tree IdleDelay after the first
	// 200, summed over its processes.
	IdleRSSBytes int64 `json:"idle_rss_bytes"`
}

// Result is the whole suite.
type Result struct {
	// Case is the name of the first request's case.
	Case   string    `json:"case"`
	Starts []Start   `json:"starts"`
	Stacks []Summary `json:"stacks"`
}

// Order returns the order of the measured starts: round r (from 0) starts
// the stacks in Williams sequence r (stats.WilliamsSequence), so that over
// a cycle of rounds every stack comes first equally often and right after
// every other stack equally often.
func Order(stacks, rounds int) [][]int {
	order := make([][]int, rounds)
	for r := range order {
		order[r] = stats.WilliamsSequence(stacks, r)
	}
	return order
}

// StartError is the error of Run when a stack could not start: it ends the
// suite, and the Result holds the starts measured before it.
type StartError struct {
	Stack string
	Err   error
}

func (e *StartError) Error() string { return e.Err.Error() }

// Unwrap returns the start's own error.
func (e *StartError) Unwrap() error { return e.Err }

// Run runs the suite. A stack that cannot start is a *StartError that ends
// the suite; a first request that fails is data (FirstOK false).
func Run(ctx context.Context, stacks []Stack, opt Options) (Result, error) {
	opt = withDefaults(opt)
	res := Result{Case: opt.Request.Name}
	for _, s := range stacks {
		if _, err := coldStart(ctx, s, opt, true); err != nil {
			return res, &StartError{Stack: s.Name, Err: fmt.Errorf("unmeasured first start of %q: %w", s.Name, err)}
		}
		opt.progress("%s: warm-up start done", s.Name)
	}
	for r, round := range Order(len(stacks), opt.Starts) {
		for _, i := range round {
			st, err := coldStart(ctx, stacks[i], opt, false)
			if err != nil {
				return res, &StartError{Stack: stacks[i].Name, Err: fmt.Errorf("cold start %d of %q: %w", r+1, stacks[i].Name, err)}
			}
			st.Seq, st.Round = len(res.Starts), r
			res.Starts = append(res.Starts, st)
			opt.progress("%s: start %d/%d: boot %s, first %s %s → %d in %s, idle RSS %.1f MiB", st.Stack, r+1, opt.Starts,
				st.Boot.Round(time.Microsecond), opt.Request.Method, opt.Request.Path, st.FirstStatus,
				st.FirstRequest.Round(time.Microsecond), float64(st.IdleRSSBytes)/(1<<20))
		}
	}
	res.Stacks = Summarize(stacks, res.Starts)
	return res, nil
}

func withDefaults(opt Options) Options {
	if opt.Starts <= 0 {
		opt.Starts = DefaultStarts
	}
	if opt.BootTimeout <= 0 {
		opt.BootTimeout = 60 * time.Second
	}
	if opt.StopGrace <= 0 {
		opt.StopGrace = 5 * time.Second
	}
	if opt.RequestTimeout <= 0 {
		opt.RequestTimeout = 60 * time.Second
	}
	return opt
}

func (opt Options) progress(format string, a ...any) {
	if opt.Progress != nil {
		opt.Progress(fmt.Sprintf(format, a...))
	}
}

// coldStart starts a fresh process of s, measures it and stops it; on
// the unmeasured first start (warm) it runs s.Setup first.
func coldStart(ctx context.Context, s Stack, opt Options, warm bool) (Start, error) {
	port, err := netutil.FreePort()
	if err != nil {
		return Start{}, err
	}
	p, err := proc.Start(ctx, proc.Spec{
		Name:           s.Name,
		Dir:            s.Dir,
		Command:        s.Command,
		Env:            append(append([]string(nil), s.Env...), "PORT="+strconv.Itoa(port)),
		Port:           port,
		HealthPath:     s.HealthPath,
		HealthProtocol: s.Protocol,
		HealthCA:       s.CA,
		LogPath:        s.LogPath,
		BootTimeout:    opt.BootTimeout,
		CPUs:           s.CPUs,
		Container:      s.Container.Fresh(),
	})
	if err != nil {
		return Start{}, err
	}
	st := Start{Stack: s.Name, Boot: p.BootDuration()}
	if warm && s.Setup != nil {
		if err := s.Setup(ctx, port); err != nil {
			p.Stop(opt.StopGrace)
			return st, fmt.Errorf("the setup steps: %w", err)
		}
	}
	if s.FirstRequest != nil {
		rctx, cancel := context.WithTimeout(ctx, opt.RequestTimeout)
		st.FirstRequest, st.FirstStatus, err = s.FirstRequest(rctx, port)
		cancel()
	} else {
		var body []byte
		st.FirstRequest, st.FirstStatus, body, err = firstRequest(ctx, s, port, opt.Request, opt.RequestTimeout)
		if err == nil && !expected(opt.Request, st.FirstStatus) {
			st.FirstError = unexpected(s, opt.Request, st.FirstStatus, body)
		}
	}
	if err != nil {
		st.FirstError = err.Error()
	}
	st.FirstOK = err == nil && expected(opt.Request, st.FirstStatus)
	if wait := time.Until(p.ReadyAt().Add(IdleDelay)); wait > 0 {
		select {
		case <-ctx.Done():
		case <-time.After(wait):
		}
	}
	st.IdleRSSBytes = p.RSSBytes()
	checkErr := p.Check()
	if err := p.Stop(opt.StopGrace); err != nil {
		return st, err
	}
	if checkErr != nil {
		return st, checkErr
	}
	return st, ctx.Err()
}

// firstRequest sends c once over a new connection and returns its latency,
// up to the last byte of the body, its status and the body's first
// bodyShown bytes.
func firstRequest(ctx context.Context, s Stack, port int, c workload.Case, timeout time.Duration) (time.Duration, int, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tr, scheme, err := transportFor(s)
	if err != nil {
		return 0, 0, nil, err
	}
	path := c.Path
	if s.Path != "" {
		path = s.Path // the stack's own URL for the case
	}
	req, err := http.NewRequestWithContext(ctx, c.Method, scheme+"://127.0.0.1:"+strconv.Itoa(port)+s.Base+path, bytes.NewReader(c.Body))
	if err != nil {
		return 0, 0, nil, err
	}
	for _, h := range c.Header {
		req.Header.Add(h.Name, h.Value)
	}
	defer tr.CloseIdleConnections()
	t0 := time.Now()
	resp, err := tr.RoundTrip(req)
	if err != nil {
		return time.Since(t0), 0, nil, err
	}
	head := make([]byte, bodyShown)
	n, _ := io.ReadFull(resp.Body, head)
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return time.Since(t0), resp.StatusCode, head[:n], err
}

// bodyShown is how much of an unexpected answer's body a start keeps.
const bodyShown = 200

// unexpected says which first request got which unexpected answer:
// "GET /api/articles/x answered 404, not 200: {"error":…}".
func unexpected(s Stack, c workload.Case, status int, body []byte) string {
	msg := fmt.Sprintf("%s %s answered %d, not %s", c.Method, s.Base+c.Path, status, statusList(c.Expect))
	if text := strings.TrimSpace(strings.ToValidUTF8(string(body), "?")); text != "" {
		msg += ": " + text
		if len(body) == bodyShown {
			msg += "…"
		}
	}
	return msg
}

func statusList(codes []int) string {
	var out []string
	for _, c := range codes {
		out = append(out, strconv.Itoa(c))
	}
	return strings.Join(out, " or ")
}

// transportFor is a one-connection client transport for s's wire, and
// the URL scheme: HTTP/1.1 or HTTP/2 (prior knowledge in cleartext, ALPN
// over TLS), over TLS trusting s.CA when it is set.
func transportFor(s Stack) (*http.Transport, string, error) {
	tr := &http.Transport{DisableKeepAlives: true}
	scheme := "http"
	if s.CA != nil {
		roots := x509.NewCertPool()
		if !roots.AppendCertsFromPEM(s.CA) {
			return nil, "", fmt.Errorf("stack %s: its CA holds no PEM certificate", s.Name)
		}
		tr.TLSClientConfig = &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}
		scheme = "https"
	}
	switch s.Protocol {
	case "", "http1":
	case "h2c", "h2":
		var p http.Protocols
		if s.CA != nil {
			p.SetHTTP2(true)
			tr.ForceAttemptHTTP2 = true
		} else {
			p.SetUnencryptedHTTP2(true)
		}
		tr.Protocols = &p
	default:
		return nil, "", fmt.Errorf("stack %s: the boot suite asks over http1, h2c or h2, not %s", s.Name, s.Protocol)
	}
	return tr, scheme, nil
}

func expected(c workload.Case, status int) bool {
	for _, s := range c.Expect {
		if s == status {
			return true
		}
	}
	return false
}

// FirstRequestCase picks the first request of the suite from a workload:
// the case "user" when there is one (a single-row read by primary key),
// else its first database case, else its first case. A templated case
// (its request comes from setup captures, which a cold start has not run)
// is never picked. ok is false for a workload without such a case.
func FirstRequestCase(w *workload.Workload) (workload.Case, bool) {
	if c, ok := w.Case("user"); ok && c.Database && !c.Templated && c.HasHTTP() {
		return c, true
	}
	for _, c := range w.Cases {
		if c.Database && !c.Templated && c.HasHTTP() {
			return c, true
		}
	}
	for _, c := range w.Cases {
		if !c.Templated && c.HasHTTP() {
			return c, true
		}
	}
	return workload.Case{}, false
}
