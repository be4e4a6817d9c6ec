package run

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/stackbench/stackbench/internal/scenario"
	"github.com/stackbench/stackbench/internal/stack"
	"github.com/stackbench/stackbench/internal/workload"
)

// requestPools are the request pools the generators send, written here
// once and sent to the generator hosts with each window across hosts: a
// case's spread requests, a templated case's variants expanded with the
// setup steps' captures.
type requestPools struct {
	r *runner
	// files are the pools written, by case (spread requests) or by
	// stack and case or process (variants).
	files map[string]string
	// captures holds each stack's setup captures (the stack-scoped
	// steps'), from its first process of this invocation.
	captures map[string]map[string][]string
}

// of is the pool c is sent from on cur: its variants when it is
// templated, its spread requests under protocol spread:, its one request
// when that has headers or a body, or "" for a bare request (a method and
// a path), which alone goes on the generator's command line: anything
// else there is shown to every user of the host by ps.
func (p *requestPools) of(cur *server, c workload.Case) (string, error) {
	switch {
	case c.IsFlow():
		return p.flowFile(c)
	case c.IsMix():
		return p.mixPool(cur, c)
	case c.Templated:
		return p.variantPool(cur, c)
	case p.r.opt.Plan.Protocol.Spread:
		return p.poolFile(c)
	case len(c.Header) > 0 || len(c.Body) > 0:
		return p.literalPool(c)
	}
	return "", nil
}

// literalPool writes a case's one request, headers and body included, as
// a pool of one (the generator's hot path is the same as for one fixed
// request), so that neither a token in a header nor a password in a body
// is on a command line.
func (p *requestPools) literalPool(c workload.Case) (string, error) {
	key := "literal/" + c.Name
	if path, ok := p.files[key]; ok {
		return path, nil
	}
	dir, err := p.r.poolRoot.sub("literal")
	if err != nil {
		return "", err
	}
	line, err := json.Marshal(workload.Request{Method: c.Method, Path: c.Path, Header: c.Header, Body: c.Body}.LoadRequest())
	if err != nil {
		return "", fmt.Errorf("encode request pool: %w", err)
	}
	path := filepath.Join(dir, c.Name+".jsonl")
	if err := os.WriteFile(path, append(line, '\n'), privateFileMode); err != nil {
		return "", err
	}
	if p.files == nil {
		p.files = map[string]string{}
	}
	p.files[key] = path
	return path, nil
}

// setup runs a custom workload's setup steps on a fresh process listening
// at host:port, over its stack's wire: the stack-scoped ones on the
// stack's first process of this invocation, the process-scoped ones on
// every process. The stack's captures are kept for its later processes;
// the process's are kept on s for its pools.
func (p *requestPools) setup(ctx context.Context, s *server, host string, port int) error {
	r := p.r
	sc := r.opt.File.Scenario
	if sc == nil || len(sc.Steps) == 0 {
		return nil
	}
	if p.captures == nil {
		p.captures = map[string]map[string][]string{}
	}
	target, err := stack.SetupTarget(s.stack, host, port, logsDir(r.opt.Dir))
	if err != nil {
		return fmt.Errorf("setup: %w", err)
	}
	defer target.Close()
	stackVals, processVals, err := stack.Setup(ctx, sc, target, p.captures[s.stack.Name])
	if err != nil {
		return fmt.Errorf("setup: %w", err)
	}
	p.captures[s.stack.Name] = stackVals
	s.captures = processVals
	return nil
}

// variantPool expands a templated case with the serving process's
// captures and writes its variants as the generator's request pool, once
// per stack (per process when a process-scoped step captures values). The
// generator encodes the pool before its window and cycles over it.
func (p *requestPools) variantPool(cur *server, c workload.Case) (string, error) {
	r := p.r
	sc := r.opt.File.Scenario
	name := c.Name
	if sc.Has(scenario.ScopeProcess) {
		name = fmt.Sprintf("%s.p%d", c.Name, cur.seq)
	}
	key := cur.stack.Name + "/" + name
	if p.files == nil {
		p.files = map[string]string{}
	}
	if path, ok := p.files[key]; ok {
		return path, nil
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
	dir, err := r.poolRoot.sub(cur.stack.Name)
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, name+".jsonl")
	if err := os.WriteFile(path, buf, privateFileMode); err != nil {
		return "", err
	}
	p.files[key] = path
	r.progress.logf("requests: %s %s: %d variants", cur.stack.Name, c.Name, len(reqs))
	return path, nil
}

