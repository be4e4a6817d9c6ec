package plan

import (
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Runtimes the profiling phase treats apart (of Runtimes): it gives their
// JIT frames names for perf (docs/profiles.md): Node with
// --perf-basic-prof through NODE_OPTIONS, Python 3.12 and later with
// PYTHONPERFSUPPORT=1 (the environment's -X perf).
const (
	RuntimeNode   = "node"
	RuntimePython = "python"
)

// onOff reads on/off (or true/false) into a set flag.
func (p *parser) onOff(n *yaml.Node, field string) *bool {
	d := deref(n)
	if d.Kind == yaml.ScalarNode {
		switch strings.ToLower(d.Value) {
		case "on", "true", "yes":
			v := true
			return &v
		case "off", "false", "no":
			v := false
			return &v
		}
	}
	p.addf(n, "%s must be on or off, not %s; write %s: on", field, describe(n), field)
	return nil
}

// MinProfilingWindow is the shortest profile window: at Go's 100 Hz a
// server busy on one core gives 500 samples in it, enough for the
// functions above a fifth of its time to pass the 100-sample floor.
const MinProfilingWindow = 5 * time.Second

// ProfilingWindow is the length of the profiling phase's windows: the
// protocol's window in whole seconds (net/http/pprof's CPU profile takes
// seconds), at least MinProfilingWindow.
func (p Protocol) ProfilingWindow() time.Duration {
	w := p.Window.Round(time.Second)
	if w < p.Window {
		w += time.Second
	}
	return max(w, MinProfilingWindow)
}

// profileWindowExtra is what a profile window costs beyond a window of
// its length: perf's start and the conversion of its recording, and the
// profiles' reads (measured here: 2–4 s on a shared 2-core host).
const profileWindowExtra = 3 * time.Second

// EstimateProfiling is a rough duration of the profiling phase: a window
// per cell of ProfilingWindow, and a process per stack.
func (p *Plan) EstimateProfiling() time.Duration {
	if !p.Protocol.Profiling {
		return 0
	}
	var d time.Duration
	for _, c := range p.Cases {
		per := p.Protocol.Warmup + p.Protocol.ProfilingWindow() + windowOverhead + profileWindowExtra
		if c.Inserts {
			per += resetOrders
		}
		d += time.Duration(len(p.Protocol.Concurrency)) * per
	}
	return time.Duration(len(p.Stacks)) * (d + processStart)
}
