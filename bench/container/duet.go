package main

import (
	"context"
	"fmt"
	"strconv"
	"sync"

	"github.com/stackbench/stackbench/internal/load"
	"github.com/stackbench/stackbench/internal/proc"
)

// measureDuet measures every variant at once: all of them started, then
// each loaded at the same rate over the same window by its own stream,
// so that a neighbour that comes and goes loads them all alike (on a busy
// host the sequential windows of measure see different neighbours). The
// servers share their CPU (-server-cpu) with one another as with the rest
// of the host.
func measureDuet(o *options, variants []string, round int) ([]window, error) {
	servers := make([]*server, len(variants))
	defer func() {
		for _, s := range servers {
			if s != nil {
				s.cleanup()
			}
		}
	}()
	for i, v := range variants {
		s, err := start(o, v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", v, err)
		}
		servers[i] = s
	}
	loadAll := func(cfgOf func(*server) load.Config) ([]*load.Result, error) {
		res := make([]*load.Result, len(servers))
		errs := make([]error, len(servers))
		var wg sync.WaitGroup
		for i, s := range servers {
			wg.Go(func() { res[i], errs[i] = load.Run(context.Background(), cfgOf(s)) })
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				return nil, fmt.Errorf("%s: %w", variants[i], err)
			}
		}
		return res, nil
	}
	cfg := func(d func() load.Config) func(*server) load.Config {
		return func(s *server) load.Config {
			c := d()
			c.URL = "http://127.0.0.1:" + strconv.Itoa(s.p.Port()) + "/"
			return c
		}
	}
	if _, err := loadAll(cfg(func() load.Config { return load.Config{Connections: o.conns, Rate: o.rate, Duration: o.warmup} })); err != nil {
		return nil, fmt.Errorf("warm-up: %w", err)
	}
	groups := []proc.Group{proc.SelfGroup("harness"), proc.DaemonsGroup("runtime-daemons")}
	for i, s := range servers {
		groups = append(groups, proc.TreeGroup("tree-"+strconv.Itoa(i), s.pid))
		if s.cgroup != "" {
			groups = append(groups, proc.CgroupGroup("cgroup-"+strconv.Itoa(i), s.cgroup))
		}
		if g, ok := s.p.RuntimeGroup("cli-" + strconv.Itoa(i)); ok {
			groups = append(groups, g)
		}
	}
	switches := make([]int64, len(servers))
	for i, s := range servers {
		switches[i] = contextSwitches(s.pid)
	}
	sm := proc.NewSampler(0, groups...)
	sm.Start()
	res, err := loadAll(cfg(func() load.Config { return load.Config{Connections: o.conns, Rate: o.rate, Duration: o.window} }))
	ws := sm.Stop()
	if err != nil {
		return nil, err
	}
	foreign := ws.ForeignCores
	var out []window
	for i, s := range servers {
		tree, _ := ws.Group("tree-" + strconv.Itoa(i))
		w := window{Variant: variants[i], Round: round, Requests: res[i].Successes, Seconds: ws.Wall.Seconds(),
			TreeCPU: tree.CPUSeconds, HostBusy: ws.HostBusyCores, Switches: contextSwitches(s.pid) - switches[i]}
		if cg, ok := ws.Group("cgroup-" + strconv.Itoa(i)); ok {
			w.CgroupCPU = cg.CPUSeconds
			foreign += tree.Cores // counted twice by the sampler
		}
		if w.Requests < 100 {
			return nil, fmt.Errorf("%s: only %d requests succeeded; is the server answering?", variants[i], w.Requests)
		}
		out = append(out, w)
	}
	for i := range out {
		out[i].ForeignCores = foreign
	}
	return out, nil
}
