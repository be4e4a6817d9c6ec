package spawn

import (
	"sort"
	"time"

	"github.com/stackbench/stackbench/internal/stats"
)

// Spread summarises one figure of a cell in its own unit (nanoseconds for
// wall time, the metric's unit for a metric): the median is one run's
// figure (the lower middle for an even count), with quartiles and extremes.
type Spread struct {
	Median float64 `json:"median"`
	Q1     float64 `json:"q1"`
	Q3     float64 `json:"q3"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
	// RelSpread is (Max − Min) ÷ Median, 0 when the median is not positive.
	RelSpread float64 `json:"rel_spread"`
	N         int     `json:"n"`
}

func spreadOf(values []float64) Spread {
	s, err := stats.Summarize(values)
	if err != nil {
		return Spread{}
	}
	return Spread{Median: s.Median, Q1: s.Q1, Q3: s.Q3, Min: s.Min, Max: s.Max, RelSpread: s.Spread, N: s.N}
}

// Cell is one command at one size.
type Cell struct {
	Command string `json:"command"`
	Size    int    `json:"size"`
	// Wall is spawn → exit in nanoseconds.
	Wall Spread `json:"wall_ns"`
	// Metrics are the program's own figures, by name (unit in the name).
	Metrics map[string]Spread `json:"metrics,omitempty"`
	// Error is the first failure; the cell's figures are then left out.
	Error string `json:"error,omitempty"`
}

// WallDuration is the median wall time as a duration.
func (c Cell) WallDuration() time.Duration { return time.Duration(c.Wall.Median) }

// cells summarises the samples by command and size, in the order of the
// sizes and then the commands.
func cells(res Result, failure func(string, int) string) []Cell {
	var out []Cell
	for _, size := range res.Sizes {
		for _, name := range res.Commands {
			c := Cell{Command: name, Size: size, Error: failure(name, size)}
			if c.Error == "" {
				metrics := map[string][]float64{}
				var walls []float64
				for _, s := range res.Samples {
					if s.Command != name || s.Size != size {
						continue
					}
					walls = append(walls, float64(s.Wall))
					for k, v := range s.Metrics {
						metrics[k] = append(metrics[k], v)
					}
				}
				c.Wall = spreadOf(walls)
				for k, v := range metrics {
					if c.Metrics == nil {
						c.Metrics = map[string]Spread{}
					}
					c.Metrics[k] = spreadOf(v)
				}
			}
			out = append(out, c)
		}
	}
	return out
}

// MetricNames lists the metric names that any cell reports, sorted.
func (r Result) MetricNames() []string {
	seen := map[string]bool{}
	var names []string
	for _, c := range r.Cells {
		for k := range c.Metrics {
			if !seen[k] {
				seen[k] = true
				names = append(names, k)
			}
		}
	}
	sort.Strings(names)
	return names
}
