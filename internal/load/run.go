package load

import (
	"context"
	"crypto/tls"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// maxDrain bounds the wait for requests in flight at the end of the window.
const maxDrain = time.Second

// run is the state shared by the workers of one Run. Everything but stop,
// failure and poolNext is written before the workers start and only read
// afterwards.
type run struct {
	cfg     Config
	tgt     target
	reqs    []wireRequest
	success [1000]bool
	open    bool
	rawWait bool // workers may block in epoll through RawSyscall (Linux)
	seconds int  // timeline length: the window in whole seconds, rounded up
	workers []*worker
	// tlsConfig is the client's TLS configuration (nil: cleartext);
	// tlsNotes what the handshakes said.
	tlsConfig *tls.Config
	tlsNotes  tlsNotes
	// h2 is true for HTTP/2 (h2c, h2, grpc); streams is the lanes per
	// connection (1 for HTTP/1.1); grpc judges answers by grpc-status.
	h2      bool
	streams int
	grpc    bool
	// protocolErr is the first HTTP/2 protocol error (under tlsNotes.mu).
	protocolErr string

	// Monotonic times (nanotime) of the run's boundaries. t0 is fixed
	// before the workers start; the others are atomics because an adaptive
	// warm-up (Config.WarmupMax) moves them while the workers run: worker 0
	// sets them once, when the warm-up's rule decides (decideWarmup).
	t0                         int64
	warmEnd, measEnd, drainEnd atomic.Int64
	// adaptive is true when the warm-up ends by the rule; warmSlices
	// counts its slices (worker 0's decisions so far), warmupEnd says how
	// it ended ("steady", "cap" or "fixed").
	adaptive    bool
	rule        WarmupRule
	warmSlices  int
	decided     bool
	warmupEnd   string
	scanEveryNs int64
	// histMax is the histograms' range: the timeout plus the whole
	// schedule, so that neither a corrected latency (open loop: from a
	// due time that may lie far back) nor an unfinished request's age is
	// clamped.
	histMax      time.Duration
	nsPerRequest float64 // open loop: schedule spacing, all workers together
	clocks       clockPair

	poolNext atomic.Uint64
	// mix is a mix's sequence (nil: the pool round-robin); routes its
	// routes, in order.
	mix      *mixPlan
	routes   []MixRoute
	flow     *compiledFlow
	stop     atomic.Bool
	failOnce sync.Once
	failure  error

	cpuStart, cpuEnd float64
	// waitStart and waitEnd are the process's threads' summed run delay
	// (runnable, waiting for a CPU) at the window's boundaries.
	waitStart, waitEnd float64
	// measured is the measured window's length when the run was stopped
	// inside it (0: the whole configured Duration was measured).
	measured      time.Duration
	measStartUnix int64
	measEndUnix   int64
	// readyUnix is when the connections were open, before the wait for
	// StartAt (0 without one).
	readyUnix int64
}

// Run loads cfg.URL as cfg says and returns what it measured. Invalid input
// returns a *ConfigError before any connection is opened. Failed requests
// are data in the Result, not errors; Run returns an error only when it
// cannot run (no sockets, cancelled context).
func Run(ctx context.Context, cfg Config) (*Result, error) {
	r, err := prepare(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer func() {
		for _, w := range r.workers {
			w.close()
		}
	}()
	stopWatch := context.AfterFunc(ctx, func() { r.stop.Store(true) })
	defer stopWatch()

	r.predial()
	if !r.cfg.StartAt.IsZero() {
		r.readyUnix = time.Now().UnixNano()
	}
	if err := waitUntil(ctx, r.cfg.StartAt); err != nil {
		return nil, err
	}
	r.schedule()
	if r.cfg.Warmup > 0 {
		r.emit(Event{Kind: WarmupStart, UnixNano: r.clocks.unixNano(r.t0)})
		if !r.adaptive {
			r.emit(Event{Kind: MeasureAt, UnixNano: r.clocks.unixNano(r.warmEnd.Load())})
		}
	}
	var wg sync.WaitGroup
	for _, w := range r.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.loop()
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return r.stopped(err)
	}
	if r.failure != nil {
		return nil, r.failure
	}
	return r.result()
}

// prepare validates cfg, resolves the target, encodes the requests and
// creates the workers.
func prepare(ctx context.Context, cfg Config) (*run, error) {
	cfg, err := withDefaults(cfg)
	if err != nil {
		return nil, err
	}
	tgt, err := resolveTarget(ctx, cfg.URL, cfg.AllowRemote)
	if err != nil {
		return nil, err
	}
	r := &run{cfg: cfg, tgt: tgt, open: cfg.Rate > 0, streams: 1}
	r.h2 = cfg.Protocol != ProtoHTTP1
	r.grpc = cfg.Protocol == ProtoGRPC
	tlsOn := cfg.TLS || tgt.url.Scheme == "https"
	if cfg.Protocol == ProtoH2C && tlsOn {
		return nil, configErrorf("protocol", "h2c is HTTP/2 in cleartext; for HTTP/2 over TLS use h2")
	}
	if r.h2 {
		r.streams = cfg.Streams
	}
	if cfg.Flow != nil {
		if err := r.prepareFlow(); err != nil {
			return nil, err
		}
	}
	if len(cfg.Mix) > 0 {
		r.routes = cfg.Mix
		r.mix, cfg.Requests = newMixPlan(cfg.Mix, cfg.Requests, cfg.Seed)
		r.cfg.Requests = cfg.Requests
	}
	if r.reqs, err = encodeRequests(cfg, tgt, tlsOn); err != nil {
		return nil, err
	}
	alpn := []string{"http/1.1"}
	if r.h2 {
		alpn = []string{"h2"}
	}
	if tlsOn {
		if r.tlsConfig, err = tlsClientConfig(cfg, tgt, alpn); err != nil {
			return nil, err
		}
	}
	r.seconds = int((cfg.Duration + time.Second - 1) / time.Second)
	if len(cfg.Expect) == 0 {
		for s := 200; s < 300; s++ {
			r.success[s] = true
		}
	}
	for _, s := range cfg.Expect {
		r.success[s] = true
	}
	r.setSuccess()
	r.scanEveryNs = int64(min(max(cfg.Timeout/20, time.Millisecond), retryBackoff))
	r.adaptive = cfg.WarmupMax > cfg.Warmup && cfg.Warmup > 0
	warmupMax := cfg.Warmup
	if r.adaptive {
		r.rule = NewWarmupRule(cfg.Warmup, cfg.WarmupMax, cfg.Connections)
		warmupMax = time.Duration(r.rule.CapSlices()) * r.rule.Slice
	}
	r.histMax = cfg.Timeout + warmupMax + cfg.Duration + maxDrain
	// One worker per core, but leave the program a spare P: then workers
	// wait in epoll through RawSyscall (see rawsys.go).
	procs := runtime.GOMAXPROCS(0)
	n := min(runtime.NumCPU(), max(procs-1, 1), cfg.Connections)
	r.rawWait = procs > n
	if r.open {
		r.nsPerRequest = 1e9 / cfg.Rate
	}
	for i := range n {
		share := cfg.Connections*(i+1)/n - cfg.Connections*i/n
		w, err := newWorker(r, i, share)
		if err == nil {
			w.initFlows(cfg.FirstUser + cfg.Connections*i/n)
		}
		if err != nil {
			for _, w := range r.workers {
				w.close()
			}
			return nil, fmt.Errorf("create load worker: %w (is the open-file limit too low? see ulimit -n)", err)
		}
		r.workers = append(r.workers, w)
	}
	return r, nil
}

// predial opens every connection before the clock starts.
func (r *run) predial() {
	deadline := nanotime() + int64(min(r.cfg.Timeout, 2*time.Second))
	var wg sync.WaitGroup
	for _, w := range r.workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.predial(deadline)
		}()
	}
	wg.Wait()
}

