package host

import (
	"github.com/stackbench/stackbench/internal/platform/local"
)

// clockTicksPerSecond is the unit of the platform's host CPU times
// (USER_HZ on Linux, nanoseconds on macOS).
var clockTicksPerSecond = float64(local.OS.TicksPerSecond())

// CPUTimes is the host's cumulative CPU time since boot, all CPUs summed
// (the first line of /proc/stat on Linux).
type CPUTimes struct {
	// BusyTicks is user+nice+system+irq+softirq+steal. Steal counts as
	// busy: a hypervisor that takes our CPUs contends like a process does.
	BusyTicks int64
	// IdleTicks is idle+iowait.
	IdleTicks int64
	// StealTicks is steal alone: the hypervisor ran something else on
	// our CPUs.
	StealTicks int64
}

// BusySeconds returns BusyTicks in seconds.
func (t CPUTimes) BusySeconds() float64 { return float64(t.BusyTicks) / clockTicksPerSecond }

// BusySecondsSince returns the busy CPU seconds between an earlier reading
// and t.
func (t CPUTimes) BusySecondsSince(earlier CPUTimes) float64 {
	return float64(t.BusyTicks-earlier.BusyTicks) / clockTicksPerSecond
}

// StealSecondsSince returns the CPU seconds stolen by the hypervisor
// between an earlier reading and t.
func (t CPUTimes) StealSecondsSince(earlier CPUTimes) float64 {
	return float64(t.StealTicks-earlier.StealTicks) / clockTicksPerSecond
}

// ReadCPU reads the host's CPU times through the platform. On Linux it
// allocates nothing but the path, so samplers can call it cheaply.
func ReadCPU() (CPUTimes, error) {
	c, err := local.OS.HostCPU()
	return CPUTimes{BusyTicks: c.BusyTicks, IdleTicks: c.IdleTicks, StealTicks: c.StealTicks}, err
}
