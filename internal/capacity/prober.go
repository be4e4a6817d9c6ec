package capacity

import (
	"context"
	"time"

	"github.com/stackbench/stackbench/internal/load"
)

// LoadProber probes with the load engine in this process: each probe is
// one load.Run of Base with the probe's rate, warm-up and window.
type LoadProber struct {
	Base load.Config
}

// Open runs Base in open loop at rateRPS.
func (lp LoadProber) Open(ctx context.Context, rateRPS float64, warmup, window time.Duration) (*load.Result, error) {
	cfg := lp.Base
	cfg.Rate, cfg.Warmup, cfg.Duration = rateRPS, warmup, window
	return load.Run(ctx, cfg)
}

// Closed runs Base in closed loop.
func (lp LoadProber) Closed(ctx context.Context, warmup, window time.Duration) (*load.Result, error) {
	cfg := lp.Base
	cfg.Rate, cfg.Warmup, cfg.Duration = 0, warmup, window
	return load.Run(ctx, cfg)
}