// schedule fixes the run's boundaries, starting now.
func (r *run) schedule() {
	r.clocks = readClocks()
	r.t0 = r.clocks.mono
	warm := r.cfg.Warmup
	r.warmupEnd = "fixed"
	if r.adaptive {
		// Until the rule decides, the window starts at the cap.
		warm = time.Duration(r.rule.CapSlices()) * r.rule.Slice
		r.warmupEnd = "cap"
	}
	r.setWarmEnd(r.t0 + int64(warm))
	if r.cfg.Warmup == 0 {
		r.cpuStart, r.waitStart = cpuSeconds(), runDelaySeconds()
		r.measStartUnix = r.clocks.unixNano(r.t0)
		r.emit(Event{Kind: MeasureStart, UnixNano: r.measStartUnix})
	}
}

// setWarmEnd sets the window's start (monotonic) and with it its end and
// the drain's. The window's end and the drain's are stored first: a worker
// that sees the new start sees them too.
func (r *run) setWarmEnd(t int64) {
	meas := t + int64(r.cfg.Duration)
	r.measEnd.Store(meas)
	r.drainEnd.Store(meas + int64(min(r.cfg.Timeout, maxDrain)))
	r.warmEnd.Store(t)
}

// sliceEnd is the monotonic end of the warm-up's k-th slice (from 1).
func (r *run) sliceEnd(k int) int64 { return r.t0 + int64(k)*int64(r.rule.Slice) }

