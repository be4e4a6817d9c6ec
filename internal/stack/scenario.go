package stack

import (
	"context"

	"github.com/stackbench/stackbench/internal/scenario"
	"github.com/stackbench/stackbench/internal/workload"
)

// Setup runs a scenario's setup steps against a stack's process at baseURL:
// the stack-scoped ones when stackCaptures is nil (the stack's first
// process), then the process-scoped ones. It returns the stack's captures
// (to keep for its later processes) and this process's (the stack's plus
// its own).
func Setup(ctx context.Context, sc *scenario.Scenario, baseURL string, stackCaptures map[string][]string) (stackVals, processVals map[string][]string, err error) {
	if sc == nil {
		return nil, nil, nil
	}
	if stackCaptures == nil {
		if stackCaptures, err = sc.Setup(ctx, baseURL, scenario.ScopeStack, map[string][]string{}); err != nil {
			return nil, nil, err
		}
	}
	if !sc.Has(scenario.ScopeProcess) {
		return stackCaptures, stackCaptures, nil
	}
	processVals, err = sc.Setup(ctx, baseURL, scenario.ScopeProcess, stackCaptures)
	return stackCaptures, processVals, err
}

// FirstVariants runs every setup step against the stack at baseURL and
// expands each templated case with what they captured, returning each
// case's first variant: the request the parity gate checks, with the
// values its findings must not quote (the file's ${env:…} values and the
// captures).
func FirstVariants(ctx context.Context, sc *scenario.Scenario, w *workload.Workload, baseURL string) (map[string]workload.Request, workload.Secrets, error) {
	if sc == nil {
		return nil, nil, nil
	}
	_, captures, err := Setup(ctx, sc, baseURL, nil)
	if err != nil {
		return nil, sc.Secrets(nil), err
	}
	secrets := sc.Secrets(captures)
	out := map[string]workload.Request{}
	for _, c := range w.Cases {
		if !c.Templated {
			continue
		}
		vs, err := sc.Variants(c, captures)
		if err != nil {
			return nil, secrets, err
		}
		out[c.Name] = vs[0]
	}
	return out, secrets, nil
}
