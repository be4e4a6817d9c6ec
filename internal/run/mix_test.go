package run

import (
	"context"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/load"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/workload"
)

// A mix case's window sends each route's request as its case does, with
// its case's statuses, interleaved by the mix's weights from its seed:
// two stacks driven from the run's own pool and command line receive the
// same sequence (their request logs, read back, agree), and the result
// counts each route apart.
func TestMixWindowSendsOneSequenceToEveryStack(t *testing.T) {
	w := &workload.Workload{Name: "shop", Cases: []workload.Case{
		{Name: "user", Method: "GET", Path: "/users/1", Expect: []int{200}},
		{Name: "list", Method: "GET", Path: "/users?limit=10", Expect: []int{200}},
		{Name: "create-order", Method: "POST", Path: "/orders", Body: []byte(`{"sku":"A"}`), Expect: []int{201},
			Header: []workload.Header{{Name: "Content-Type", Value: "application/json"}}},
	}}
	mix := workload.Case{Name: "storefront", Mix: []workload.MixPart{{Case: "user", Weight: 60}, {Case: "list", Weight: 30}, {Case: "create-order", Weight: 10}}, MixSeed: 99}
	r := &runner{opt: Options{Plan: &plan.Plan{}, File: &plan.File{Workload: w}, PoolDir: t.TempDir()}}
	r.pools = &requestPools{r: r}

	var logs [2][]string
	var results [2]*load.Result
	for i, name := range []string{"a", "b"} {
		var mu sync.Mutex
		srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, req *http.Request) {
			io.Copy(io.Discard, req.Body)
			mu.Lock()
			logs[i] = append(logs[i], req.Method+" "+req.URL.RequestURI())
			mu.Unlock()
			if req.Method == "POST" {
				rw.WriteHeader(http.StatusCreated)
			}
		}))
		defer srv.Close()
		cur := &server{stack: plan.Stack{Name: name}}
		pool, err := r.pools.of(cur, mix)
		if err != nil || pool == "" {
			t.Fatalf("pool of the mix: %q, %v", pool, err)
		}
		args := loadArgsAt(srv.URL, mix, pool, loadWire{}, 1, 0, warmupSpan{}, 300*time.Millisecond, time.Minute)
		results[i] = runArgs(t, args)
		mu.Lock()
		logs[i] = slices.Clone(logs[i])
		mu.Unlock()
	}
	n := min(len(logs[0]), len(logs[1]))
	if n < 50 || !slices.Equal(logs[0][:n], logs[1][:n]) {
		t.Fatalf("the stacks saw %d and %d requests, sequences differ:\n%v\n%v", len(logs[0]), len(logs[1]), logs[0][:min(n, 20)], logs[1][:min(n, 20)])
	}
	paths := map[string]string{"user": "GET /users/1", "list": "GET /users?limit=10", "create-order": "POST /orders"}
	for k, route := range load.MixSequence(mixRoutes(mix), mix.MixSeed, n) {
		if logs[0][k] != paths[route] {
			t.Fatalf("request %d was %q, want route %s (%s)", k+1, logs[0][k], route, paths[route])
		}
	}
	for i, res := range results {
		if len(res.Routes) != 3 || res.Failures() != 0 || res.MixSeed != 99 {
			t.Errorf("stack %d: routes %+v, errors %v, seed %d (a POST's 201 is its success)", i+1, res.Routes, res.Errors, res.MixSeed)
		}
	}
}

// runArgs runs `stackbench load` args in this process, as the command
// does: the flags parsed, the pool read.
func runArgs(t *testing.T, args []string) *load.Result {
	t.Helper()
	var f load.Flags
	fs := flag.NewFlagSet("load", flag.ContinueOnError)
	f.Register(fs)
	if err := fs.Parse(args[1:]); err != nil {
		t.Fatal(err)
	}
	cfg, err := f.Config(fs.Arg(0))
	if err != nil {
		t.Fatal(err)
	}
	if f.Flow != "" {
		if cfg.Flow, err = load.ReadFlow(f.Flow); err != nil {
			t.Fatal(err)
		}
	} else {
		file, err := os.Open(f.Requests)
		if err != nil {
			t.Fatal(err)
		}
		defer file.Close()
		if cfg.Requests, err = load.ReadRequests(file); err != nil {
			t.Fatal(err)
		}
	}
	res, err := load.Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// A flow case's window runs the flow from a file the run writes (the
// generator's --flow), its users carrying their captures step to step.
func TestFlowWindowRunsTheFlow(t *testing.T) {
	flow := workload.Case{Name: "session", Flow: &load.Flow{Name: "session", Steps: []load.FlowStep{
		{Name: "login", Method: "POST", Path: "/login", Expect: []int{200}, Capture: map[string]string{"token": "body.token"}},
		{Name: "me", Path: "/me", Headers: map[string]string{"Authorization": "Bearer ${token}"}, Expect: []int{200}},
	}}}
	r := &runner{opt: Options{Plan: &plan.Plan{}, File: &plan.File{Workload: &workload.Workload{Cases: []workload.Case{flow}}}, PoolDir: t.TempDir()}}
	r.pools = &requestPools{r: r}
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, req *http.Request) {
		switch {
		case req.URL.Path == "/login":
			io.WriteString(rw, `{"token":"t-1"}`)
		case req.Header.Get("Authorization") != "Bearer t-1":
			rw.WriteHeader(401)
		}
	}))
	defer srv.Close()
	file, err := r.pools.of(&server{stack: plan.Stack{Name: "a"}}, flow)
	if err != nil || file == "" {
		t.Fatalf("flow file %q, %v", file, err)
	}
	res := runArgs(t, loadArgsAt(srv.URL, flow, file, loadWire{}, 2, 0, warmupSpan{}, 300*time.Millisecond, time.Minute))
	if res.Flow == nil || res.Flow.Completed == 0 || res.Flow.Failed != 0 {
		t.Errorf("flow %+v", res.Flow)
	}
}
