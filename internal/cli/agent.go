package cli

import (
	"context"

	"github.com/stackbench/stackbench/internal/agent"
)

func init() {
	register(Command{Name: "agent", Short: "serve a coordinator on stdin/stdout (started over SSH; docs/scale-out.md)", Order: 900, Hidden: true, Run: runAgent})
}

// runAgent serves the agent protocol on stdin and stdout until stdin
// closes; the coordinator starts it over SSH (internal/remote). Whatever it
// started is stopped before it returns.
func runAgent(ctx context.Context, args []string, env Env) error {
	fs := newFlagSet("agent", "(started by stackbench over SSH; reads requests on stdin)", env)
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef("agent takes no arguments; the coordinator starts it over SSH (docs/scale-out.md)")
	}
	return agent.Serve(ctx, env.Stdin, env.Stdout)
}