// announceMargin is the least time between worker 0's decision and the
// window's start it announces: another worker that read the clock just
// before the decision still counts its completion in the right phase.
const announceMargin = int64(time.Millisecond)

// decideWarmup runs the warm-up's rule at the end of slice k (worker 0,
// at now): when it decides, the window starts after slice k+1 (or at
// now+announceMargin if worker 0 is that late), and MeasureAt announces
// it. counts are the completions per slice, summed over the workers.
func (r *run) decideWarmup(k int, now int64) {
	counts := make([]int64, k)
	for _, w := range r.workers {
		for i := range counts {
			counts[i] += w.warmSlices[i].Load()
		}
	}
	r.warmSlices = k
	d := r.rule.Decide(counts)
	if d == WarmupContinue {
		return
	}
	r.decided = true
	start := r.sliceEnd(k + 1)
	if cur := r.warmEnd.Load(); now >= cur {
		start = cur // worker 0 came so late that the cap's start has passed
	} else if start < now+announceMargin {
		start = now + announceMargin
	}
	if d == WarmupSteady {
		r.warmupEnd = "steady"
	} else {
		r.warmupEnd = "cap"
	}
	r.setWarmEnd(start)
	r.emit(Event{Kind: MeasureAt, UnixNano: r.clocks.unixNano(start)})
}

// intendedAt is the open loop's send time of worker w's k-th request: the
// workers' schedules interleave into one evenly spaced schedule.
func (r *run) intendedAt(w int, k int64) int64 {
	n := int64(len(r.workers))
	return r.t0 + int64(math.Round(float64(k*n+int64(w))*r.nsPerRequest))
}

// dueBefore is the number of worker w's open-loop requests due before the
// monotonic time end: the smallest k with intendedAt(w, k) >= end.
func (r *run) dueBefore(w int, end int64) int64 {
	n := float64(len(r.workers))
	k := max(int64(math.Ceil((float64(end-r.t0)/r.nsPerRequest-float64(w))/n)), 0)
	for k > 0 && r.intendedAt(w, k-1) >= end {
		k--
	}
	for r.intendedAt(w, k) < end {
		k++
	}
	return k
}

// nextRequest returns the next request of the pool, in order across all
// connections.
func (r *run) nextRequest() *wireRequest {
	if len(r.reqs) == 1 {
		return &r.reqs[0]
	}
	k := r.poolNext.Add(1) - 1
	if r.mix != nil {
		i, _ := r.mix.request(k)
		return &r.reqs[i]
	}
	return &r.reqs[k%uint64(len(r.reqs))]
}

// setSuccess gives every request its success statuses (its own Expect, or
// the run's) and, in a mix, its route. Requests with the same Expect
// share one table.
func (r *run) setSuccess() {
	tables := map[string]*[1000]bool{}
	for i := range r.reqs {
		wr := &r.reqs[i]
		wr.success = &r.success
		if i >= len(r.cfg.Requests) {
			continue
		}
		req := r.cfg.Requests[i]
		if len(req.Expect) > 0 {
			key := fmt.Sprint(req.Expect)
			t := tables[key]
			if t == nil {
				t = new([1000]bool)
				for _, s := range req.Expect {
					t[s] = true
				}
				tables[key] = t
			}
			wr.success = t
		}
		if r.mix != nil {
			wr.route = int32(slices.IndexFunc(r.routes, func(m MixRoute) bool { return m.Name == req.Route }))
		}
	}
}

