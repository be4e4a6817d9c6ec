package run

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/stackbench/stackbench/internal/host"
	"github.com/stackbench/stackbench/internal/journal"
)

// environmentPhase records the machine, the database server and the
// stacks' versions at the start of every invocation, and calibrates the
// contention gate.
type environmentPhase struct{ r *runner }

// captureHost captures the machine; tests give it other limits.
var captureHost = host.Capture

// run captures the machine, the database server and the
// stacks' versions, calibrates the contention gate, and journals it all. It
// runs at the start of every invocation (a resume may be on another boot of
// the machine); windows refer to the newest record.
func (ph *environmentPhase) run(ctx context.Context) error {
	r := ph.r
	env := journal.Environment{CapturedAt: time.Now().UTC(), Host: captureHost(), StackVersions: map[string]string{}}
	for _, s := range r.opt.Plan.Stacks {
		if s.Version == "" {
			continue
		}
		v := host.CaptureStackVersion(ctx, s.Name, s.Dir, s.Version, nil)
		text := strings.TrimSpace(strings.TrimSpace(v.Stdout) + "\n" + strings.TrimSpace(v.Stderr))
		if v.Error != "" {
			text += " (" + v.Error + ")"
		}
		env.StackVersions[s.Name] = text
	}
	if r.db != nil {
		if st, err := r.db.Stats(ctx); err == nil {
			env.PostgresVersion, env.PostgresSettings = st.ServerVersion, st.Settings
		}
	}
	env.Warnings = env.Host.Warnings(slices.Max(r.opt.Plan.Protocol.Concurrency))
	gateWarnings, err := r.watch.setupGate(ctx, env.Host.CPUCount)
	if err != nil {
		return err
	}
	env.Warnings = append(env.Warnings, gateWarnings...)
	if r.watch.gate != nil {
		env.GateBaselineCores, env.GateThresholdCores = r.watch.gate.Baseline.Rest(), r.watch.gate.ThresholdCores
		env.GateBaselineMeanCores, env.GateBusyAtStart = r.watch.gate.Baseline.MeanCores, r.watch.gate.Baseline.Busy(env.Host.CPUCount)
	}
	ph.placement(&env)
	r.watch.prober = host.NewProber()
	env.ProbeReferenceMs = r.watch.prober.ReferenceMs
	r.progress.logf("host-speed probe: %.2f ms for its fixed work (windows whose probe runs over %.0f%% slower are redone)", r.watch.prober.ReferenceMs, 100*host.HostSlowShare)
	for _, w := range env.Warnings {
		r.progress.logf("warning: %s", w)
	}
	r.envCount++
	return r.jw.Append(journal.KindEnvironment, env)
}
