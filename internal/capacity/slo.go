package capacity

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// SLO is a latency objective: the Percentile (0–100, e.g. 99) of the
// coordinated-omission-corrected latency of successes must be at most
// Latency.
type SLO struct {
	Percentile float64       `json:"percentile"`
	Latency    time.Duration `json:"-"`
	// LatencyMicros is Latency in microseconds, for the JSON form (Search
	// sets it from Latency).
	LatencyMicros int64 `json:"latency_us"`
}

// ParseSLO reads "p99=20ms", "p99.9=50ms" or "p50=2ms".
func ParseSLO(s string) (SLO, error) {
	name, value, ok := strings.Cut(s, "=")
	name = strings.TrimSpace(name)
	if !ok || len(name) < 2 || (name[0] != 'p' && name[0] != 'P') {
		return SLO{}, fmt.Errorf("%q: want a percentile and a latency, e.g. p99=20ms", s)
	}
	p, err := strconv.ParseFloat(name[1:], 64)
	if err != nil || !(p > 0 && p < 100) {
		return SLO{}, fmt.Errorf("%q: the percentile %q must be a number above 0 and under 100, e.g. p99 or p99.9", s, name)
	}
	d, err := time.ParseDuration(strings.TrimSpace(value))
	if err != nil || d < time.Microsecond {
		return SLO{}, fmt.Errorf("%q: the latency %q must be a duration of at least 1µs with a unit, e.g. 20ms", s, value)
	}
	return SLO{Percentile: p, Latency: d, LatencyMicros: d.Microseconds()}, nil
}

// Name is the percentile's label: "p99", "p99.9".
func (s SLO) Name() string { return "p" + strconv.FormatFloat(s.Percentile, 'f', -1, 64) }

// String is the SLO as ParseSLO reads it.
func (s SLO) String() string { return s.Name() + "=" + s.Latency.String() }

// ParseShare reads a share given as a percentage ("0.1%") or a fraction of
// one ("0.001"), and returns the fraction.
func ParseShare(s string) (float64, error) {
	t := strings.TrimSpace(s)
	scale := 1.0
	if strings.HasSuffix(t, "%") {
		t, scale = strings.TrimSpace(strings.TrimSuffix(t, "%")), 0.01
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || v < 0 || v*scale > 1 {
		return 0, fmt.Errorf("%q: want a share such as 0.1%% or 0.001, from 0 to 100%%", s)
	}
	return v * scale, nil
}
