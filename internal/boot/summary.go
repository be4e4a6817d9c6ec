package boot

import "github.com/stackbench/stackbench/internal/stats"

// Spread is the median and interquartile range of a set of figures, in
// the figure's unit (nanoseconds for durations, bytes for memory).
type Spread struct {
	Median float64 `json:"median"`
	Q1     float64 `json:"q1"`
	Q3     float64 `json:"q3"`
	// IQR is Q3 − Q1.
	IQR float64 `json:"iqr"`
	N   int     `json:"n"`
}

// Summary is one stack's cold starts.
type Summary struct {
	Stack  string `json:"stack"`
	Starts int    `json:"starts"`
	// Boot and FirstRequest are in nanoseconds, IdleRSS in bytes.
	// FirstRequest counts only first requests that got an expected status.
	Boot         Spread `json:"boot_ns"`
	FirstRequest Spread `json:"first_request_ns"`
	IdleRSS      Spread `json:"idle_rss_bytes"`
	// FirstFailed counts first requests that failed or got an unexpected status.
	FirstFailed int `json:"first_failed"`
}

// Summarize groups the starts by stack, in the order of stacks.
func Summarize(stacks []Stack, starts []Start) []Summary {
	var out []Summary
	for _, s := range stacks {
		sum := Summary{Stack: s.Name}
		var boot, first, rss []float64
		for _, st := range starts {
			if st.Stack != s.Name {
				continue
			}
			sum.Starts++
			boot = append(boot, float64(st.Boot))
			rss = append(rss, float64(st.IdleRSSBytes))
			if st.FirstOK {
				first = append(first, float64(st.FirstRequest))
			} else {
				sum.FirstFailed++
			}
		}
		sum.Boot, sum.FirstRequest, sum.IdleRSS = spread(boot), spread(first), spread(rss)
		out = append(out, sum)
	}
	return out
}

func spread(values []float64) Spread {
	s := Spread{N: len(values)}
	if len(values) == 0 {
		return s
	}
	// stats.Summarize, as the report uses: the median is one start's
	// figure (the lower middle for an even count), so `stackbench boot` and
	// the run's report print the same median for the same starts. The values
	// are finite and non-empty, so it cannot fail.
	sum, _ := stats.Summarize(values)
	s.Median, s.Q1, s.Q3, s.IQR = sum.Median, sum.Q1, sum.Q3, sum.IQR
	return s
}
