package report

import (
	"fmt"
	"github.com/stackbench/stackbench/internal/analysis"
	"io"
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/perf/benchfmt"
)

// benchUnits are the units of the benchmark lines, with whether higher is
// better, in the order each line lists them. Latencies are in seconds and
// memory in bytes, the base units benchstat scales itself.
var benchUnits = []struct {
	unit   string
	better string
	value  func(analysis.WindowFigures) float64
}{
	{"req/s", "higher", func(w analysis.WindowFigures) float64 { return w.ThroughputRPS }},
	{"req/cpu-sec", "higher", func(w analysis.WindowFigures) float64 { return w.PerCPUSecond }},
	{"server-cores", "lower", func(w analysis.WindowFigures) float64 { return w.ServerCores }},
	{"p50-sec", "lower", func(w analysis.WindowFigures) float64 { return w.Latency.P50 / 1e6 }},
	{"p90-sec", "lower", func(w analysis.WindowFigures) float64 { return w.Latency.P90 / 1e6 }},
	{"p99-sec", "lower", func(w analysis.WindowFigures) float64 { return w.Latency.P99 / 1e6 }},
	{"p99.9-sec", "lower", func(w analysis.WindowFigures) float64 { return w.Latency.P999 / 1e6 }},
	{"rss-mean-B", "lower", func(w analysis.WindowFigures) float64 { return float64(w.RSSMeanBytes) }},
	{"rss-peak-B", "lower", func(w analysis.WindowFigures) float64 { return float64(w.RSSPeakBytes) }},
}

// WriteBench writes the counted windows in the Go benchmark format, one line
// per window, so `benchstat A/bench.txt B/bench.txt` compares two runs.
// Windows that failed validation are left out: benchstat would average them
// in. The name carries the cell: BenchmarkSaasSlice/stack=gin/case=order/c=100.
func WriteBench(w io.Writer, m *Model) error {
	bw := benchfmt.NewWriter(w)
	for _, u := range benchUnits {
		md := &benchfmt.UnitMetadata{
			UnitMetadataKey: benchfmt.UnitMetadataKey{Unit: u.unit, Key: "better"},
			OrigUnit:        u.unit,
			Value:           u.better,
		}
		if err := bw.Write(md); err != nil {
			return fmt.Errorf("write benchmark units: %w", err)
		}
	}
	config := benchConfig(m)
	prefix := benchName(m.Header.Workload)
	for _, c := range m.Cells {
		for _, win := range c.PerWindow {
			if !win.Counted {
				continue
			}
			res := &benchfmt.Result{
				Config: config,
				Name:   benchfmt.Name(fmt.Sprintf("%s/stack=%s/case=%s/c=%d", prefix, benchNamePart(c.Stack), benchNamePart(c.Case), c.Concurrency)),
				Iters:  1,
			}
			for _, u := range benchUnits {
				res.Values = append(res.Values, benchfmt.Value{Value: round6(u.value(win)), Unit: u.unit})
			}
			if err := bw.Write(res); err != nil {
				return fmt.Errorf("write benchmark line: %w", err)
			}
		}
	}
	return nil
}

// round6 keeps six significant digits: more than any window measures, and
// lines short enough to read.
func round6(v float64) float64 {
	r, err := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 6, 64), 64)
	if err != nil {
		return v
	}
	return r
}

// benchConfig is the file configuration every line shares.
func benchConfig(m *Model) []benchfmt.Config {
	h := m.Header
	var cfg []benchfmt.Config
	add := func(k, v string) {
		if v = benchValue(v); v != "" {
			cfg = append(cfg, benchfmt.Config{Key: k, Value: []byte(v), File: true})
		}
	}
	add("goos", h.Host.OS)
	add("goarch", h.Host.Arch)
	add("cpu", h.Host.CPU)
	add("stackbench-run", h.RunID)
	add("stackbench-version", h.ToolVersion)
	add("workload", h.Workload)
	add("profile", h.Profile)
	return cfg
}

// benchName turns a workload name into a benchmark name: saas-slice →
// SaasSlice.
func benchName(workload string) string {
	var b strings.Builder
	for _, part := range strings.FieldsFunc(workload, func(r rune) bool { return r == '-' || r == '_' || r == ' ' || r == '/' }) {
		b.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	if b.Len() == 0 {
		return "Stackbench"
	}
	return b.String()
}

// benchValue keeps a configuration value on one line.
func benchValue(s string) string {
	return strings.TrimSpace(strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' {
			return ' '
		}
		return r
	}, s))
}

// benchNamePart keeps a stack or case name free of the spaces that end a
// benchmark name and the slashes that separate its parts.
func benchNamePart(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) || r == '/' {
			return '_'
		}
		return r
	}, s)
}
