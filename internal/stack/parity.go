package stack

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/stackbench/stackbench/internal/load/grpcmsg"
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
	for i, s := range stacks {
		t0 := time.Now()
		r := parityStack(ctx, s, fmt.Sprintf("stackbench_parity_%d", i), o)
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
		url, err := o.Database.Fresh(ctx, dbName)
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
	base := fmt.Sprintf("%s://127.0.0.1:%d", s.Wire.Scheme(), p.Port())
	// The templated cases' first variants (setup steps, which go over
	// HTTP/1.1 in cleartext, are refused by plan on other wires).
	requests, secrets, err := FirstVariants(ctx, o.Scenario, o.Workload, base)
	opt := workload.RunOptions{
		Stack: s.Name, Secret: o.JWTSecret, DatabaseURL: h.DatabaseURL, HealthPath: s.Health, Requests: requests,
		Protocol: s.Wire.Protocol,
	}
	if err == nil {
		err = wireOptions(ctx, s, o, p.Port(), o.LogDir, &opt)
	}
	if err != nil {
		p.Stop(StopGrace)
		r := fail(err, p.LogTail())
		r.Secrets = secrets
		return r
	}
	r := workload.RunChecks(ctx, o.Workload, base, opt)
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
// descriptors are (its proto: file, or server reflection) and the first
// variant of each templated message.
func wireOptions(ctx context.Context, s plan.Stack, o ParityOptions, port int, logDir string, opt *workload.RunOptions) error {
	if s.Wire.TLS {
		files, err := TLSFiles(logDir)
		if err != nil {
			return err
		}
		if opt.CA, err = os.ReadFile(files.CAFile); err != nil {
			return err
		}
	}
	if !s.Wire.GRPC() {
		return nil
	}
	methods := map[string]*grpcmsg.Method{}
	var d *grpcmsg.Descriptors
	if file := s.ProtoFile(); file != "" {
		var err error
		if d, err = grpcmsg.Open(file); err != nil {
			return fmt.Errorf("proto %s: %w", s.Wire.Proto, err)
		}
	}
	ca := opt.CA
	opt.GRPC = &workload.GRPCOptions{Method: func(ctx context.Context, name string) (*grpcmsg.Method, error) {
		if m, ok := methods[name]; ok {
			return m, nil
		}
		var m *grpcmsg.Method
		var err error
		if d != nil {
			m, err = d.Method(name)
		} else {
			m, err = grpcmsg.Reflect(ctx, fmt.Sprintf("127.0.0.1:%d", port), s.Wire.TLS, ca, name)
		}
		if err == nil {
			methods[name] = m
		}
		return m, err
	}}
	opt.Messages = map[string]string{}
	for _, c := range o.Workload.Cases {
		if c.GRPC == nil || !c.GRPCTemplated {
			continue
		}
		msgs, err := o.Scenario.MessageVariants(c, nil)
		if err != nil {
			return err
		}
		opt.Messages[c.Name] = msgs[0]
	}
	return nil
}
