package run

import (
	"context"
	"fmt"
	"time"

	"github.com/stackbench/stackbench/internal/host"
	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/proc"
)

// hostWatch watches this machine for the windows: the contention gate
// (nil when off), the host-speed probe (nil before the environment is
// recorded), and when the last judged window ended quiet.
type hostWatch struct {
	r *runner
	// gate is nil when the contention gate is off.
	gate *host.Gate
	// prober times the host-speed probe around each window (trap T18).
	prober *host.Prober
	// quietAt is when the last judged window ended, if it measured the
	// host quiet (foreign CPU under the gate, no suspension); zero
	// otherwise. A window soon after it skips the gate's step (gateWait).
	quietAt time.Time
}

// BaselineDuration is how long the idle foreign CPU is measured at the start
// of every invocation, to set the contention gate (trap T6).
const BaselineDuration = 3 * time.Second

// ownGroups are the processes the run accounts for outside a window: the
// harness itself, the database, the server when one is running, and the
// idle servers of an interleaved round. Foreign
// CPU is the host's busy CPU minus theirs.
func (hw *hostWatch) ownGroups(ctx context.Context, cur *server) []proc.Group {
	r := hw.r
	groups := []proc.Group{proc.SelfGroup("harness")}
	if g, ok := r.dbs.group(ctx); ok {
		groups = append(groups, g)
	}
	return append(groups, r.site.ownGroups(ctx, cur)...)
}

// setupGate measures the idle baseline and makes the gate, unless it is off.
// An explicit gate below the baseline is a warning, never an endless wait.
// hostCPUs is the number of CPUs of the host, whose busy CPU foreign CPU is
// a part of.
func (hw *hostWatch) setupGate(ctx context.Context, hostCPUs int) (warnings []string, err error) {
	r := hw.r
	g := r.opt.Plan.Protocol.Gate
	if g.Mode == plan.GateOff {
		return nil, nil
	}
	meter := proc.ForeignMeter(hw.ownGroups(ctx, nil)...)
	explicit := 0.0
	if g.Mode == plan.GateCores {
		explicit = g.Cores
	}
	var b host.Baseline
	if explicit > 0 {
		b, err = host.MeasureBaseline(ctx, BaselineDuration, meter)
	} else {
		// A busy host at calibration is waited for (within the gate's
		// wait), so the automatic gate is set from a host at rest.
		b, err = host.MeasureQuietBaseline(ctx, BaselineDuration, g.Wait, hostCPUs, meter)
	}
	if err != nil {
		return nil, err
	}
	hw.gate, warnings = host.NewGate(b, explicit, g.Retries, hostCPUs, meter)
	if w := unreachableGateWarning(hw.gate.ThresholdCores, b, hostCPUs); w != "" {
		warnings = append(warnings, w)
	}
	r.progress.logf("contention gate: foreign CPU under %.2f cores (host at rest %.2f cores, mean %.2f, over %s)",
		hw.gate.ThresholdCores, b.Rest(), b.MeanCores, b.Duration.Round(time.Millisecond))
	return warnings, nil
}

// unreachableGateWarning warns when the gate's threshold is at or above the
// host's CPUs: foreign CPU can never cross it, so no window can be judged
// contended however busy the host is (an idle baseline near the core count
// makes the automatic gate do that). Empty when the gate can fire.
func unreachableGateWarning(thresholdCores float64, b host.Baseline, hostCPUs int) string {
	if hostCPUs <= 0 || thresholdCores < float64(hostCPUs) {
		return ""
	}
	return fmt.Sprintf("the contention gate (%.2f cores of foreign CPU) can never be crossed on this host of %d CPUs: "+
		"other processes already used %.2f cores at idle (over %s), so every window is measured on a busy host and none is flagged contended; "+
		"quiet the machine, or set the gate in cores (--gate 0.5, or gate: 0.5 in the file) so busy windows are redone and flagged",
		thresholdCores, hostCPUs, b.MeanCores, b.Duration.Round(time.Millisecond))
}

// GateFreshness is how recent a quiet window must be to stand for the gate's
// check before the next one: the gate's own step (host.DefaultGateStep) is
// 250 ms of each window's time otherwise, 13 % of a quick window.
const GateFreshness = time.Second

