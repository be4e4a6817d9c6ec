package stack

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/stackbench/stackbench/internal/load"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/suite/boot"
)

// BootStacks describes stacks for the boot suite with what every command
// gives them (Env); the boot engine adds PORT, a new one for every start.
// The suite starts and asks a stack over its wire (HTTP/1.1, h2c, or
// either over TLS with the run's certificate); a gRPC stack is an error
// (BootWire says why).
func BootStacks(stacks []plan.Stack, h Harness, logDir string) ([]boot.Stack, error) {
	var out []boot.Stack
	for _, s := range stacks {
		if msg := BootWire(s); msg != "" {
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
		bs := boot.Stack{
			Name: s.Name, Dir: s.Dir, Command: s.Start, Env: env, HealthPath: s.Health, Protocol: s.Wire.Protocol, CA: caPEM,
			LogPath: filepath.Join(logDir, s.Name+".log"), CPUs: h.CPUs,
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

// BootWire says why the boot suite cannot measure s: a gRPC stack, whose
// first request would be a gRPC call (the suite sends HTTP requests, over
// HTTP/1.1 or HTTP/2, in cleartext or TLS); "" when it can.
func BootWire(s plan.Stack) string {
	if !s.Wire.GRPC() {
		return ""
	}
	how := s.Wire.ProtocolOf()
	if s.Wire.TLS {
		how += " over TLS"
	}
	return fmt.Sprintf("stack %s speaks %s, and the boot suite's first request is an HTTP request, not a gRPC call, so far: it has no cold starts (leave it out with --stacks, or boot_starts: 0)", s.Name, how)
}
