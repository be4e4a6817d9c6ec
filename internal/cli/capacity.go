package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/stackbench/stackbench/internal/capacity"
	"github.com/stackbench/stackbench/internal/load"
)

func init() {
	register(Command{Name: "capacity", Short: "find the highest rate one URL sustains within a latency SLO (open-loop search)", Order: 11, Run: runCapacity})
}

// capacityDefaultConnections is capacity's -c: by Little's law the
// connections must cover rate × latency, and a search reaches high rates
// at latencies up to the SLO.
const capacityDefaultConnections = 256

// capacityFlags are stackbench capacity's own flags; the target's are
// load's (load.Flags.RegisterTarget).
type capacityFlags struct {
	slo, errors, unfinished, unsent, resolution string
	startRPS, startFraction, generatorWait      float64
	confirm, retries                            int
	probe, warmup, budget                       time.Duration
}

func runCapacity(ctx context.Context, args []string, env Env) error {
	var lf load.Flags
	var f capacityFlags
	fs := newFlagSet("capacity", "--slo p99=20ms [flags] URL", env)
	lf.RegisterTarget(fs, capacityDefaultConnections)
	fs.StringVar(&f.slo, "slo", "", "the latency objective, a percentile and a latency, e.g. p99=20ms (required)")
	fs.StringVar(&f.errors, "errors", "0.1%", "the most errors a passing probe may have, as a share of its requests")
	fs.StringVar(&f.unfinished, "unfinished", "0.1%", "the most requests still unanswered at a probe's end")
	fs.StringVar(&f.unsent, "unsent", "0.1%", "the most requests due and never sent (no free connection)")
	fs.Float64Var(&f.startRPS, "start-rps", 0, "a known closed-loop throughput to start from (default: measure it with a closed-loop probe)")
	fs.Float64Var(&f.startFraction, "start-fraction", capacity.DefaultStartFraction, "the share of the closed-loop throughput the climb starts at")
	fs.StringVar(&f.resolution, "resolution", "2%", "bisect until the bracket is this narrow; the step down after a failed confirmation")
	fs.Float64Var(&f.generatorWait, "generator-wait", capacity.DefaultMaxGeneratorWaitShare,
		"the most the generator may wait for a CPU, in seconds per second of window, before a probe fails as starved (0: not judged)")
	fs.IntVar(&f.confirm, "confirm", capacity.DefaultConfirmations, "windows the rate found must pass in a row")
	fs.IntVar(&f.retries, "retries", capacity.DefaultRetries, "repeats of a failed probe before its failure is believed (0: none)")
	fs.DurationVar(&f.probe, "probe", capacity.DefaultProbe, "each probe's measured window")
	fs.DurationVar(&f.warmup, "warmup", capacity.DefaultWarmup, "each probe's warm-up, at its rate, before the window")
	fs.DurationVar(&f.budget, "budget", capacity.DefaultBudget, "the whole search's time; out of it, the bracket is reported")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("want exactly one URL, got %d arguments; usage: stackbench capacity --slo p99=20ms [flags] URL", len(pos))
	}
	lf.Duration = f.probe
	if f.probe <= 0 {
		return usagef("--probe %v: want a positive duration", f.probe)
	}
	base, err := loadConfig(lf, pos[0], false, env)
	if err != nil {
		return err
	}
	cfg, err := f.config()
	if err != nil {
		return err
	}
	if env.StderrIsTerminal {
		cfg.OnProbe = func(p capacity.Probe) { fmt.Fprintln(env.Stderr, probeLine(p)) }
	}
	defer spareP()()
	rep, err := capacity.Search(ctx, cfg, capacity.LoadProber{Base: base})
	var ce *capacity.ConfigError
	var lce *load.ConfigError
	switch {
	case errors.As(err, &ce):
		return usagef("--%v", ce)
	case errors.As(err, &lce):
		return usagef("%v", lce)
	case rep == nil:
		return err
	}
	rep.URL, rep.Method = base.URL, base.Method
	if len(base.Requests) > 0 {
		rep.Method = fmt.Sprintf("pool of %d requests", len(base.Requests))
	}
	if len(rep.Probes) > 0 && rep.Probes[0].Result() != nil {
		rep.URL = rep.Probes[0].Result().URL // redacted
	}
	if lf.Output == "json" {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		if werr := enc.Encode(rep); werr != nil {
			return werr
		}
	} else if werr := rep.WriteText(env.Stdout); werr != nil {
		return werr
	}
	switch {
	case err != nil && rep.Status == capacity.StatusInterrupted:
		return &ExitError{Code: ExitInterrupted, Msg: "interrupted: the probes above are what was measured"}
	case err != nil:
		return err
	case rep.Status != capacity.StatusConfirmed:
		return &ExitError{Code: ExitGateFailed, Msg: fmt.Sprintf("no capacity confirmed (%s); the bracket and every probe are above", rep.Status)}
	}
	return nil
}

