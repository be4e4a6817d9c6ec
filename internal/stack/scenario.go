package stack

import (
	"context"
	"fmt"
	"net"
	"os"
	"strconv"
	"time"

	"github.com/stackbench/stackbench/internal/load/grpcmsg"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/scenario"
	"github.com/stackbench/stackbench/internal/workload"
)

// SetupTimeout bounds each setup request (as the parity checks' requests).
const SetupTimeout = 30 * time.Second

// SetupTarget is how setup steps reach the process of stack s listening at
// host:port: over its wire (TLS trusting the run's throwaway CA, found
// under logDir as TLSFiles makes it; HTTP/2 by ALPN or with prior
// knowledge), and for a gRPC stack with its descriptors (its proto: file,
// or server reflection). The caller closes it when its steps are done.
func SetupTarget(s plan.Stack, host string, port int, logDir string) (scenario.Target, error) {
	ca, err := caOf(s, logDir)
	if err != nil {
		return scenario.Target{}, err
	}
	client, err := workload.WireClient(s.Wire.Protocol, ca, SetupTimeout)
	if err != nil {
		return scenario.Target{}, fmt.Errorf("stack %s: %w", s.Name, err)
	}
	addr := net.JoinHostPort(host, strconv.Itoa(port))
	t := scenario.Target{BaseURL: s.BaseURL(addr), Client: client}
	if s.Wire.GRPC() {
		if t.Method, err = methodFinder(s, addr, ca); err != nil {
			return scenario.Target{}, err
		}
	}
	return t, nil
}

// caOf is the PEM of the run's throwaway CA for a stack with TLS, nil for
// another.
func caOf(s plan.Stack, logDir string) ([]byte, error) {
	if !s.Wire.TLS {
		return nil, nil
	}
	files, err := TLSFiles(logDir)
	if err != nil {
		return nil, err
	}
	return os.ReadFile(files.CAFile)
}

// methodFinder finds the methods of gRPC stack s (at addr) in its proto:
// file, or by server reflection, each once.
func methodFinder(s plan.Stack, addr string, ca []byte) (scenario.MethodFinder, error) {
	var d *grpcmsg.Descriptors
	if file := s.ProtoFile(); file != "" {
		var err error
		if d, err = grpcmsg.Open(file); err != nil {
			return nil, fmt.Errorf("proto %s: %w", s.Wire.Proto, err)
		}
	}
	methods := map[string]*grpcmsg.Method{}
	return func(ctx context.Context, name string) (*grpcmsg.Method, error) {
		if m, ok := methods[name]; ok {
			return m, nil
		}
		var m *grpcmsg.Method
		var err error
		if d != nil {
			m, err = d.Method(name)
		} else {
			m, err = grpcmsg.Reflect(ctx, addr, s.Wire.TLS, ca, name)
		}
		if err == nil {
			methods[name] = m
		}
		return m, err
	}, nil
}

// Setup runs a scenario's setup steps against a stack's process t: the
// stack-scoped ones when stackCaptures is nil (the stack's first
// process), then the process-scoped ones. It returns the stack's captures
// (to keep for its later processes) and this process's (the stack's plus
// its own).
func Setup(ctx context.Context, sc *scenario.Scenario, t scenario.Target, stackCaptures map[string][]string) (stackVals, processVals map[string][]string, err error) {
	if sc == nil {
		return nil, nil, nil
	}
	if stackCaptures == nil {
		if stackCaptures, err = sc.Setup(ctx, t, scenario.ScopeStack, map[string][]string{}); err != nil {
			return nil, nil, err
		}
	}
	if !sc.Has(scenario.ScopeProcess) {
		return stackCaptures, stackCaptures, nil
	}
	processVals, err = sc.Setup(ctx, t, scenario.ScopeProcess, stackCaptures)
	return stackCaptures, processVals, err
}

// FirstVariants are what the parity gate checks of a custom workload's
// templated cases on one stack: each case's first variant.
type FirstVariants struct {
	// Requests holds the first HTTP request of each templated case.
	Requests map[string]workload.Request
	// Calls holds the first gRPC call of each case whose message or
	// metadata is templated (filled for a gRPC stack only).
	Calls map[string]workload.GRPCCall
	// Secrets are the values the findings must not quote: the file's
	// ${env:…} values and the captures.
	Secrets workload.Secrets
}

// FirstVariantsOf runs every setup step against the stack's process t
// and expands each templated case with what they captured, keeping each
// case's first variant (every variant is expanded, so one that cannot be
// sent fails the stack before any load).
func FirstVariantsOf(ctx context.Context, sc *scenario.Scenario, w *workload.Workload, t scenario.Target) (FirstVariants, error) {
	if sc == nil {
		return FirstVariants{}, nil
	}
	_, captures, err := Setup(ctx, sc, t, nil)
	if err != nil {
		return FirstVariants{Secrets: sc.Secrets(nil)}, err
	}
	out := FirstVariants{Requests: map[string]workload.Request{}, Calls: map[string]workload.GRPCCall{}, Secrets: sc.Secrets(captures)}
	for _, c := range w.Cases {
		if c.Templated {
			vs, err := sc.Variants(c, captures)
			if err != nil {
				return out, err
			}
			out.Requests[c.Name] = vs[0]
		}
		if t.Method != nil && c.GRPC != nil && c.GRPCTemplated {
			calls, err := sc.CallVariants(c, captures)
			if err != nil {
				return out, err
			}
			out.Calls[c.Name] = calls[0]
		}
	}
	return out, nil
}

// BootSetup is the boot suite's Setup for stack s (boot.Stack.Setup):
// every setup step of sc, run on the stack's unmeasured start; nil when
// sc has none.
func BootSetup(s plan.Stack, sc *scenario.Scenario, logDir string) func(ctx context.Context, port int) error {
	if sc == nil || len(sc.Steps) == 0 {
		return nil
	}
	return func(ctx context.Context, port int) error {
		t, err := SetupTarget(s, "127.0.0.1", port, logDir)
		if err != nil {
			return err
		}
		defer t.Close()
		_, _, err = Setup(ctx, sc, t, nil)
		return err
	}
}
