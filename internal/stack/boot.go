package stack

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/suite/boot"
)

// BootStacks describes stacks for the boot suite with what every command
// gives them (Env); the boot engine adds PORT, a new one for every start.
// The suite starts and asks a stack over HTTP/1.1 in cleartext: a stack on
// another wire is an error (BootWire says which).
func BootStacks(stacks []plan.Stack, h Harness, logDir string) ([]boot.Stack, error) {
	var out []boot.Stack
	for _, s := range stacks {
		if msg := BootWire(s); msg != "" {
			return nil, errors.New(msg)
		}
		var env []string
		for _, kv := range Env(s, 0, h) {
			if !strings.HasPrefix(kv, "PORT=") {
				env = append(env, kv)
			}
		}
		bs := boot.Stack{
			Name: s.Name, Dir: s.Dir, Command: s.Start, Env: env, HealthPath: s.Health,
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

// BootWire says why the boot suite cannot measure s, a stack whose wire
// is not HTTP/1.1 in cleartext; "" when it can.
func BootWire(s plan.Stack) string {
	if s.Wire == (plan.Wire{}) {
		return ""
	}
	how := s.Wire.ProtocolOf()
	if s.Wire.TLS {
		how += " over TLS"
	}
	return fmt.Sprintf("stack %s speaks %s, and the boot suite starts and asks a stack over HTTP/1.1 in cleartext only so far: it has no cold starts (leave it out with --stacks, or boot_starts: 0)", s.Name, how)
}
