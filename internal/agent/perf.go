package agent

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/stackbench/stackbench/internal/proc"
	"github.com/stackbench/stackbench/internal/profiling/perfrec"
)

// PerfSpec asks for perf's profile of a started tree (perf, new in
// version 3): recorded from when the request arrives (before the
// window's warm-up: perf takes seconds to start on a busy host) until To,
// its samples kept from From to To, both instants on the agent's clock,
// as the profiling phase records on one machine (perfrec).
type PerfSpec struct {
	Name string    `json:"name"`
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
}

// maxProfileBytes bounds a profile sent back: base64 in one response
// line, which the client reads up to maxLine.
const maxProfileBytes = maxLine / 2

// perfScope is whether and how perf records on the agent's host, found
// once per session (perfrec.Check).
type perfScope struct {
	once  sync.Once
	scope perfrec.Scope
	err   error
}

func (p *perfScope) get(ctx context.Context) (perfrec.Scope, error) {
	p.once.Do(func() {
		dir, err := os.MkdirTemp("", "stackbench-perf-check-")
		if err != nil {
			p.err = err
			return
		}
		defer os.RemoveAll(dir)
		p.scope, p.err = perfrec.Check(ctx, dir)
	})
	return p.scope, p.err
}

// perf records spec's tree and returns its profile, gzipped pprof.
func (s *server) perf(ctx context.Context, spec *PerfSpec) ([]byte, error) {
	if spec == nil || !spec.To.After(spec.From) {
		return nil, errors.New("agent: perf needs a process and a window that ends after it starts")
	}
	s.mu.Lock()
	p := s.procs[spec.Name]
	s.mu.Unlock()
	if p == nil {
		return nil, fmt.Errorf("agent: no process %q is running", spec.Name)
	}
	scope, err := s.perfScope.get(ctx)
	if err != nil {
		return nil, fmt.Errorf("perf cannot sample on this host: %w", err)
	}
	dir, err := os.MkdirTemp("", "stackbench-perf-")
	if err != nil {
		return nil, fmt.Errorf("agent: %w", err)
	}
	defer os.RemoveAll(dir)
	pids := proc.TreePIDs(p.PID())
	rec, err := perfrec.Start(scope, pids, filepath.Join(dir, "perf.data"), time.Until(spec.To)+30*time.Second)
	if err != nil {
		return nil, err
	}
	waitErr := sleepUntil(ctx, spec.To)
	data, err := rec.Stop()
	if waitErr != nil {
		return nil, waitErr
	}
	if err != nil {
		return nil, err
	}
	// Threads and processes forked during the window join the filter.
	set := perfrec.PIDSet(append(pids, proc.TreePIDs(p.PID())...))
	profiles, err := perfrec.Convert(ctx, data, spec.From, spec.To, set)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := profiles[0].Write(&buf); err != nil {
		return nil, err
	}
	if buf.Len() > maxProfileBytes {
		return nil, fmt.Errorf("agent: the perf profile is %d bytes, over the %d one response carries", buf.Len(), maxProfileBytes)
	}
	return buf.Bytes(), nil
}

// Perf records a started tree with perf between two instants of the
// agent's clock (see PerfSpec) and returns its profile (gzipped pprof);
// it returns after to.
func (c *Client) Perf(ctx context.Context, spec PerfSpec) ([]byte, error) {
	resp, err := c.call(ctx, Request{Op: OpPerf, Perf: &spec})
	return resp.Profile, err
}
