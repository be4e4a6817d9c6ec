package report

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"github.com/stackbench/stackbench/internal/analysis"
	"io"
	"strings"
)

// This file renders a gate's checks for CI systems: JUnit XML (one test
// case per step × case × metric and per threshold), GitHub Actions
// annotations and job summary, and github-action-benchmark's custom JSON
// for a history of figures.

// Gate is a judged gate, as the CI renderers show it: the checks of the
// steps, the run's thresholds, and which thresholds fail it.
type Gate struct {
	// Title names the run: "stackbench run 20261201-150405".
	Title string
	// Active is false when no gate was asked for (no --fail-on): the
	// checks are shown, and nothing fails.
	Active bool
	Checks []GateCheck
	// Thresholds are the run's threshold checks; ThresholdFailed says
	// which of them fail the gate.
	Thresholds      []ThresholdCheck
	ThresholdFailed func(ThresholdCheck) bool
	// JudgesThresholds is true when the thresholds count in the verdict
	// (--fail-on threshold).
	JudgesThresholds bool
}

func (g Gate) thresholdFailed(t ThresholdCheck) bool {
	if g.ThresholdFailed == nil {
		return t.Verdict == ThresholdFail
	}
	return g.ThresholdFailed(t)
}

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitProblem `xml:"failure,omitempty"`
	Error     *junitProblem `xml:"error,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// WriteJUnit writes the gate as JUnit XML: a suite of step checks, one
// test case per step × case × concurrency × metric (classname the step,
// name the case, concurrency and metric), and a suite of thresholds, one
// per threshold and cell. A check that fails the gate is a <failure> whose
// message carries the call and its interval; one that could not be
// measured is an <error>.
func WriteJUnit(w io.Writer, g Gate) error {
	steps := junitSuite{Name: "steps", Time: "0"}
	for _, c := range g.Checks {
		tc := junitCase{Classname: "stackbench." + c.Step.From + ".." + c.Step.To,
			Name: fmt.Sprintf("%s c=%d %s", c.Step.Case, c.Step.Concurrency, c.Metric), Time: "0", SystemOut: CheckText(c)}
		switch {
		case c.Failed:
			tc.Failure = &junitProblem{Message: CheckText(c), Type: string(c.Change.Call), Text: c.Change.Reason}
			steps.Failures++
		case c.Invalid():
			tc.Error = &junitProblem{Message: CheckText(c), Type: "invalid", Text: c.Change.Reason}
			steps.Errors++
		}
		steps.Cases = append(steps.Cases, tc)
	}
	steps.Tests = len(steps.Cases)
	ths := junitSuite{Name: "thresholds", Time: "0"}
	for _, t := range g.Thresholds {
		tc := junitCase{Classname: "stackbench.threshold." + t.Stack,
			Name: fmt.Sprintf("%s c=%d %s", t.Target(), t.Concurrency, t.Metric), Time: "0", SystemOut: ThresholdText(t)}
		switch {
		case g.thresholdFailed(t):
			tc.Failure = &junitProblem{Message: ThresholdText(t), Type: t.Verdict, Text: t.Reason}
			ths.Failures++
		case t.Verdict == ThresholdInvalid:
			tc.Error = &junitProblem{Message: ThresholdText(t), Type: t.Verdict, Text: t.Reason}
			ths.Errors++
		}
		ths.Cases = append(ths.Cases, tc)
	}
	ths.Tests = len(ths.Cases)
	out := junitSuites{Name: g.Title}
	for _, s := range []junitSuite{steps, ths} {
		if s.Tests == 0 {
			continue
		}
		out.Suites = append(out.Suites, s)
		out.Tests += s.Tests
		out.Failures += s.Failures
		out.Errors += s.Errors
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// WriteGitHubAnnotations writes one ::error workflow command per check that
// fails the gate and one ::warning per check that could not be measured,
// as GitHub Actions reads them from a step's output.
func WriteGitHubAnnotations(w io.Writer, g Gate) error {
	var b strings.Builder
	for _, c := range g.Checks {
		switch {
		case c.Failed:
			fmt.Fprintf(&b, "::error title=stackbench %s::%s\n", ghEscapeProperty(string(c.Change.Call)), ghEscape(CheckText(c)))
		case c.Invalid():
			fmt.Fprintf(&b, "::warning title=stackbench not measured::%s\n", ghEscape(CheckText(c)))
		}
	}
	for _, t := range g.Thresholds {
		switch {
		case g.thresholdFailed(t):
			fmt.Fprintf(&b, "::error title=stackbench threshold %s::%s\n", ghEscapeProperty(t.Verdict), ghEscape(ThresholdText(t)))
		case t.Verdict == ThresholdInvalid:
			fmt.Fprintf(&b, "::warning title=stackbench threshold not measured::%s\n", ghEscape(ThresholdText(t)))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// ghEscape escapes a workflow command's message.
func ghEscape(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// ghEscapeProperty escapes a workflow command's property value.
func ghEscapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// WriteJobSummary writes the gate as Markdown for a GitHub Actions job
// summary: the verdict first, then a table of every check.
func WriteJobSummary(w io.Writer, m *Model, g Gate, reportPath string) error {
	var b strings.Builder
	failed, unmeasured := 0, 0
	for _, c := range g.Checks {
		switch {
		case c.Failed:
			failed++
		case c.Invalid():
			unmeasured++
		}
	}
	for _, t := range g.Thresholds {
		switch {
		case g.thresholdFailed(t):
			failed++
		case t.Verdict == ThresholdInvalid:
			unmeasured++
		}
	}
	total := len(g.Checks) + len(g.Thresholds)
	fmt.Fprintf(&b, "## %s\n\n", g.Title)
	switch {
	case !g.Active:
		b.WriteString("No gate: `--fail-on` was not given.\n")
	case failed > 0:
		fmt.Fprintf(&b, "**Gate failed**: %d of %d checks failed.\n", failed, total)
	case unmeasured > 0:
		fmt.Fprintf(&b, "**Cannot judge**: %d of %d checks could not be measured.\n", unmeasured, total)
	default:
		fmt.Fprintf(&b, "**Gate passed**: %d checks.\n", total)
	}
	if m != nil {
		b.WriteString("\n> " + strings.Join(VerdictLines(m), "\\\n> ") + "\n")
	}
	if reportPath != "" {
		fmt.Fprintf(&b, "\nFull report: `%s`.\n", reportPath)
	}
	if len(g.Checks) > 0 {
		b.WriteString("\n| step | case | c | metric | call | estimate (interval) |\n|---|---|---|---|---|---|\n")
		for _, c := range g.Checks {
			mark := ""
			if c.Failed {
				mark = " ❌"
			}
			fmt.Fprintf(&b, "| %s → %s | %s | %d | %s | %s%s | %s |\n", c.Step.From, c.Step.To, c.Step.Case, c.Step.Concurrency,
				c.Metric.Label(), c.Change.Call, mark, estimateText(c.Change))
		}
	}
	if len(g.Thresholds) > 0 {
		b.WriteString("\n| stack | case | c | threshold | verdict | median (interval) |\n|---|---|---|---|---|---|\n")
		for _, t := range g.Thresholds {
			op := "≥"
			if t.AtMost {
				op = "≤"
			}
			mark := ""
			if g.thresholdFailed(t) {
				mark = " ❌"
			}
			interval := "no finite interval"
			if t.Low != nil && t.High != nil {
				interval = trimNum(*t.Low) + " … " + unitValue(*t.High, t.Unit)
			}
			fmt.Fprintf(&b, "| %s | %s | %d | %s %s %s | %s%s | %s (%s) |\n", t.Stack, t.Target(), t.Concurrency, t.Metric, op,
				unitValue(t.Limit, t.Unit), t.Verdict, mark, unitValue(t.Estimate, t.Unit), interval)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// HistoryEntry is one figure in github-action-benchmark's custom JSON
// ("customBiggerIsBetter" or "customSmallerIsBetter" tools).
type HistoryEntry struct {
	Name  string  `json:"name"`
	Unit  string  `json:"unit"`
	Value float64 `json:"value"`
	// Range is the cell's interquartile range, "q1…q3".
	Range string `json:"range,omitempty"`
	Extra string `json:"extra,omitempty"`
}

// History returns the run's figures for github-action-benchmark: per valid
// cell, the median throughput and throughput per CPU-second (bigger is
// better), and the p50 and p99 latency of its merged windows and CPU µs
// per request (smaller is better); per valid latency cell, its corrected
// p50 and p99 at the fixed rate (smaller is better).
func History(m *Model) (bigger, smaller []HistoryEntry) {
	for _, c := range m.Cells {
		if c.State != analysis.CellValid {
			continue
		}
		name := fmt.Sprintf("%s %s c=%d", c.Stack, c.Case, c.Concurrency)
		extra := fmt.Sprintf("%d windows, run %s", c.Counted, m.Header.RunID)
		bigger = append(bigger,
			HistoryEntry{Name: name + " throughput", Unit: "req/s", Value: c.Throughput.Median, Range: fmt.Sprintf("%.0f…%.0f", c.Throughput.Q1, c.Throughput.Q3), Extra: extra},
			HistoryEntry{Name: name + " throughput per CPU-second", Unit: "req/CPU-s", Value: c.PerCPUSecond.Median, Range: fmt.Sprintf("%.0f…%.0f", c.PerCPUSecond.Q1, c.PerCPUSecond.Q3), Extra: extra})
		smaller = append(smaller,
			HistoryEntry{Name: name + " p50", Unit: "ms", Value: c.Latency.P50 / 1000, Extra: extra},
			HistoryEntry{Name: name + " p99", Unit: "ms", Value: c.Latency.P99 / 1000, Extra: extra},
			HistoryEntry{Name: name + " CPU per request", Unit: "µs", Value: c.CPUMicrosPerRequest, Extra: extra})
	}
	for _, c := range m.LatencyCells {
		if c.State != analysis.CellValid {
			continue
		}
		name := fmt.Sprintf("%s %s c=%d", c.Stack, c.Case, c.Concurrency)
		extra := fmt.Sprintf("%d latency windows at %.0f req/s offered, run %s", c.Counted, c.Throughput.Median, m.Header.RunID)
		smaller = append(smaller,
			HistoryEntry{Name: name + " p50 at a fixed rate", Unit: "ms", Value: c.Latency.P50 / 1000, Extra: extra},
			HistoryEntry{Name: name + " p99 at a fixed rate", Unit: "ms", Value: c.Latency.P99 / 1000, Extra: extra})
	}
	return bigger, smaller
}

// WriteHistory writes entries as github-action-benchmark's custom JSON.
func WriteHistory(w io.Writer, entries []HistoryEntry) error {
	if entries == nil {
		entries = []HistoryEntry{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(entries)
}
