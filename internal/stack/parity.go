package stack

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/proc"
	"github.com/stackbench/stackbench/internal/scenario"
	"github.com/stackbench/stackbench/internal/workload"
)

// ParityOptions configure Parity.
type ParityOptions struct {
	Workload  *workload.Workload
	JWTSecret string
	// Database is where each stack gets a fresh copy of the seeded
	// database; nil for a workload without one.
	Database *Database
	// DatabaseNames begins the copies' names (<DatabaseNames>_0, _1, … in
	// the stacks' order). Empty: stackbench_parity and eight random hex
	// digits, so that two gates on one server (two runs, parallel tests)
	// never drop or write each other's copies.
	DatabaseNames string
	// LogDir receives each stack's output as <name>.log.
	LogDir string
	// Progress receives one line per stack.
	Progress func(string)
	// Scenario is a custom workload's setup steps and templated cases; nil
	// for none. Each stack's process runs every setup step before the
	// checks, and a templated case is checked with its first variant, after
	// all its variants were expanded (a variant that cannot be sent fails
	// the stack before any load).
	Scenario *scenario.Scenario
}

// Parity runs the parity gate: each stack (already built) is started against
// a fresh copy of the seeded database, checked against the contract, and
// stopped; then the stacks are compared. A stack that does not start or
// keep answering is a failed result, not an error. workload.NewReport
// compares the results.
func Parity(ctx context.Context, stacks []plan.Stack, o ParityOptions) ([]workload.StackResult, error) {
	var results []workload.StackResult
	names := o.DatabaseNames
	if names == "" {
		names = CopyName("stackbench_parity")
	}
	for i, s := range stacks {
		t0 := time.Now()
		r := parityStack(ctx, s, fmt.Sprintf("%s_%d", names, i), o)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if len(r.Checks) == 0 && r.Error != "" {
			o.Progress(fmt.Sprintf("parity: %s: failed before the first check", s.Name))
		} else {
			o.Progress(fmt.Sprintf("parity: %s: %d/%d checks passed in %.1fs", s.Name, r.Passed(), len(r.Checks)+r.NotRun, time.Since(t0).Seconds()))
		}
		results = append(results, r)
	}
	return results, nil
}

// parityStack checks one stack and always stops it.
func parityStack(ctx context.Context, s plan.Stack, dbName string, o ParityOptions) workload.StackResult {
	fail := func(err error, tail string) workload.StackResult {
		return workload.StackFailure(s.Name, o.Workload.Name, err, tail)
	}
	h := Harness{Workload: o.Workload.Name, JWTSecret: o.JWTSecret}
	if o.Database != nil {
		url, err := o.Database.FreshFor(ctx, s, dbName)
		if err != nil {
			return fail(err, "")
		}
		h.DatabaseURL = url
	}
	p, err := startNoting(ctx, s, h, o.LogDir, o.Progress)
	if err != nil {
		// proc's error already quotes the end of the stack's output.
		return fail(fmt.Errorf("did not start: %w", err), "")
	}
	// The setup steps go over the stack's wire; the templated cases'
	// first variants are expanded with what they capture.
	target, err := SetupTarget(s, "127.0.0.1", p.Port(), o.LogDir)
	var first FirstVariants
	if err == nil {
		first, err = FirstVariantsOf(ctx, o.Scenario, o.Workload, target)
		target.Close()
	}
	secrets := first.Secrets
	opt := workload.RunOptions{
		Stack: s.Name, Secret: o.JWTSecret, DatabaseURL: h.DatabaseURL, HealthPath: strings.TrimPrefix(s.Health, s.Base), // under target's base URL
		Requests: first.Requests, Calls: first.Calls, Protocol: s.Wire.Protocol,
	}
	if s.TFB != nil {
		opt.TFBRelax = s.TFB.Relax
	}
	if err == nil {
		err = wireOptions(s, target, o.LogDir, &opt)
	}
	if err != nil {
		p.Stop(StopGrace)
		r := fail(err, p.LogTail())
		r.Secrets = secrets
		return r
	}
	// The stack's own paths (paths:, checked when the file was read).
	w, err := o.Workload.WithTFBPaths(s.Paths)
	if err != nil {
		p.Stop(StopGrace)
		return fail(err, "")
	}
	r := workload.RunChecks(ctx, w, target.BaseURL, opt)
	r.Secrets = secrets
	if err := p.Check(); err != nil && r.Error == "" {
		r.Error = fmt.Sprintf("crashed during the checks: %v", err)
	}
	if r.Error != "" {
		r.StderrTail = p.LogTail()
	}
	if err := p.Stop(StopGrace); err != nil {
		o.Progress(fmt.Sprintf("warning: stopping %s: %v", s.Name, err))
	}
	return r
}

// BuildAll runs every stack's build command, logging to
// logDir/<name>.build.log; the first failure stops it.
func BuildAll(ctx context.Context, stacks []plan.Stack, logDir string, progress func(string)) error {
	for _, s := range stacks {
		what := s.Build
		if s.Container != nil && s.Container.Build != "" {
			what = strings.TrimPrefix(what+" && ", " && ") + "image " + s.Container.Image + " from " + s.Container.Build
		}
		if what == "" {
			continue
		}
		t0 := time.Now()
		progress(fmt.Sprintf("build %s: %s", s.Name, what))
		if err := Build(ctx, s, filepath.Join(logDir, s.Name+".build.log")); err != nil {
			return err
		}
		progress(fmt.Sprintf("build %s: done in %.1fs", s.Name, time.Since(t0).Seconds()))
	}
	return nil
}

// startNoting is Start that says so when the stack is slow to answer its
// health path, so that a wait of up to a minute is not silence.
func startNoting(ctx context.Context, s plan.Stack, h Harness, logDir string, progress func(string)) (*proc.Process, error) {
	timeout := BootTimeoutOf(s)
	after := min(5*time.Second, timeout/2)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		select {
		case <-done:
		case <-time.After(after):
			progress(fmt.Sprintf("parity: %s: no 200 on %s after %s; waiting up to %s in all (raise boot_timeout for a slow starter)", s.Name, s.Health, after, timeout))
		}
	}()
	p, err := Start(ctx, s, h, logDir)
	close(done)
	wg.Wait()
	return p, err
}

// wireOptions sets what the checks of a stack need of its wire: the
// run's CA for a stack with TLS; for a gRPC stack, where its methods'
// descriptors are (its proto: file, or server reflection), as the setup
// steps found them.
func wireOptions(s plan.Stack, t scenario.Target, logDir string, opt *workload.RunOptions) error {
	if s.Wire.TLS {
		var err error
		if opt.CA, err = caOf(s, logDir); err != nil {
			return err
		}
	}
	if t.Method != nil {
		opt.GRPC = &workload.GRPCOptions{Method: t.Method}
	}
	return nil
}
