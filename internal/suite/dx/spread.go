package dx

import (
	"time"

	"github.com/stackbench/stackbench/internal/stats"
)

// Spread summarises durations: the median is one sample's figure (the
// lower middle for an even count, as everywhere in stackbench), with the
// quartiles, extremes and the samples themselves in measurement order.
type Spread struct {
	Median  time.Duration   `json:"median"`
	Q1      time.Duration   `json:"q1"`
	Q3      time.Duration   `json:"q3"`
	Min     time.Duration   `json:"min"`
	Max     time.Duration   `json:"max"`
	N       int             `json:"n"`
	Samples []time.Duration `json:"samples"`
}

// summarize returns the Spread of samples; nil for none.
func summarize(samples []time.Duration) *Spread {
	if len(samples) == 0 {
		return nil
	}
	v := make([]float64, len(samples))
	for i, d := range samples {
		v[i] = float64(d)
	}
	s, err := stats.Summarize(v)
	if err != nil {
		return nil
	}
	return &Spread{Median: time.Duration(s.Median), Q1: time.Duration(s.Q1), Q3: time.Duration(s.Q3),
		Min: time.Duration(s.Min), Max: time.Duration(s.Max), N: s.N, Samples: append([]time.Duration(nil), samples...)}
}
