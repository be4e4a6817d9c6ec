package host

import (
	"time"

	"github.com/stackbench/stackbench/internal/platform/local"
)

// SuspendTolerance is how far the boot-time clock may run ahead of the
// monotonic clock over a window before the window counts as suspended.
// The two clocks differ only while the machine sleeps; the tolerance
// absorbs the few microseconds between two clock reads.
const SuspendTolerance = 250 * time.Millisecond

// Clocks is one reading of the two clocks that tell a suspend apart: Boot
// advances during suspend, Monotonic does not (Linux: CLOCK_BOOTTIME and
// CLOCK_MONOTONIC; macOS: CLOCK_MONOTONIC and CLOCK_UPTIME_RAW).
type Clocks struct {
	Boot      time.Duration
	Monotonic time.Duration
}

// ReadClocks reads both clocks.
func ReadClocks() Clocks {
	c := local.OS.Clocks()
	return Clocks{Boot: c.Boot, Monotonic: c.Monotonic}
}

// SuspendedSince returns how long the machine slept between an earlier
// reading and c, and whether that exceeds SuspendTolerance (trap T7).
func (c Clocks) SuspendedSince(earlier Clocks) (time.Duration, bool) {
	slept := (c.Boot - earlier.Boot) - (c.Monotonic - earlier.Monotonic)
	return max(slept, 0), slept > SuspendTolerance
}
