package run

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"sync"
	"testing"

	"github.com/stackbench/stackbench/internal/load"
)

// TestStarvedGeneratorShowsItsWait pins the load generator to one CPU
// shared with a CPU hog: its own CPU use stays low, so client_bound cannot
// see it, but the time its threads waited for the CPU does (trap T10).
func TestStarvedGeneratorShowsItsWait(t *testing.T) {
	if _, err := exec.LookPath("taskset"); err != nil {
		t.Fatalf("taskset (util-linux) is needed: %v", err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) }))
	defer srv.Close()
	run := func() load.Result {
		out, err := exec.Command("taskset", "-c", "0", stackbenchBin, "load", "-c", "4", "-d", "1s", "-o", "json", srv.URL).Output()
		if err != nil {
			t.Fatalf("load: %v", err)
		}
		var res load.Result
		if err := json.Unmarshal(out, &res); err != nil {
			t.Fatal(err)
		}
		return res
	}
	hog := exec.Command("taskset", "-c", "0", "/bin/sh", "-c", "while :; do :; done")
	if err := hog.Start(); err != nil {
		t.Fatal(err)
	}
	// The hog goes whatever happens to the test: left running, pinned, it
	// would distort every later measurement on the machine.
	var stopHog sync.Once
	stop := func() { stopHog.Do(func() { hog.Process.Kill(); hog.Wait() }) }
	t.Cleanup(stop)
	starved := run()
	stop()
	if starved.GeneratorWaitSeconds < 0.2 {
		t.Errorf("a generator sharing its only CPU with a hog waited %.3f s for it in a 1 s window", starved.GeneratorWaitSeconds)
	}
	t.Logf("with the hog: %.2f CPU-s, %.2f s waiting", starved.GeneratorCPUSeconds, starved.GeneratorWaitSeconds)
}
