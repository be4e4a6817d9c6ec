package stack

import (
	"path/filepath"
	"strings"

	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/suite/boot"
)

// BootStacks describes stacks for the boot suite with what every command
// gives them (Env); the boot engine adds PORT, a new one for every start.
func BootStacks(stacks []plan.Stack, h Harness, logDir string) ([]boot.Stack, error) {
	var out []boot.Stack
	for _, s := range stacks {
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
