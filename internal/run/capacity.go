package run

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/stackbench/stackbench/internal/analysis"
	"github.com/stackbench/stackbench/internal/capacity"
	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/load"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/stats"
	"github.com/stackbench/stackbench/internal/workload"
)

// capacityPhase is the capacity searches at an SLO, after the rounds.
type capacityPhase struct{ r *runner }

// run carries out the plan's capacity searches (plan.Capacity)
// once the windows and any adaptive rounds are measured, in
// plan.Capacity.SearchCount() rounds of searches: in round i the stacks
// take Williams sequence i − 1 (stats.WilliamsSequence: A B, B A, A B …
// with two stacks), and each stack gets a fresh server process (one per
// search with fresh: case) for its i-th search of every case with an SLO
// (internal/capacity). So every search of a stack × case is its own
// process's, and the stacks' searches alternate in a balanced order. Each
// probe has the windows' hygiene (orders reset before an inserting case,
// CHECKPOINT, the gate's wait, the generator as a child process, every
// process tree sampled) and is journaled as a journal.CapacityProbe
// before the next one; each search's end is a journal.CapacitySearch,
// both tagged with the search's index. A resumed run skips the searches
// that ended, and replays the probes of one that did not
// (capacity.Config.Past), so no probe is measured twice.
func (ph *capacityPhase) run(ctx context.Context) error {
	r := ph.r
	c := r.opt.Plan.Capacity
	if c == nil {
		return nil
	}
	res, err := journal.ReadDir(r.opt.Dir)
	if err != nil {
		return fmt.Errorf("capacity: read the journal: %w", err)
	}
	m, err := analysis.FromResults(res, analysis.Options{})
	if err != nil {
		return fmt.Errorf("capacity: %w", err)
	}
	left := capacityLeft(r.opt.Plan, res)
	if len(left) == 0 {
		return nil
	}
	r.progress.logf("capacity at an SLO: %d searches (each within %s)", len(left), c.Budget)
	stacks := r.opt.Plan.Stacks
	for i := 1; i <= c.SearchCount(); i++ {
		for _, si := range stats.WilliamsSequence(len(stacks), i-1) {
			st := stacks[si]
			var cur *server
			for _, cc := range c.Cases {
				sk := searchKey{st.Name, cc.Case, i}
				key := sk.key()
				if !left[key] {
					continue
				}
				if cur != nil && r.opt.Plan.Protocol.Fresh == plan.FreshCase {
					r.stopServer(cur)
					cur = nil
				}
				if cur == nil {
					s, err := r.newServer(ctx, st, -1)
					if err != nil {
						if ctx.Err() != nil {
							return ctx.Err()
						}
						if err := ph.endSearch(sk, nil, fmt.Sprintf("the stack did not start: %v", err)); err != nil {
							return err
						}
						continue
					}
					cur = s
				}
				var err error
				cur, err = ph.search(ctx, cur, sk, cc, res.CapacityProbes(key), closedLoopRPS(m, st.Name, cc.Case))
				if err != nil {
					r.stopServer(cur)
					return err
				}
			}
			r.stopServer(cur)
		}
	}
	return nil
}

// searchKey is one search: the index-th (from 1) of a stack × case.
type searchKey struct {
	stack, cas string
	index      int
}

func (k searchKey) key() string { return journal.CapacitySearchKey(k.stack, k.cas, k.index) }

// name is "gin user" for the first search of one, "gin user, search 2 of
// 4" with several.
func (k searchKey) name(of int) string {
	if of <= 1 {
		return k.stack + " " + k.cas
	}
	return fmt.Sprintf("%s %s, search %d of %d", k.stack, k.cas, k.index, of)
}

// capacityLeft lists the searches of the plan without an end record.
func capacityLeft(p *plan.Plan, res *journal.Results) map[string]bool {
	left := map[string]bool{}
	if p.Capacity == nil {
		return left
	}
	for _, st := range p.Stacks {
		for _, cc := range p.Capacity.Cases {
			for i := 1; i <= p.Capacity.SearchCount(); i++ {
				key := journal.CapacitySearchKey(st.Name, cc.Case, i)
				if _, ended := res.CapacitySearch(key); !ended {
					left[key] = true
				}
			}
		}
	}
	return left
}

// closedLoopRPS is the closed-loop throughput a search starts from: the
// median over the cell's counted windows, the highest over its
// concurrency levels (a search's probes use more connections than any
// level); 0 when no window of the case counted, and the search then
// measures one with a closed-loop probe. For a flow case it is completed
// flows per second (over the counted windows), the unit its probes offer.
func closedLoopRPS(m *analysis.Result, stack, cas string) float64 {
	best := 0.0
	for _, c := range m.Cells {
		if c.Stack == stack && c.Case == cas && c.Counted > 0 {
			if c.Flow != nil {
				best = max(best, c.Flow.FlowsPerSecond)
				continue
			}
			best = max(best, c.Throughput.Median)
		}
	}
	return best
}

