package boot

import "github.com/stackbench/stackbench/internal/stats"

// Nanoseconds is a duration figure of the suite, in nanoseconds (a float:
// quartiles fall between starts).
type Nanoseconds float64

// Milliseconds returns n in milliseconds.
func (n Nanoseconds) Milliseconds() float64 { return float64(n) / 1e6 }

// Bytes is a memory figure of the suite, in bytes.
type Bytes float64

// MiB returns b in mebibytes.
func (b Bytes) MiB() float64 { return float64(b) / (1 << 20) }

// Spread is the median and interquartile range of a set of figures, in the
// unit T.
type Spread[T Nanoseconds | Bytes] struct {
	Median T `json:"median"`
	Q1     T `json:"q1"`
	Q3     T `json:"q3"`
	// IQR is Q3 − Q1.
	IQR T   `json:"iqr"`
	N   int `json:"n"`
}

// Summary is one stack's cold starts.
type Summary struct {
	Stack  string `json:"stack"`
	Starts int    `json:"starts"`
	// FirstRequest counts only first requests that got an expected status.
	Boot         Spread[Nanoseconds] `json:"boot_ns"`
	FirstRequest Spread[Nanoseconds] `json:"first_request_ns"`
	IdleRSS      Spread[Bytes]       `json:"idle_rss_bytes"`
	// FirstFailed counts first requests that failed or got an unexpected status.
	FirstFailed int `json:"first_failed"`
	// FirstError is what the first failed first request got: its status
	// and the start of its body, or its transport error.
	FirstError string `json:"first_error,omitempty"`
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
				if sum.FirstError == "" {
					sum.FirstError = st.FirstError
				}
			}
		}
		sum.Boot, sum.FirstRequest, sum.IdleRSS = spread[Nanoseconds](boot), spread[Nanoseconds](first), spread[Bytes](rss)
		out = append(out, sum)
	}
	return out
}

func spread[T Nanoseconds | Bytes](values []float64) Spread[T] {
	s := Spread[T]{N: len(values)}
	if len(values) == 0 {
		return s
	}
	// stats.Summarize, as the report uses: the median is one start's
	// figure (the lower middle for an even count), so `stackbench boot` and
	// the run's report print the same median for the same starts. The values
	// are finite and non-empty, so it cannot fail.
	sum, _ := stats.Summarize(values)
	s.Median, s.Q1, s.Q3, s.IQR = T(sum.Median), T(sum.Q1), T(sum.Q3), T(sum.IQR)
	return s
}