// Hooks run on worker 0 at the window's boundaries: index 0 is the start of
// the window (when there was a warm-up; otherwise schedule emitted it),
// 1..seconds are the ends of its seconds, the last also its end.
func (r *run) hookTime(i int) int64 {
	switch {
	case i == 0 && r.cfg.Warmup > 0:
		return r.warmEnd.Load()
	case i == 0:
		return r.hookTime(1)
	case i <= r.seconds:
		return min(r.warmEnd.Load()+int64(i)*int64(time.Second), r.measEnd.Load())
	}
	return -1
}

func (r *run) hook(i int, now int64) {
	if i == 0 {
		if r.cfg.Warmup > 0 {
			r.cpuStart, r.waitStart = cpuSeconds(), runDelaySeconds()
			r.measStartUnix = r.clocks.unixNano(r.warmEnd.Load())
			r.emit(Event{Kind: MeasureStart, UnixNano: r.measStartUnix})
		}
		return
	}
	last := i == r.seconds
	if last {
		r.cpuEnd, r.waitEnd = cpuSeconds(), runDelaySeconds()
		r.measEndUnix = r.clocks.unixNano(r.measEnd.Load())
	}
	if r.cfg.Progress != nil {
		var ok, bad int64
		for _, w := range r.workers {
			ok += w.timeline[2*(i-1)].Load()
			bad += w.timeline[2*(i-1)+1].Load()
		}
		r.emit(Event{Kind: Tick, UnixNano: r.clocks.unixNano(now), ElapsedSeconds: i, Successes: ok, Errors: bad})
	}
	if last {
		r.emit(Event{Kind: MeasureEnd, UnixNano: r.measEndUnix})
	}
}

func (r *run) emit(e Event) {
	if r.cfg.Progress != nil {
		r.cfg.Progress(e)
	}
}

// fail stops the run with an error that is not a request's failure.
func (r *run) fail(err error) {
	r.failOnce.Do(func() {
		r.failure = fmt.Errorf("load engine: %w", err)
		r.stop.Store(true)
	})
}

// stopped ends a run whose context was cancelled (Ctrl-C). Stopped in the
// warm-up, nothing was measured: an error. Stopped inside the window, the
// window is cut where the workers stopped, so that every figure covers the
// same, shorter span and the result says Interrupted; stopped in the drain,
// the window is whole. The result comes back with a *StoppedError, so that a
// caller keeps what was measured and still knows the run did not finish.
func (r *run) stopped(cause error) (*Result, error) {
	now := nanotime()
	warmEnd, measEnd := r.warmEnd.Load(), r.measEnd.Load()
	if r.measStartUnix == 0 || now < warmEnd {
		return nil, fmt.Errorf("load run stopped during the warm-up, before anything was measured: %w", cause)
	}
	if r.cpuEnd == 0 {
		r.cpuEnd, r.waitEnd = cpuSeconds(), runDelaySeconds()
		if now < measEnd {
			r.measured = time.Duration(now - warmEnd)
			r.measEndUnix = r.clocks.unixNano(now)
		} else {
			r.measEndUnix = r.clocks.unixNano(measEnd)
		}
	}
	res, err := r.result()
	if err != nil {
		return nil, err
	}
	return res, &StoppedError{Err: cause}
}

// StoppedError is returned with a Result when the run was stopped before
// its end; Result.Interrupted says whether the measured window was cut.
type StoppedError struct{ Err error }

func (e *StoppedError) Error() string { return "load run stopped: " + e.Err.Error() }

// Unwrap returns the context's error.
func (e *StoppedError) Unwrap() error { return e.Err }

// cpuSeconds is this process's user+system CPU time so far.
func cpuSeconds() float64 {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		return math.NaN()
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// waitUntil sleeps until the wall-clock instant at (none when zero or
// past), or until ctx ends.
func waitUntil(ctx context.Context, at time.Time) error {
	if d := time.Until(at); !at.IsZero() && d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
		}
	}
	return ctx.Err()
}
