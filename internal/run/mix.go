package run

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/stackbench/stackbench/internal/load"
	"github.com/stackbench/stackbench/internal/scenario"
	"github.com/stackbench/stackbench/internal/workload"
)

// mixPool writes a mix's request pool: each route's requests as its case
// sends them alone (its variants, its spread requests, or its one
// request), each line naming its route and its case's success statuses.
// The generator interleaves them by the mix's weights (load.Config.Mix).
// Written once per stack (per process when a process-scoped step captures
// values): templated routes hold that stack's captures.
func (p *requestPools) mixPool(cur *server, c workload.Case) (string, error) {
	r := p.r
	name := c.Name
	if sc := r.opt.File.Scenario; sc != nil && sc.Has(scenario.ScopeProcess) {
		name = fmt.Sprintf("%s.p%d", c.Name, cur.seq)
	}
	key := "mix/" + cur.stack.Name + "/" + name
	if path, ok := p.files[key]; ok {
		return path, nil
	}
	var buf []byte
	for _, part := range c.Mix {
		rc, ok := r.opt.File.Workload.Case(part.Case)
		if !ok {
			return "", fmt.Errorf("mix %s: route %s is not a case of the workload", c.Name, part.Case)
		}
		reqs, err := p.routeRequests(cur, rc)
		if err != nil {
			return "", fmt.Errorf("mix %s: %w", c.Name, err)
		}
		for _, req := range reqs {
			req.Route, req.Expect = rc.Name, rc.Expect
			line, err := json.Marshal(req)
			if err != nil {
				return "", fmt.Errorf("encode request pool: %w", err)
			}
			buf = append(append(buf, line...), '\n')
		}
	}
	dir, err := r.poolRoot.sub("mix", cur.stack.Name)
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, name+".jsonl")
	if err := os.WriteFile(path, buf, privateFileMode); err != nil {
		return "", err
	}
	if p.files == nil {
		p.files = map[string]string{}
	}
	p.files[key] = path
	return path, nil
}

// routeRequests are the requests case c sends on cur when it is loaded
// alone (requestPools.of).
func (p *requestPools) routeRequests(cur *server, c workload.Case) ([]load.Request, error) {
	r := p.r
	var reqs []workload.Request
	switch {
	case c.Templated:
		var err error
		if reqs, err = r.opt.File.Scenario.Variants(c, cur.captures); err != nil {
			return nil, fmt.Errorf("stack %s: %w", cur.stack.Name, err)
		}
	case r.opt.Plan.Protocol.Spread:
		reqs = r.opt.File.Workload.Requests(c, r.opt.Plan.JWTSecret, true)
	default:
		reqs = []workload.Request{{Method: c.Method, Path: c.Path, Header: c.Header, Body: c.Body}}
	}
	out := make([]load.Request, len(reqs))
	for i, req := range reqs {
		out[i] = req.LoadRequest()
	}
	return out, nil
}

// flowFile writes a flow case's flow as the generator reads it (--flow),
// once: its steps hold only their own captures and draws, the same for
// every stack.
func (p *requestPools) flowFile(c workload.Case) (string, error) {
	key := "flow/" + c.Name
	if path, ok := p.files[key]; ok {
		return path, nil
	}
	data, err := json.Marshal(c.Flow)
	if err != nil {
		return "", fmt.Errorf("encode flow %s: %w", c.Name, err)
	}
	dir, err := p.r.poolRoot.sub("flow")
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, c.Name+".json")
	if err := os.WriteFile(path, data, privateFileMode); err != nil {
		return "", err
	}
	if p.files == nil {
		p.files = map[string]string{}
	}
	p.files[key] = path
	return path, nil
}
