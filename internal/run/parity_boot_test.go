package run

import (
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/suite/boot"
)

// The run's boot line never prints the median of no first requests as a
// latency.
func TestFirstRequestText(t *testing.T) {
	s := boot.Summary{Starts: 3, FirstFailed: 3}
	if got := firstRequestText(s); strings.Contains(got, "ms") || !strings.Contains(got, "all 3") {
		t.Errorf("every first request failed: %q", got)
	}
	s = boot.Summary{Starts: 3, FirstFailed: 1, FirstRequest: boot.Spread[boot.Nanoseconds]{N: 2, Median: 4.2e6}}
	if got := firstRequestText(s); !strings.Contains(got, "4.2 ms") || !strings.Contains(got, "1 of 3") {
		t.Errorf("one of three failed: %q", got)
	}
}