// config checks capacity's own flags and builds the search's Config.
func (f *capacityFlags) config() (capacity.Config, error) {
	var cfg capacity.Config
	if f.slo == "" {
		return cfg, usagef("--slo is required: the latency objective, e.g. --slo p99=20ms")
	}
	slo, err := capacity.ParseSLO(f.slo)
	if err != nil {
		return cfg, usagef("--slo %v", err)
	}
	cfg = capacity.Config{SLO: slo, StartRPS: f.startRPS, StartFraction: f.startFraction, Confirmations: f.confirm,
		Retries: f.retries, Probe: f.probe, Warmup: f.warmup, Budget: f.budget}
	if f.retries == 0 {
		cfg.Retries = -1
	}
	if cfg.MaxGeneratorWaitShare = f.generatorWait; f.generatorWait == 0 {
		cfg.IgnoreStarvation = true
	}
	for _, s := range []struct {
		name, value string
		dst         *float64
	}{{"errors", f.errors, &cfg.MaxErrorShare}, {"unfinished", f.unfinished, &cfg.MaxUnfinishedShare},
		{"unsent", f.unsent, &cfg.MaxUnsentShare}, {"resolution", f.resolution, &cfg.Resolution}} {
		v, err := capacity.ParseShare(s.value)
		if err != nil {
			return cfg, usagef("--%s %v", s.name, err)
		}
		*s.dst = v
	}
	switch {
	case f.generatorWait < 0:
		return cfg, usagef("--generator-wait %v: want 0 (not judged) or more", f.generatorWait)
	case f.retries < 0:
		return cfg, usagef("--retries %d: want 0 or more", f.retries)
	case f.confirm < 1:
		return cfg, usagef("--confirm %d: want at least 1 window", f.confirm)
	case f.warmup <= 0:
		return cfg, usagef("--warmup %v: want a positive duration", f.warmup)
	case f.budget <= 0:
		return cfg, usagef("--budget %v: want a positive duration", f.budget)
	case cfg.Resolution == 0:
		return cfg, usagef("--resolution %s: want a share above 0, e.g. 2%%", f.resolution)
	}
	return cfg, nil
}

// probeLine is one probe as the live display shows it.
func probeLine(p capacity.Probe) string {
	if p.Phase == capacity.PhaseEstimate {
		return fmt.Sprintf("probe %2d  estimate  closed loop: %.1f req/s", p.Index, p.ThroughputRPS)
	}
	verdict := "pass"
	if !p.Pass {
		verdict = fmt.Sprintf("FAIL: %v", p.Reasons)
	}
	return fmt.Sprintf("probe %2d  %-8s  %.1f req/s: served %.1f, p99 %.2fms  %s",
		p.Index, p.Phase, p.RateRPS, p.ThroughputRPS, float64(p.LatencyMicros.P99)/1e3, verdict)
}
