package pgfix_test

import (
	"context"
	"testing"

	"github.com/stackbench/stackbench/internal/cpuset"
	"github.com/stackbench/stackbench/internal/pgfix"
)

// TestClusterStartsInItsLane starts a cluster with placement: lanes'
// database CPUs and reads back the postmaster's, its background workers'
// and a connection's backend's affinity; then moves the running cluster to
// another lane as Pin does for a cluster left running by a killed harness,
// and checks that a backend forked afterwards inherits it.
func TestClusterStartsInItsLane(t *testing.T) {
	t.Parallel()
	avail, err := cpuset.Affinity()
	if err != nil {
		t.Fatal(err)
	}
	if len(avail) < 2 {
		t.Skipf("this process may use only %s: a lane would be the whole mask", avail.Describe())
	}
	lane, other := cpuset.Of(avail[len(avail)-1]), cpuset.Of(avail[0])
	ctx := context.Background()
	c, err := pgfix.Start(ctx, pgfix.Options{CPUs: lane})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Destroy(ctx)
	checkTree := func(when string, want cpuset.Set) {
		t.Helper()
		db, err := pgfix.Open(ctx, c.AdminURL()) // a new backend, forked now
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		pids := append([]int{c.PostmasterPID()}, childPIDs(c.PostmasterPID())...)
		if len(pids) < 3 {
			t.Fatalf("%s: the postmaster has %d children, want its workers and a backend", when, len(pids)-1)
		}
		for _, pid := range pids {
			if got, err := cpuset.Allowed(pid); err == nil && !got.Equal(want) {
				t.Errorf("%s: server process %d runs on %s, want %s", when, pid, got, want)
			}
		}
	}
	checkTree("started in the lane", lane)
	if err := c.Pin(other); err != nil {
		t.Fatal(err)
	}
	checkTree("after Pin", other)
}
