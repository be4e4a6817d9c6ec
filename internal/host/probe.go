package host

import (
	"crypto/sha256"
	"runtime"
	"slices"
	"time"
)

// HostSlowShare is how much slower than the run's reference a window's
// host-speed probe may run before the window is flagged host_slow and
// redone (trap T18): 20 %. A quiet host repeats the probe within a few
// per cent (docs/traps.md gives the measurements); a shared host's slow
// minute, or a laptop's thermal throttling, runs it 20–45 % slower.
const HostSlowShare = 0.20

// probeTarget is how long one run of the probe's work takes on the host
// at calibration: long enough to swamp timer resolution, short enough to
// cost nothing beside a window.
const probeTarget = 4 * time.Millisecond

// probeRuns is how many times a probe runs its work; it keeps the median,
// so one preemption does not read as a slow host while a host that keeps
// taking the CPU away (another VM's steal, a hog) does.
const probeRuns = 5

// calibrationProbes is how many probes the reference is the median of.
const calibrationProbes = 9

// Prober times a fixed amount of CPU work: SHA-256 over a 16 KiB buffer,
// a number of times fixed at calibration. The same work taking longer
// means the host gave this thread less CPU or a slower one (another VM on
// the same cores, a lower clock), whatever /proc says about processes.
type Prober struct {
	buf   []byte
	iters int
	// ReferenceMs is the median probe at calibration.
	ReferenceMs float64
}

// NewProber calibrates a prober: it sizes the work to about probeTarget
// and takes the median of calibrationProbes probes as the reference.
func NewProber() *Prober {
	p := &Prober{buf: make([]byte, 16<<10), iters: 1}
	for i := range p.buf {
		p.buf[i] = byte(i * 31)
	}
	// Grow the work until one run takes about probeTarget, timing each
	// size by its fastest of three runs so a preemption cannot shrink it.
	for p.iters < 1<<20 {
		d := min(p.once(), p.once(), p.once())
		if d >= probeTarget/2 {
			p.iters = max(1, int(float64(p.iters)*float64(probeTarget)/float64(d)))
			break
		}
		p.iters *= 2
	}
	ms := make([]float64, calibrationProbes)
	for i := range ms {
		ms[i] = p.Probe()
	}
	slices.Sort(ms)
	p.ReferenceMs = ms[len(ms)/2]
	return p
}

// Probe runs the work probeRuns times on a locked OS thread and returns
// the median run, in milliseconds.
func (p *Prober) Probe() float64 {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var runs [probeRuns]time.Duration
	for i := range runs {
		runs[i] = p.once()
	}
	slices.Sort(runs[:])
	return float64(runs[probeRuns/2]) / float64(time.Millisecond)
}

var probeSink byte

func (p *Prober) once() time.Duration {
	start := time.Now()
	var sum [32]byte
	for range p.iters {
		sum = sha256.Sum256(p.buf)
		p.buf[0] ^= sum[0]
	}
	probeSink ^= sum[31]
	return time.Since(start)
}
