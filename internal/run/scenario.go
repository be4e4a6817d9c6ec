package run

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/stackbench/stackbench/internal/scenario"
	"github.com/stackbench/stackbench/internal/stack"
	"github.com/stackbench/stackbench/internal/workload"
)

// setupServer runs a custom workload's setup steps on a fresh process: the
// stack-scoped ones on the stack's first process of this invocation, the
// process-scoped ones on every process. The stack's captures are kept for
// its later processes; the process's are kept on s for its pools.
func (l *localSite) setupServer(ctx context.Context, s *server) error {
	r := l.r
	sc := r.opt.File.Scenario
	if sc == nil {
		return nil
	}
	if l.captures == nil {
		l.captures = map[string]map[string][]string{}
	}
	base := fmt.Sprintf("http://127.0.0.1:%d", s.tree.Port())
	stackVals, processVals, err := stack.Setup(ctx, sc, base, l.captures[s.stack.Name])
	if err != nil {
		return fmt.Errorf("setup: %w", err)
	}
	l.captures[s.stack.Name] = stackVals
	s.captures = processVals
	return nil
}

// variantPool expands a templated case with the serving process's
// captures and writes its variants as the generator's request pool, once
// per stack (per process when a process-scoped step captures values). The
// generator encodes the pool before its window and cycles over it.
func (l *localSite) variantPool(cur *server, c workload.Case) (string, error) {
	r := l.r
	sc := r.opt.File.Scenario
	name := c.Name
	if sc.Has(scenario.ScopeProcess) {
		name = fmt.Sprintf("%s.p%d", c.Name, cur.seq)
	}
	key := cur.stack.Name + "/" + name
	if l.pools == nil {
		l.pools = map[string]string{}
	}
	if p, ok := l.pools[key]; ok {
		return p, nil
	}
	reqs, err := sc.Variants(c, cur.captures)
	if err != nil {
		return "", fmt.Errorf("stack %s: %w", cur.stack.Name, err)
	}
	var buf []byte
	for _, req := range reqs {
		line, err := json.Marshal(req.LoadRequest())
		if err != nil {
			return "", fmt.Errorf("encode request pool: %w", err)
		}
		buf = append(append(buf, line...), '\n')
	}
	dir, err := r.poolDir(cur.stack.Name)
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, name+".jsonl")
	if err := os.WriteFile(path, buf, privateFileMode); err != nil {
		return "", err
	}
	l.pools[key] = path
	r.progress.logf("requests: %s %s: %d variants", cur.stack.Name, c.Name, len(reqs))
	return path, nil
}