// gateWait waits, at most the plan's gate wait, for foreign CPU under the
// threshold, counting the running server as ours, unless the window
// before ended quiet less than GateFreshness ago. A host that stays busy is
// measured anyway and judged after the window.
func (hw *hostWatch) gateWait(ctx context.Context, cur *server, rec *journal.Window) error {
	r := hw.r
	if hw.gate == nil {
		return nil
	}
	if cur != nil && cur.host != "" {
		// Nothing measured runs here: the server host's foreign CPU is
		// judged after the window, from its agent's sample (judge).
		rec.GateCores = hw.gate.ThresholdCores
		return nil
	}
	if !hw.quietAt.IsZero() && time.Since(hw.quietAt) < GateFreshness {
		// The window just before measured the host quiet, moments ago:
		// that is the gate's check, over a whole window instead of a
		// step. A load that starts in between is caught by the judgement
		// after this window.
		rec.GateFromPrevious = true
		rec.GateCores = hw.gate.ThresholdCores
		return nil
	}
	g, _ := host.NewGate(hw.gate.Baseline, hw.gate.ThresholdCores, hw.gate.Retries, 0, proc.ForeignMeter(hw.ownGroups(ctx, cur)...))
	q, err := g.WaitQuiet(ctx, r.opt.Plan.Protocol.Gate.Wait)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return err
	}
	rec.Timings.GateWaitSeconds = q.Waited.Seconds()
	rec.GateCores = hw.gate.ThresholdCores
	if !q.Quiet {
		r.progress.logf("warning: the host stayed busy (%.2f cores of foreign CPU, gate %.2f) for %s before %s; measuring anyway",
			q.ForeignCores, hw.gate.ThresholdCores, q.Waited.Round(time.Millisecond), rec.Key)
	}
	return nil
}

// probe times the host-speed probe; 0 without a prober (a runner built
// by a test without an environment).
func (hw *hostWatch) probe() float64 {
	if hw.prober == nil {
		return 0
	}
	return hw.prober.Probe()
}

// judge decides whether a measured try is redone because of the host: the
// gate judges foreign CPU and suspension, the probe the host's own speed;
// without a gate only a suspended window is still redone (MaxSuspendRedos
// times). disturbed counts this window's earlier tries that were redone
// for the host.
func (hw *hostWatch) judge(rec *journal.Window, disturbed int) (redo bool) {
	hw.quietAt = time.Time{}
	if hw.gate != nil && !rec.Suspended && rec.ForeignCores < hw.gate.ThresholdCores {
		hw.quietAt = rec.EndedAt
	}
	slow := false
	// gate: off checks no window for a busy host; the probe is still
	// journaled, for the report's strip.
	if p := rec.Probe; p != nil && hw.gate != nil && p.SlowerShare() > host.HostSlowShare {
		slow = true
		flagger{rec}.add(journal.FlagHostSlow, "the host-speed probe took %.2f ms before and %.2f ms after the window against %.2f ms at the start (%.0f%% slower, over %.0f%%): the machine itself ran slow",
			p.BeforeMs, p.AfterMs, p.ReferenceMs, 100*p.SlowerShare(), 100*host.HostSlowShare)
	}
	if hw.gate == nil {
		if rec.Suspended {
			flagger{rec}.add(journal.FlagSuspended, "the machine slept during the window")
		}
		return rec.Suspended && disturbed < MaxSuspendRedos
	}
	if slow && !rec.Suspended && rec.ForeignCores < hw.gate.ThresholdCores {
		// Slow with nothing else to blame: redo within the gate's budget.
		return disturbed < hw.gate.Retries
	}
	v := hw.gate.Judge(disturbed, rec.ForeignCores, rec.Suspended)
	if v.Contended {
		// The verdict's reason names the suspension when there was one.
		reason := fmt.Sprintf("foreign CPU %.2f cores over the gate's %.2f", rec.ForeignCores, hw.gate.ThresholdCores)
		if !v.Suspended {
			reason = reasonOr(v.Reason, reason)
		}
		flagger{rec}.add(journal.FlagContended, "%s", reason)
	}
	if v.Suspended {
		flagger{rec}.add(journal.FlagSuspended, "%s", reasonOr(v.Reason, "the machine slept during the window"))
	}
	return v.Action == host.Redo
}

func reasonOr(reason, fallback string) string {
	if reason != "" {
		return reason
	}
	return fallback
}
