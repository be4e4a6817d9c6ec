package load

import (
	"math/rand/v2"

	"github.com/stackbench/stackbench/internal/hist"
)

// prepareFlow checks a flow run's configuration and compiles its flow;
// its steps are counted apart like a mix's routes.
func (r *run) prepareFlow() error {
	cfg := r.cfg
	switch {
	case cfg.Protocol == ProtoGRPC:
		return configErrorf("flow", "a flow's steps are HTTP requests (HTTP/1.1 or HTTP/2, with or without TLS), not gRPC calls; use protocol http1, h2c or h2")
	case len(cfg.Requests) > 0 || len(cfg.Mix) > 0:
		return configErrorf("flow", "a flow sends its own steps; drop the request pool and the mix")
	}
	cf, err := compileFlow(cfg.Flow)
	if err != nil {
		return err
	}
	r.flow = cf
	for _, s := range cf.steps {
		r.routes = append(r.routes, MixRoute{Name: s.name})
	}
	return nil
}

// initFlows gives each of the worker's lanes its user: first is the
// number of the worker's first connection over the run. Over HTTP/1.1 a
// lane is a connection; over HTTP/2 each connection carries Streams
// lanes, each a user of its own (connections × streams users).
func (w *worker) initFlows(first int) {
	r := w.r
	if r.flow == nil {
		return
	}
	w.hFlow = hist.New(r.histMax)
	w.flowFails = make([]tally, len(r.flow.steps))
	for i := range w.conns {
		user := int64(first*r.streams + i)
		w.conns[i].flow = &flowState{vars: make([][]byte, r.flow.slots), user: user,
			rng: *rand.NewPCG(r.cfg.Seed, uint64(user))}
	}
}

// flowRequest renders the user's current step; a flow's first step starts
// its clock (intended).
func (w *worker) flowRequest(c *conn, intended int64) *wireRequest {
	f := c.flow
	if f.step == 0 {
		f.start = intended
		if intended >= w.r.warmEnd.Load() && intended < w.r.measEnd.Load() {
			w.flowsStarted++
		}
	}
	if w.socks != nil {
		f.renderH2(&w.r.flow.steps[f.step], w.r.tgt.hostPort, w.r.tlsConfig != nil)
	} else {
		f.render(&w.r.flow.steps[f.step], w.r.tgt.hostPort)
	}
	f.wire.route = int32(f.step)
	return &f.wire
}

// flowAdvance moves the user on after its step's outcome: to the next
// step (after the step's think time), or back to the first when the flow
// completed or failed. A flow whose outcome falls in the window is
// counted: completed, with its latency from its first step's start to its
// last answer (think times included), or failed by its first failing
// step's class; never both, and a failed flow is never throughput.
func (w *worker) flowAdvance(c *conn, now int64, ok bool, class errorClass, status int) {
	r, f := w.r, c.flow
	inWindow := now >= r.warmEnd.Load() && now < r.measEnd.Load()
	st := &r.flow.steps[f.step]
	switch {
	case !ok:
		if inWindow {
			if status > 0 {
				w.flowFails[f.step].status[status]++
			} else {
				w.flowFails[f.step].errs[class]++
			}
		}
		f.step = 0
		f.runs++
		return
	case f.step+1 < len(r.flow.steps):
		f.step++
	default:
		if inWindow {
			w.flowsDone++
			w.hFlow.RecordMicros((now - f.start) / 1000)
		}
		f.step = 0
		f.runs++
	}
	if st.think > 0 {
		f.thinkUntil = now + st.think
	}
}

// FlowResult is a flow run's figures in the measured window: flows, not
// requests. A flow belongs to the window its last answer (or its failing
// one) fell in.
type FlowResult struct {
	Name string `json:"name"`
	// Started counts the flows whose first step was sent in the window;
	// Completed those whose last step succeeded in it; Failed those that
	// failed in it, by "step: class" in Failures (the class as in
	// Result.Errors: status_401, timeout, capture, unfinished, …).
	Started        int64            `json:"started"`
	Completed      int64            `json:"completed"`
	Failed         int64            `json:"failed"`
	Failures       map[string]int64 `json:"failures"`
	FlowsPerSecond float64          `json:"flows_per_s"`
	// GeneratorCPUMicrosPerFlow is the generator's CPU per completed flow.
	GeneratorCPUMicrosPerFlow float64 `json:"generator_cpu_us_per_flow,omitempty"`
	// LatencyMicros is a completed flow's time from its first step's send
	// to its last answer, think times included.
	LatencyMicros Latency `json:"latency_us"`
	LatencyHist   string  `json:"latency_hist"`
	// Steps are each step's requests, counted like a mix's routes.
	Steps []RouteResult `json:"steps"`
	// Unsent (open model, -R) counts the flows due before the window's
	// end that no user was free to start, apart from Failed; they are in
	// the flow latency at the time they had waited (trap T24).
	Unsent int64 `json:"unsent,omitempty"`
}

// flowResult merges the workers' flow figures (nil without a flow) and
// takes the per-step figures out of routes.
func (r *run) flowResult(res *Result, windowSeconds float64) error {
	if r.flow == nil {
		return nil
	}
	fr := &FlowResult{Name: r.cfg.Flow.Name, Failures: map[string]int64{}, Steps: res.Routes}
	res.Routes = nil
	h := hist.New(r.histMax)
	for _, w := range r.workers {
		fr.Started += w.flowsStarted
		fr.Completed += w.flowsDone
		h.Merge(w.hFlow)
		for s := range w.flowFails {
			errs := map[string]int64{}
			w.flowFails[s].addErrors(errs)
			for k, n := range errs {
				if n > 0 {
					fr.Failures[r.flow.steps[s].name+": "+k] += n
					fr.Failed += n
				}
			}
		}
	}
	for i := range fr.Steps {
		fr.Steps[i].WeightShare = 0
	}
	if r.open {
		// The schedule is of flows: its unsent are flows.
		fr.Unsent, res.Unsent = res.Unsent, 0
	}
	fr.FlowsPerSecond = float64(fr.Completed) / windowSeconds
	if fr.Completed > 0 {
		fr.GeneratorCPUMicrosPerFlow = res.GeneratorCPUSeconds * 1e6 / float64(fr.Completed)
	}
	fr.LatencyMicros = summarize(h)
	var err error
	if fr.LatencyHist, err = h.Encode(); err != nil {
		return err
	}
	res.Flow = fr
	return nil
}
