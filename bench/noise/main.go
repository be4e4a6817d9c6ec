// Command noise measures where a step's paired noise comes from on this
// machine. It measures the same two stacks of the demo under designs that
// each vary one factor — a fresh process per pair or the same one, 1 s or
// 3 s windows, closed loop or a fixed offered rate, one after the other,
// at the same instant (duet) or in alternating slices — and prints, per
// design, the paired noise of each metric: the robust standard deviation
// of the per-pair log-ratio B ÷ A (1.4826 × its median absolute
// deviation), the plain one, the two sides' correlation, and each side's
// own robust spread (docs/methodology.md, "Where a step's paired noise
// comes from").
//
//	go run ./bench/noise                                  # every design, case user, 12 pairs
//	go run ./bench/noise -case list -pairs 16 -designs seq-fresh,duet-rate
//	go run ./bench/noise -a nethttp-pgx -b nethttp-pgx    # A/A: the same build twice
//
// It starts its own embedded PostgreSQL (seeded as for a run), builds the
// two stacks under apps/, gives each its own copy of the seeded database,
// and drives them with the load engine in this process. Nothing is
// journaled: this is a bench, not a run. -o FILE writes every window.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/stackbench/stackbench/internal/load"
	"github.com/stackbench/stackbench/internal/netutil"
	"github.com/stackbench/stackbench/internal/proc"
	"github.com/stackbench/stackbench/internal/stack"
	"github.com/stackbench/stackbench/internal/stats"
	"github.com/stackbench/stackbench/internal/workload"
)

// designs, in the order they run; each varies one thing from its neighbour.
var allDesigns = []string{
	"seq-fresh",        // today's quick profile: a fresh process per window, 0.5 s warm-up, 1 s closed loop
	"seq-fresh-warm3",  // the same with a 3 s warm-up: is a fresh process just not warm?
	"seq-same",         // the same two processes for every pair
	"seq-same-3s",      // … with 3 s windows
	"seq-same-rate",    // … at a fixed offered rate (CPU-µs per request is the figure)
	"seq-fresh-rate",   // a fresh process per window at the fixed rate
	"duet-closed",      // both processes under closed-loop load at the same instant
	"duet-rate",        // both at the fixed rate at the same instant
	"alternating",      // both live, the load switched between them every slice
	"alternating-rate", // … at the fixed rate
}

type options struct {
	a, b        string
	cas         string
	pairs       int
	conns       int
	window      time.Duration
	warmup      time.Duration
	slice       time.Duration
	rate        float64
	ratePercent float64
	designs     []string
	out         string
}

