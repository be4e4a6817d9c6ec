//go:build linux

package linux

import (
	"testing"

	"github.com/stackbench/stackbench/internal/platform"
)

func TestParseCPULine(t *testing.T) {
	got, err := ParseCPULine([]byte("cpu  100 5 50 1000 20 3 2 7 40 0\ncpu0 50 2 25 500 10 1 1 3 20 0\n"))
	if err != nil {
		t.Fatal(err)
	}
	if want := (platform.HostCPU{BusyTicks: 100 + 5 + 50 + 3 + 2 + 7, IdleTicks: 1000 + 20, StealTicks: 7}); got != want {
		t.Errorf("ParseCPULine = %+v, want %+v (guest is inside user already)", got, want)
	}
	// Old kernels have fewer columns.
	if got, err := ParseCPULine([]byte("cpu 1 2 3 4")); err != nil || got.BusyTicks != 6 || got.IdleTicks != 4 {
		t.Errorf("four columns: %+v, %v", got, err)
	}
	for _, bad := range []string{"", "intr 1 2 3", "cpu 1 x 3 4 5"} {
		if _, err := ParseCPULine([]byte(bad)); err == nil {
			t.Errorf("ParseCPULine(%q) accepted it", bad)
		}
	}
}