// messagePool expands a gRPC case's templated call with the serving
// process's captures and writes its variants as the generator's pools:
// its messages, one compact JSON message a line, and when the case has
// metadata, its metadata, one JSON object a line (line k with message
// k; "" when it has none); once when the workload has no setup steps,
// else once per stack (per process when a process-scoped step captures
// values), as variantPool.
func (p *requestPools) messagePool(cur *server, c workload.Case) (messages, metadata string, err error) {
	r := p.r
	sc := r.opt.File.Scenario
	name, dir := c.Name, []string{"+grpc"} // "+": no stack has that name
	if len(sc.Steps) > 0 {
		dir = append(dir, cur.stack.Name)
		if sc.Has(scenario.ScopeProcess) {
			name = fmt.Sprintf("%s.p%d", c.Name, cur.seq)
		}
	}
	key := filepath.Join(append(dir, name)...)
	if p.files == nil {
		p.files = map[string]string{}
	}
	if path, ok := p.files[key]; ok {
		return path, p.files[key+".metadata"], nil
	}
	calls, err := sc.CallVariants(c, cur.captures)
	if err != nil {
		return "", "", fmt.Errorf("stack %s: %w", cur.stack.Name, err)
	}
	var buf, md bytes.Buffer
	for k, call := range calls {
		if err := json.Compact(&buf, []byte(call.Message)); err != nil {
			return "", "", fmt.Errorf("case %s: grpc message, variant %d: not JSON: %v (%s)", c.Name, k+1, err, call.Message)
		}
		buf.WriteByte('\n')
		m := map[string]string{}
		for _, h := range call.Metadata {
			m[h.Name] = h.Value
		}
		line, _ := json.Marshal(m) // strings only: cannot fail
		md.Write(append(line, '\n'))
	}
	poolDir, err := r.poolRoot.sub(dir...)
	if err != nil {
		return "", "", err
	}
	messages = filepath.Join(poolDir, name+".jsonl")
	if err := os.WriteFile(messages, buf.Bytes(), privateFileMode); err != nil {
		return "", "", err
	}
	if len(c.GRPC.Metadata) > 0 {
		metadata = filepath.Join(poolDir, name+".metadata.jsonl")
		if err := os.WriteFile(metadata, md.Bytes(), privateFileMode); err != nil {
			return "", "", err
		}
	}
	p.files[key], p.files[key+".metadata"] = messages, metadata
	r.progress.logf("requests: %s %s: %d gRPC message variants", cur.stack.Name, c.Name, len(calls))
	return messages, metadata, nil
}

// poolFile writes a case's spread requests (workload.Requests) as a request
// pool the first time it is needed; the generator sends them round-robin.
func (p *requestPools) poolFile(c workload.Case) (string, error) {
	r := p.r
	if p.files == nil {
		p.files = map[string]string{}
	}
	if path, ok := p.files[c.Name]; ok {
		return path, nil
	}
	dir, err := r.poolRoot.sub()
	if err != nil {
		return "", err
	}
	var buf []byte
	for _, req := range r.opt.File.Workload.Requests(c, r.opt.Plan.JWTSecret, true) {
		line, err := json.Marshal(req.LoadRequest())
		if err != nil {
			return "", errors.New("encode request pool: " + err.Error())
		}
		buf = append(append(buf, line...), '\n')
	}
	path := filepath.Join(dir, c.Name+".jsonl")
	if err := os.WriteFile(path, buf, privateFileMode); err != nil {
		return "", err
	}
	p.files[c.Name] = path
	return path, nil
}