func main() {
	var o options
	var designs string
	flag.StringVar(&o.a, "a", "nethttp-pq", "stack A: a folder under apps/")
	flag.StringVar(&o.b, "b", "nethttp-pgx", "stack B: a folder under apps/ (the same as -a for A/A)")
	flag.StringVar(&o.cas, "case", "user", "the saas-slice case")
	flag.IntVar(&o.pairs, "pairs", 12, "pairs per design")
	flag.IntVar(&o.conns, "c", 32, "connections per side")
	flag.DurationVar(&o.window, "window", time.Second, "measured window (the -3s design triples it)")
	flag.DurationVar(&o.warmup, "warmup", 500*time.Millisecond, "warm-up before each window")
	flag.DurationVar(&o.slice, "slice", 250*time.Millisecond, "alternating designs: slice length")
	flag.Float64Var(&o.rate, "rate", 0, "fixed offered rate per side, req/s (0: -rate-share of the slower side's closed-loop median, measured first)")
	flag.Float64Var(&o.ratePercent, "rate-share", 40, "percent of the slower side's closed-loop throughput for the fixed-rate designs")
	flag.StringVar(&designs, "designs", strings.Join(allDesigns, ","), "designs to run, comma-separated")
	flag.StringVar(&o.out, "o", "", "write every window as JSON to this file")
	flag.Parse()
	o.designs = strings.Split(designs, ",")
	for _, d := range o.designs {
		if !slices.Contains(allDesigns, d) {
			fmt.Fprintf(os.Stderr, "unknown design %q; known: %s\n", d, strings.Join(allDesigns, ", "))
			os.Exit(2)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, o); err != nil {
		fmt.Fprintln(os.Stderr, "noise:", err)
		os.Exit(1)
	}
}

// side is one stack's figures in one window.
type side struct {
	Stack       string  `json:"stack"`
	RPS         float64 `json:"rps"`
	Successes   int64   `json:"successes"`
	Failures    int64   `json:"failures"`
	ServerCPUs  float64 `json:"server_cpu_s"`
	CPUPerReqUS float64 `json:"server_cpu_us_per_req"`
	// DatabaseCPUs and CostUS (server and database CPU-µs per request) are
	// set where the database served this side alone (not in a duet).
	DatabaseCPUs float64 `json:"database_cpu_s,omitempty"`
	CostUS       float64 `json:"cost_us_per_req,omitempty"`
}

// withDatabase adds the database's CPU seconds to a side the database
// served alone.
func (s *side) withDatabase(db float64) {
	s.DatabaseCPUs += db
	if s.Successes > 0 {
		s.CostUS = (s.ServerCPUs + s.DatabaseCPUs) / float64(s.Successes) * 1e6
	}
}

// pair is one pair of windows (or slices summed), A then B in the figures.
type pair struct {
	Design      string    `json:"design"`
	Index       int       `json:"index"`
	AFirst      bool      `json:"a_first"`
	A           side      `json:"a"`
	B           side      `json:"b"`
	DatabaseCPU float64   `json:"database_cpu_s"`
	Foreign     float64   `json:"foreign_cores"`
	At          time.Time `json:"at"`
}

type bench struct {
	o       options
	db      *stack.Database
	logDir  string
	cas     workload.Case
	urls    map[string]string // stack label -> its own database copy
	dirs    map[string]string // label -> apps dir
	pgPID   int
	mu      sync.Mutex
	windows []pair
}

func run(ctx context.Context, o options) error {
	w, _ := workload.Builtin("saas-slice", workload.DefaultJWTSecret)
	cas, ok := w.Case(o.cas)
	if !ok {
		return fmt.Errorf("no case %q in saas-slice; cases: %s", o.cas, strings.Join(w.CaseNames(), ", "))
	}
	tmp, err := os.MkdirTemp("", "stackbench-noise-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	b := &bench{o: o, cas: cas, logDir: tmp, urls: map[string]string{}, dirs: map[string]string{}}
	// The two sides are labelled "a" and "b" even when they are the same
	// build (A/A): each gets its own database copy and process.
	b.dirs["a"], b.dirs["b"] = filepath.Join("apps", o.a), filepath.Join("apps", o.b)
	for _, l := range []string{"a", "b"} {
		if _, err := os.Stat(b.dirs[l]); err != nil {
			return fmt.Errorf("stack %s: %w (run from the repository root)", l, err)
		}
	}
	fmt.Fprintln(os.Stderr, "noise: building", o.a, "and", o.b)
	for _, dir := range []string{b.dirs["a"], b.dirs["b"]} {
		if err := stack.Shell(ctx, dir, "go build -o bin/server .", filepath.Join(tmp, "build.log"), nil); err != nil {
			return fmt.Errorf("build %s: %w (see %s)", dir, err, filepath.Join(tmp, "build.log"))
		}
	}
	fmt.Fprintln(os.Stderr, "noise: starting the embedded database and seeding it")
	b.db, err = stack.OpenDatabase(ctx, "embedded", "", func(s string) { fmt.Fprintln(os.Stderr, "  ", s) })
	if err != nil {
		return err
	}
	defer b.db.Close(true)
	b.pgPID = b.db.Cluster.PostmasterPID()
	for _, l := range []string{"a", "b"} {
		if b.urls[l], err = b.db.Fresh(ctx, "noise_"+l); err != nil {
			return err
		}
	}
	if o.rate == 0 && slices.ContainsFunc(o.designs, func(d string) bool { return strings.HasSuffix(d, "rate") }) {
		if b.o.rate, err = b.findRate(ctx); err != nil {
			return err
		}
		o.rate = b.o.rate
	}
	for _, d := range o.designs {
		if err := ctx.Err(); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "noise: %s, %d pairs\n", d, o.pairs)
		if err := b.design(ctx, d); err != nil {
			return fmt.Errorf("%s: %w", d, err)
		}
	}
	b.print()
	if o.out != "" {
		data, _ := json.MarshalIndent(struct {
			A, B, Case string
			RateRPS    float64
			Windows    []pair
		}{o.a, o.b, o.cas, o.rate, b.windows}, "", "  ")
		return os.WriteFile(o.out, data, 0o644)
	}
	return nil
}

// start starts side l's server on a free port.
func (b *bench) start(ctx context.Context, l string) (*proc.Process, error) {
	port, err := netutil.FreePort()
	if err != nil {
		return nil, err
	}
	return proc.Start(ctx, proc.Spec{
		Name: l, Dir: b.dirs[l], Command: "./bin/server",
		Env: []string{
			fmt.Sprintf("PORT=%d", port), "DATABASE_URL=" + b.urls[l],
			"JWT_SECRET=" + workload.DefaultJWTSecret, "STACKBENCH_WORKLOAD=saas-slice",
		},
		Port: port, HealthPath: "/health", LogPath: filepath.Join(b.logDir, l+".log"),
		BootTimeout: 30 * time.Second,
	})
}

// findRate measures each side's closed-loop throughput (fresh processes,
// three windows each) and returns the share of the slower one's median.
func (b *bench) findRate(ctx context.Context) (float64, error) {
	slowest := math.Inf(1)
	for _, l := range []string{"a", "b"} {
		p, err := b.start(ctx, l)
		if err != nil {
			return 0, err
		}
		var rps []float64
		for range 3 {
			s, _, _, err := b.measure(ctx, []*proc.Process{p}, b.o.warmup, b.o.window, 0)
			if err != nil {
				p.Stop(5 * time.Second)
				return 0, err
			}
			rps = append(rps, s[0].RPS)
		}
		p.Stop(5 * time.Second)
		slices.Sort(rps)
		slowest = min(slowest, rps[1])
	}
	r := math.Round(slowest * b.o.ratePercent / 100)
	fmt.Fprintf(os.Stderr, "noise: fixed rate %.0f req/s per side (%.0f %% of the slower side's %.0f)\n", r, b.o.ratePercent, slowest)
	return r, nil
}

// measure warms each process for warmup, then runs one window of length
// window on every process at one instant (at rate per side when above
// zero, else closed loop), and returns each side's figures, the database's
// CPU seconds and the foreign cores over the window.
func (b *bench) measure(ctx context.Context, ps []*proc.Process, warmup, window time.Duration, rate float64) ([]side, float64, float64, error) {
	cfg := func(p *proc.Process, d time.Duration, at time.Time) load.Config {
		c := b.cas.LoadConfig(fmt.Sprintf("http://127.0.0.1:%d", p.Port()))
		c.Connections, c.Duration, c.Rate, c.StartAt = b.o.conns, d, rate, at
		return c
	}
	if warmup > 0 {
		at := time.Now().Add(50 * time.Millisecond)
		if _, err := runAll(ctx, ps, func(p *proc.Process) load.Config { return cfg(p, warmup, at) }); err != nil {
			return nil, 0, 0, err
		}
	}
	groups := []proc.Group{proc.TreeGroup("db", b.pgPID), proc.SelfGroup("harness")}
	for _, p := range ps {
		groups = append(groups, p.Group(p.Name()))
	}
	at := time.Now().Add(60 * time.Millisecond)
	sm := proc.NewSampler(0, groups...)
	var res []*load.Result
	var err error
	done := make(chan struct{})
	go func() {
		res, err = runAll(ctx, ps, func(p *proc.Process) load.Config { return cfg(p, window, at) })
		close(done)
	}()
	time.Sleep(time.Until(at))
	sm.Start()
	<-done
	ws := sm.Stop()
	if err != nil {
		return nil, 0, 0, err
	}
	out := make([]side, len(ps))
	for i, p := range ps {
		g, _ := ws.Group(p.Name())
		r := res[i]
		out[i] = side{Stack: p.Name(), RPS: r.ThroughputRPS, Successes: r.Successes, Failures: r.Attempts - r.Successes + r.Unsent}
		out[i].ServerCPUs = g.Cores * ws.Wall.Seconds()
		if r.Successes > 0 {
			out[i].CPUPerReqUS = out[i].ServerCPUs / float64(r.Successes) * 1e6
		}
		if err := p.Check(); err != nil {
			return nil, 0, 0, err
		}
	}
	dbg, _ := ws.Group("db")
	return out, dbg.Cores * ws.Wall.Seconds(), ws.ForeignCores, nil
}

// runAll runs one load per process at once and returns their results in order.
func runAll(ctx context.Context, ps []*proc.Process, cfg func(*proc.Process) load.Config) ([]*load.Result, error) {
	res := make([]*load.Result, len(ps))
	errs := make([]error, len(ps))
	var wg sync.WaitGroup
	for i, p := range ps {
		wg.Go(func() { res[i], errs[i] = load.Run(ctx, cfg(p)) })
	}
	wg.Wait()
	for _, e := range errs {
		if e != nil {
			return nil, e
		}
	}
	return res, nil
}

// design measures o.pairs pairs under design d.
func (b *bench) design(ctx context.Context, d string) error {
	o := b.o
	rate := 0.0
	if strings.HasSuffix(d, "rate") {
		rate = o.rate
	}
	window := o.window
	if d == "seq-same-3s" {
		window = 3 * o.window
	}
	fresh := strings.HasPrefix(d, "seq-fresh")
	warmup := o.warmup
	if d == "seq-fresh-warm3" {
		warmup = 3 * time.Second
	}
	live := map[string]*proc.Process{}
	stopAll := func() {
		for l, p := range live {
			p.Stop(5 * time.Second)
			delete(live, l)
		}
	}
	defer stopAll()
	if !fresh {
		for _, l := range []string{"a", "b"} {
			p, err := b.start(ctx, l)
			if err != nil {
				return err
			}
			live[l] = p
		}
		// One long warm-up of each before the first pair, as a run's first
		// window would have.
		if _, _, _, err := b.measure(ctx, []*proc.Process{live["a"], live["b"]}, 0, 2*time.Second, rate); err != nil {
			return err
		}
	}
	for i := range o.pairs {
		if err := ctx.Err(); err != nil {
			return err
		}
		aFirst := i%2 == 0
		order := []string{"a", "b"}
		if !aFirst {
			order = []string{"b", "a"}
		}
		pr := pair{Design: d, Index: i, AFirst: aFirst, At: time.Now()}
		put := func(s side) {
			if s.Stack == "a" {
				pr.A = s
			} else {
				pr.B = s
			}
		}
		switch {
		case strings.HasPrefix(d, "duet"):
			ss, dbs, fc, err := b.measure(ctx, []*proc.Process{live[order[0]], live[order[1]]}, o.warmup, window, rate)
			if err != nil {
				return err
			}
			put(ss[0])
			put(ss[1])
			pr.DatabaseCPU, pr.Foreign = dbs, fc
		case strings.HasPrefix(d, "alternating"):
			// Each side warmed, then the window split into slices that take
			// turns, the first side swapped pair by pair; each side's
			// figures are the sums of its slices.
			for _, l := range order {
				if _, _, _, err := b.measure(ctx, []*proc.Process{live[l]}, 0, o.warmup, rate); err != nil {
					return err
				}
			}
			n := int(2 * window / o.slice)
			acc := map[string]*side{"a": {Stack: "a"}, "b": {Stack: "b"}}
			var secs = map[string]float64{}
			for k := range n {
				l := order[k%2]
				ss, dbs, fc, err := b.measure(ctx, []*proc.Process{live[l]}, 0, o.slice, rate)
				if err != nil {
					return err
				}
				s := acc[l]
				s.Successes += ss[0].Successes
				s.Failures += ss[0].Failures
				s.ServerCPUs += ss[0].ServerCPUs
				s.DatabaseCPUs += dbs
				secs[l] += o.slice.Seconds()
				pr.DatabaseCPU += dbs
				pr.Foreign += fc / float64(n)
			}
			for l, s := range acc {
				s.RPS = float64(s.Successes) / secs[l]
				if s.Successes > 0 {
					s.CPUPerReqUS = s.ServerCPUs / float64(s.Successes) * 1e6
				}
				s.withDatabase(0)
				put(*s)
			}
		default:
			for _, l := range order {
				p := live[l]
				if fresh {
					var err error
					if p, err = b.start(ctx, l); err != nil {
						return err
					}
				}
				ss, dbs, fc, err := b.measure(ctx, []*proc.Process{p}, warmup, window, rate)
				if fresh {
					p.Stop(5 * time.Second)
				}
				if err != nil {
					return err
				}
				ss[0].withDatabase(dbs)
				put(ss[0])
				pr.DatabaseCPU += dbs
				pr.Foreign += fc / 2
			}
		}
		b.mu.Lock()
		b.windows = append(b.windows, pr)
		b.mu.Unlock()
		fmt.Fprintf(os.Stderr, "  %2d  a %8.0f req/s %6.1f µs   b %8.0f req/s %6.1f µs   foreign %.2f\n",
			i+1, pr.A.RPS, pr.A.CPUPerReqUS, pr.B.RPS, pr.B.CPUPerReqUS, pr.Foreign)
	}
	return nil
}

// noise is a design's paired noise on one metric.
type noise struct {
	n                        int
	robustSD, sd, corr, bias float64
	cvA, cvB                 float64
}

func pairedNoise(a, b []float64) (noise, bool) {
	var lr []float64
	var la, lb []float64
	for i := range a {
		if a[i] > 0 && b[i] > 0 {
			lr = append(lr, math.Log(b[i]/a[i]))
			la, lb = append(la, math.Log(a[i])), append(lb, math.Log(b[i]))
		}
	}
	if len(lr) < 3 {
		return noise{}, false
	}
	r, _ := stats.RobustOf(lr)
	n := noise{n: len(lr), robustSD: stats.MADScale * r.MAD, sd: sd(lr), corr: corr(la, lb), bias: r.Median}
	ra, _ := stats.RobustOf(la)
	rb, _ := stats.RobustOf(lb)
	n.cvA, n.cvB = stats.MADScale*ra.MAD, stats.MADScale*rb.MAD
	return n, true
}

func sd(x []float64) float64 {
	m := 0.0
	for _, v := range x {
		m += v
	}
	m /= float64(len(x))
	s := 0.0
	for _, v := range x {
		s += (v - m) * (v - m)
	}
	return math.Sqrt(s / float64(len(x)-1))
}

func corr(x, y []float64) float64 {
	mx, my := 0.0, 0.0
	for i := range x {
		mx += x[i]
		my += y[i]
	}
	mx /= float64(len(x))
	my /= float64(len(y))
	var sxy, sxx, syy float64
	for i := range x {
		sxy += (x[i] - mx) * (y[i] - my)
		sxx += (x[i] - mx) * (x[i] - mx)
		syy += (y[i] - my) * (y[i] - my)
	}
	if sxx == 0 || syy == 0 {
		return math.NaN()
	}
	return sxy / math.Sqrt(sxx*syy)
}

func (b *bench) print() {
	fmt.Printf("\n%s (a) vs %s (b), case %s, %d connections a side, window %v, warm-up %v, fixed rate %.0f req/s a side\n",
		b.o.a, b.o.b, b.o.cas, b.o.conns, b.o.window, b.o.warmup, b.o.rate)
	fmt.Println("paired noise = robust SD of the per-pair log-ratio b/a (1.4826 x MAD), in %; own = each side's robust SD across pairs")
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "design\tmetric\tpairs\tb/a\tpaired robust SD\tpaired SD\tcorrelation\town a\town b\t")
	for _, d := range b.o.designs {
		var ws []pair
		for _, w := range b.windows {
			if w.Design == d {
				ws = append(ws, w)
			}
		}
		for _, m := range []struct {
			name string
			f    func(side) float64
		}{{"throughput", func(s side) float64 { return s.RPS }}, {"CPU-µs/req", func(s side) float64 { return s.CPUPerReqUS }},
			{"+db CPU-µs/req", func(s side) float64 { return s.CostUS }}} {
			if strings.HasSuffix(d, "rate") && m.name == "throughput" {
				continue // the offered rate: nothing to compare
			}
			var a, bb []float64
			for _, w := range ws {
				a, bb = append(a, m.f(w.A)), append(bb, m.f(w.B))
			}
			n, ok := pairedNoise(a, bb)
			if !ok {
				continue
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%+.1f%%\t%.1f%%\t%.1f%%\t%.2f\t%.1f%%\t%.1f%%\t\n", d, m.name, n.n,
				100*(math.Exp(n.bias)-1), 100*n.robustSD, 100*n.sd, n.corr, 100*n.cvA, 100*n.cvB)
		}
	}
	tw.Flush()
}