// search runs (or resumes, from past) one stack × case search on cur and
// journals its end; it returns the server to go on with (nil when it died).
// Only a cancelled context or a broken journal is an error: a search that
// could not go on (the server died, the generator failed) ends failed.
func (ph *capacityPhase) search(ctx context.Context, cur *server, sk searchKey, cc plan.CapacityCase, past []journal.CapacityProbe, closedRPS float64) (*server, error) {
	r := ph.r
	c := r.opt.Plan.Capacity
	stack := sk.stack
	if len(past) > 0 {
		closedRPS = past[0].ClosedLoopRPS // the start the search began from
	}
	wc, _ := r.opt.Plan.Case(cc.Case)
	if sc, ok := r.opt.File.CaseOf(stack, cc.Case); ok && len(wc.Path) > 0 {
		wc.Path = sc.Path // at the stack's own path (paths:)
	}
	pr := &runProber{r: r, cur: cur, sk: sk, key: sk.key(), name: sk.name(c.SearchCount()), stack: stack, slo: cc.SLO, c: wc, closedRPS: closedRPS, n: len(past)}
	cfg := capacity.Config{SLO: cc.ParsedSLO(), MaxErrorShare: c.MaxErrorShare, Resolution: c.Resolution,
		Confirmations: c.Confirmations, Retries: c.Retries, StartRPS: closedRPS, StartFraction: c.StartFraction,
		Probe: c.Probe, Warmup: c.Warmup, Budget: c.Budget, MaxGeneratorWaitShare: c.MaxGeneratorWaitShare, OnProbe: pr.journal}
	if c.Retries == 0 {
		cfg.Retries = -1 // capacity.Config's "none"
	}
	if wc.IsFlow() {
		cfg.Also = flowStepJudge(cc.Steps) // flows are judged as requests are (flowProbeResult)
	}
	for _, p := range past {
		cfg.Past = append(cfg.Past, p.Probe.WithResult(flowProbeResult(p.Window.Load)))
	}
	if len(past) > 0 {
		r.event(journal.LevelInfo, stack, "capacity %s: resumed after %d journaled probes", pr.name, len(past))
	}
	rep, err := capacity.Search(ctx, cfg, pr)
	if pr.err != nil {
		return pr.cur, pr.err
	}
	if ctx.Err() != nil {
		return pr.cur, ctx.Err() // no end record: a resume goes on from the probes
	}
	msg := ""
	if err != nil {
		msg = err.Error()
		r.event(journal.LevelWarning, stack, "capacity %s: the search stopped: %v", pr.name, err)
	}
	return pr.cur, ph.endSearch(sk, rep, msg)
}

// endSearch journals a search's end.
func (ph *capacityPhase) endSearch(sk searchKey, rep *capacity.Report, msg string) error {
	r := ph.r
	key, name := sk.key(), sk.name(r.opt.Plan.Capacity.SearchCount())
	rec := journal.CapacitySearch{Search: key, SearchIndex: sk.index, Stack: sk.stack, Case: sk.cas, Time: time.Now().UTC(), Error: msg}
	if rep != nil {
		rec.Report = *rep
		rec.Report.Probes = nil // journaled one by one
	} else {
		rec.Report.Status = capacity.StatusFailed
	}
	if err := r.jw.Append(journal.KindCapacity, rec); err != nil {
		return err
	}
	switch rec.Report.Status {
	case capacity.StatusConfirmed:
		r.progress.logf("capacity %s: %.1f %s confirmed, failed from %.1f (%d probes, %s)", name, rec.Report.CapacityRPS, ph.unit(sk.cas), rec.Report.FirstFailRPS,
			len(ph.probesOf(key)), time.Duration(rec.Report.ElapsedSeconds*float64(time.Second)).Round(time.Second))
	default:
		r.progress.logf("capacity %s: no capacity (%s); %s %s", name, rec.Report.Status, bracketWords(rec.Report, ph.unit(sk.cas)), msg)
	}
	return nil
}

// bracketWords says what a search without a capacity knows.
func bracketWords(rep capacity.Report, unit string) string {
	if rep.LastPassRPS == 0 && rep.FirstFailRPS == 0 {
		return "no open-loop probe was judged"
	}
	return fmt.Sprintf("passed up to %.1f %s, failed from %.1f %s (0: none)", rep.LastPassRPS, unit, rep.FirstFailRPS, unit)
}

