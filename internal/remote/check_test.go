package remote

import (
	"strings"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/agent"
)

// A generator whose clock is known to within 5 ms passes; one known less
// precisely is refused with the figures.
func TestClockRefusal(t *testing.T) {
	if err := clockRefusal("load1", agent.ClockOffset{Offset: 40 * time.Millisecond, Bound: 5 * time.Millisecond, Exchanges: 8}); err != nil {
		t.Fatalf("a 5 ms bound: %v", err)
	}
	err := clockRefusal("load1", agent.ClockOffset{Offset: time.Millisecond, Bound: 7500 * time.Microsecond, Exchanges: 8})
	if err == nil || !strings.Contains(err.Error(), "host load1") || !strings.Contains(err.Error(), "within 7.5ms") ||
		!strings.Contains(err.Error(), "took 15ms there and back") || !strings.Contains(err.Error(), "the 5ms") {
		t.Fatalf("a 7.5 ms bound: %v", err)
	}
}
