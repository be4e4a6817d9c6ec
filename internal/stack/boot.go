package stack

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/stackbench/stackbench/internal/cpuset"
	"github.com/stackbench/stackbench/internal/load"
	"github.com/stackbench/stackbench/internal/load/grpcmsg"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/proc"
	"github.com/stackbench/stackbench/internal/workload"
)

// BootTarget is one stack to cold-start in the boot suite
// (internal/suite/boot, where it is boot.Stack).
type BootTarget struct {
	Name    string
	Dir     string
	Command string
	// Env is added to the harness's environment: DATABASE_URL, JWT_SECRET
	// and the stack's own variables. The suite adds PORT for every start.
	Env        []string
	HealthPath string
	// Base is the stack's base path ("/api"), put before the first
	// request's path; HealthPath holds it already.
	Base string
	// Path, when set, is the first request's path for this stack in place
	// of boot.Options.Request's (a tfb stack's own URL, its paths:).
	Path string
	// Protocol is how the stack is asked, its health path and the first
	// request alike: "" or "http1" HTTP/1.1, "h2c" HTTP/2 in cleartext
	// (prior knowledge), "h2" HTTP/2 over TLS (proc.Spec.HealthProtocol).
	// CA, when set, makes both requests TLS, trusting it only; the first
	// request's handshake is part of its latency, as a new client's is.
	Protocol string
	CA       []byte
	// FirstRequest, when set, sends the first request in place of the
	// suite's HTTP request (boot.Options.Request), a gRPC stack's call: on
	// a new connection to port, it returns the time from the send to the
	// answer, the answer's status as the case's HTTP status (a gRPC OK
	// as the case's success status), and an error when none came.
	FirstRequest func(ctx context.Context, port int) (time.Duration, int, error)
	// Setup, when set, runs on the unmeasured start of the stack, once
	// it answers on its health path and before its first request: a
	// custom workload's setup steps, which make on the stack's database
	// the rows the first request of every measured start reads (a user,
	// an article). The measured starts run none: a cold start's first
	// request stays the first the process serves.
	Setup   func(ctx context.Context, port int) error
	LogPath string
	// CPUs is the stack's lane under placement: lanes; empty leaves the
	// harness's mask (proc.Spec.CPUs).
	CPUs cpuset.Set
	// Container is set when Command runs the server in a container
	// (proc.Spec.Container); each start names its own.
	Container *proc.Container
}

// BootStacks describes stacks for the boot suite with what every command
// gives them (Env); the boot engine adds PORT, a new one for every start.
// The suite starts and asks a stack over its wire (HTTP/1.1, h2c, or
// either over TLS with the run's certificate); a gRPC stack's first
// request is first's gRPC call, or grpcCall when given (first's call
// with its templates expanded: its first variant).
func BootStacks(stacks []plan.Stack, h Harness, logDir string, first workload.Case, grpcCall *workload.GRPCCall) ([]BootTarget, error) {
	var out []BootTarget
	for _, s := range stacks {
		if msg := BootWire(s, first); msg != "" {
			return nil, errors.New(msg)
		}
		var files *load.ThrowawayCA
		var caPEM []byte
		if s.Wire.TLS {
			f, err := TLSFiles(logDir)
			if err != nil {
				return nil, fmt.Errorf("stack %s has tls: on: %w", s.Name, err)
			}
			if caPEM, err = os.ReadFile(f.CAFile); err != nil {
				return nil, err
			}
			files = &f
		}
		var env []string
		for _, kv := range envWith(s, 0, h, files) {
			if !strings.HasPrefix(kv, "PORT=") {
				env = append(env, kv)
			}
		}
		bs := BootTarget{
			Name: s.Name, Dir: s.Dir, Command: s.Start, Env: env, HealthPath: s.Health, Base: s.Base, Protocol: s.Wire.Protocol, CA: caPEM,
			LogPath: filepath.Join(logDir, s.Name+".log"), CPUs: h.CPUs,
		}
		if s.Wire.GRPC() {
			call := first.GRPC
			if grpcCall != nil {
				call = grpcCall
			}
			bs.FirstRequest = grpcFirstRequest(s, first, *call, caPEM)
		}
		if s.Container != nil {
			var err error
			if bs.Command, bs.Container, err = containerCommand(s, env); err != nil {
				return nil, err
			}
		}
		out = append(out, bs)
	}
	return out, nil
}

// BootWire says why the boot suite cannot measure s with first as its
// first request: a gRPC stack and a case without a gRPC call; "" when it
// can.
func BootWire(s plan.Stack, first workload.Case) string {
	if !s.Wire.GRPC() || first.GRPC != nil {
		return ""
	}
	return fmt.Sprintf("stack %s speaks grpc, and the boot suite's first request, case %s, has no gRPC call: it has no cold starts (give the case grpc: {method, message}, or leave the stack out with --stacks, or boot_starts: 0)", s.Name, first.Name)
}

// grpcFirstRequest is a gRPC stack's first request in the boot suite:
// call (c's, expanded), on a new connection, timed from its send to its
// answer. Its method is found before the clock starts: in the stack's
// proto: file, or by reflection on the first start, then kept.
func grpcFirstRequest(s plan.Stack, c workload.Case, call workload.GRPCCall, ca []byte) func(ctx context.Context, port int) (time.Duration, int, error) {
	var m *grpcmsg.Method
	success := http.StatusOK
	for _, st := range c.Expect {
		if st >= 200 && st < 300 {
			success = st
			break
		}
	}
	return func(ctx context.Context, port int) (time.Duration, int, error) {
		addr := "127.0.0.1:" + strconv.Itoa(port)
		if m == nil {
			find, err := methodFinder(s, addr, ca)
			if err == nil {
				m, err = find(ctx, c.GRPC.Method)
			}
			if err != nil {
				return 0, 0, err
			}
		}
		client, err := workload.WireClient(plan.WireGRPC, ca, 0)
		if err != nil {
			return 0, 0, err
		}
		defer client.CloseIdleConnections()
		t0 := time.Now()
		a, err := workload.CallGRPC(ctx, client, s.Wire.Scheme()+"://"+addr, m, call.Message, call.Metadata)
		d := time.Since(t0)
		switch {
		case err != nil:
			return d, 0, err
		case a.HTTPStatus != http.StatusOK:
			return d, a.HTTPStatus, nil
		case a.Code != 0:
			return d, workload.HTTPStatusOfGRPC(a.Code), nil
		}
		return d, success, nil
	}
}