// probesOf counts a search's journaled probes for the log.
func (ph *capacityPhase) probesOf(key string) []journal.CapacityProbe {
	r := ph.r
	res, err := journal.ReadDir(r.opt.Dir)
	if err != nil {
		return nil
	}
	return res.CapacityProbes(key)
}

// runProber is a search's capacity.Prober in a run: each probe is one
// window of the stack's process with a run's hygiene, its generator a
// `stackbench load` child like the windows'.
type runProber struct {
	r   *runner
	cur *server
	sk  searchKey
	// key is the search's journal key, name its name in the log.
	key, name string
	stack     string
	slo       string
	c         workload.Case
	closedRPS float64
	// n counts the search's probes, journaled ones included.
	n int
	// pending is the measurement of the probe being judged, journaled
	// with its verdict by journal (capacity.Config.OnProbe).
	pending *journal.Window
	// err is a journal write that failed: the run stops.
	err error
}

// Open measures one open-loop probe at rateRPS.
func (pr *runProber) Open(ctx context.Context, rateRPS float64, warmup, window time.Duration) (*load.Result, error) {
	return pr.measure(ctx, rateRPS, warmup, window, pr.r.opt.Plan.Capacity.Connections)
}

// Closed measures the closed-loop estimate, at the plan's highest
// concurrency: only when the run has no counted window of the cell.
func (pr *runProber) Closed(ctx context.Context, warmup, window time.Duration) (*load.Result, error) {
	conc := 0
	for _, c := range pr.r.opt.Plan.Protocol.Concurrency {
		conc = max(conc, c)
	}
	return pr.measure(ctx, 0, warmup, window, conc)
}

// measure prepares the database and the host as for a window, runs the
// generator with the sampler over its window, and keeps the record for
// journal. A server that is dead, or a generator without a result, stops
// the search (an error); the dead server is stopped.
func (pr *runProber) measure(ctx context.Context, rateRPS float64, warmup, window time.Duration, conns int) (*load.Result, error) {
	r, cur := pr.r, pr.cur
	if cur == nil {
		return nil, errors.New("no server process")
	}
	pr.n++
	w := plan.Window{Key: fmt.Sprintf("%s/p%d", pr.key, pr.n), Stack: pr.stack, Case: pr.c.Name, Concurrency: conns, Inserts: pr.c.Inserts}
	rec, err := measureOne(ctx, r.exec, cur, w, loadStream{c: pr.c, conns: conns, rateRPS: rateRPS, warmup: warmupSpan{floor: warmup}, window: window})
	switch {
	case err != nil:
		return nil, err
	case rec.HasFlag(journal.FlagServerDied):
		return nil, pr.died(errors.New(rec.Error))
	case rec.Load == nil:
		return nil, fmt.Errorf("the load generator gave no result: %s", rec.Error)
	}
	pr.pending = rec
	return flowProbeResult(rec.Load), nil
}

// died stops a server that died during a search; the next search starts
// another.
func (pr *runProber) died(err error) error {
	pr.r.stopServer(pr.cur)
	pr.cur = nil
	return fmt.Errorf("%s died: %w", pr.stack, err)
}

// journal appends a judged probe with its measurement.
func (pr *runProber) journal(p capacity.Probe) {
	if pr.pending == nil || pr.err != nil {
		return
	}
	rec := journal.CapacityProbe{Search: pr.key, SearchIndex: pr.sk.index, Stack: pr.stack, Case: pr.c.Name, SLO: pr.slo,
		ClosedLoopRPS: pr.closedRPS, Probe: p, Window: *pr.pending}
	pr.pending = nil
	if err := pr.r.jw.Append(journal.KindCapacityProbe, rec); err != nil {
		pr.err = err
		return
	}
	verdict := "pass"
	if !p.Pass {
		verdict = "fail: " + strings.Join(p.Reasons, "; ")
	}
	unit := capacityUnit(pr.c.IsFlow())
	rate := fmt.Sprintf("%.1f %s", p.RateRPS, unit)
	if p.Phase == capacity.PhaseEstimate {
		rate = fmt.Sprintf("closed loop, %.1f %s", p.ThroughputRPS, unit)
	}
	pr.r.progress.logf("capacity %s probe %d %s %s: p99 %s, %.2f cores, %s", pr.name, p.Index, p.Phase, rate,
		micros(p.LatencyMicros.P99), rec.Window.Server.Cores, verdict)
}

// unit is the unit of a searched case's rates (capacityUnit).
func (ph *capacityPhase) unit(cas string) string {
	c, _ := ph.r.opt.Plan.Case(cas)
	return capacityUnit(c.IsFlow())
}
