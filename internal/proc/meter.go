package proc

import (
	"context"
	"time"

	"github.com/stackbench/stackbench/internal/host"
)

// ForeignMeter returns a host.ForeignMeter that treats the given groups as
// the benchmark's own processes: each measurement is a sampler window of
// the requested length with only its two snapshots, and reports the
// window's ForeignCores.
func ForeignMeter(groups ...Group) host.ForeignMeter {
	return func(ctx context.Context, d time.Duration) (float64, error) {
		s := NewSampler(d+time.Hour, groups...) // no intermediate samples
		s.Start()
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-ctx.Done():
			s.Stop()
			return 0, ctx.Err()
		case <-t.C:
		}
		return s.Stop().ForeignCores, nil
	}
}
