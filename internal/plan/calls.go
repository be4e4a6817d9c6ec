package plan

import (
	"fmt"
	"slices"
	"strings"
)

// The metrics a step is called on, as the file (calls:), the gate
// (--metrics) and report.json name them.
const (
	// MetricThroughput is closed-loop throughput (higher is better).
	MetricThroughput = "throughput"
	// MetricPerCPU is throughput per CPU-second of the server.
	MetricPerCPU = "per_cpu"
	// MetricP50 and MetricP99 are the latency windows' corrected
	// percentiles at a fixed rate (a rise is a loss).
	MetricP50 = "p50"
	MetricP99 = "p99"
	// MetricCost is the server's and the database's CPU-µs per request at
	// the latency windows' fixed rate (a rise is a loss).
	MetricCost = "cost"
)

// StepMetrics are every metric a step can be called on, in the order the
// report lists them; LatencyMetrics those of the latency windows.
var (
	StepMetrics    = []string{MetricThroughput, MetricPerCPU, MetricP50, MetricP99, MetricCost}
	LatencyMetrics = []string{MetricP50, MetricP99, MetricCost}
)

var metricChoices = []Choice{
	{MetricThroughput, "closed-loop throughput"},
	{MetricPerCPU, "throughput per CPU-second of the server"},
	{MetricP50, "p50 latency at the fixed rate"},
	{MetricP99, "p99 latency at the fixed rate"},
	{MetricCost, "server and database CPU-µs per request at the fixed rate"},
}

// CalledMetrics are the metrics the run calls, its headline first: Calls
// as the file lists them, or by default every metric it measures
// (throughput and per_cpu, and p50, p99 and cost with latency windows).
// The others are shown with their estimates and intervals, never called,
// and stay out of the false-call family (docs/statistics.md).
func (p Protocol) CalledMetrics() []string {
	if len(p.Calls) > 0 {
		return p.Calls
	}
	if p.Latency != nil {
		return StepMetrics
	}
	return []string{MetricThroughput, MetricPerCPU}
}

// Called reports whether the run calls metric.
func (p Protocol) Called(metric string) bool { return slices.Contains(p.CalledMetrics(), metric) }

// Headline is the metric the run's verdict counts: the first it calls.
func (p Protocol) Headline() string { return p.CalledMetrics()[0] }

// checkCalls says what is wrong with a protocol's calls, or "": a latency
// metric needs latency windows.
func checkCalls(p Protocol) string {
	var need []string
	for _, m := range p.Calls {
		if slices.Contains(LatencyMetrics, m) && p.Latency == nil {
			need = append(need, m)
		}
	}
	if len(need) == 0 {
		return ""
	}
	return fmt.Sprintf("calls: %s measured at a fixed rate, and the run has no latency windows; add latency: {rate: 50%%} to the protocol (or --latency-rate 50%%), or call throughput or per_cpu",
		strings.Join(need, " and ")+map[bool]string{true: " is", false: " are"}[len(need) == 1])
}
