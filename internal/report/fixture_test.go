package report

import (
	"fmt"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/cost"
)

// fixtureModel is a three-stack run of the saas-slice workload at c=10 and
// c=100 over three rounds, with every kind of trouble a report must show:
// parity skipped, a whole invalid cell, a failed cell, contended,
// client-bound and checkpointed windows, a torn journal line and a warning.
// Its figures are made up but plausible, and fixed, so renderings can be
// compared with golden files.
func fixtureModel(t *testing.T) *Model {
	t.Helper()
	m := &Model{
		ModelVersion: ModelVersion,
		Header: Header{
			RunID:         "20261129-184500",
			Started:       time.Date(2026, 11, 29, 18, 45, 0, 0, time.UTC),
			Finished:      time.Date(2026, 11, 29, 19, 32, 10, 0, time.UTC),
			ToolVersion:   "v0.1.0-test",
			Workload:      "saas-slice",
			Profile:       "standard",
			State:         "finished",
			Stacks:        []string{"nethttp", "chi", "gin"},
			Concurrency:   []int{10, 100},
			Host:          Host{OS: "linux", Arch: "amd64", CPU: "Test CPU @ 2.0GHz", Cores: 2},
			Alpha:         0.05,
			Warnings:      []string{"idle host CPU 7.5 % is above the contention gate's 5 %: the gate uses the baseline instead"},
			JournalNotes:  []string{"line 129: torn last line (the run was stopped while writing it), skipped"},
			ParitySkipped: true,
		},
		Footer: Footer{
			Protocol:    []Field{{"profile", "standard"}, {"concurrency", "10, 100"}, {"warm-up", "5s"}, {"window", "10s"}, {"rounds", "3"}, {"fresh process", "per round"}, {"load", "closed loop, timeout 30s"}},
			Environment: []Field{{"host", "linux/amd64, 2 cores, 24 GiB"}, {"cpu", "Test CPU @ 2.0GHz"}, {"kernel", "6.1.0"}, {"go", "go1.26.8"}, {"postgresql", "15.10 (embedded)"}, {"somaxconn", "4096"}, {"open files", "1048576"}},
		},
	}
	for _, c := range []struct {
		name string
		db   bool
		rps  float64
	}{{"health", false, 52000}, {"echo", false, 38000}, {"me", true, 9000}, {"user", true, 8000}, {"list", true, 5200}, {"order", true, 3100}, {"cpu", false, 410}} {
		m.Header.Cases = append(m.Header.Cases, CaseInfo{Name: c.name, Database: c.db})
		ci := len(m.Header.Cases) - 1
		for _, conc := range m.Header.Concurrency {
			for si, stack := range m.Header.Stacks {
				m.Cells = append(m.Cells, fixtureCell(stack, si, ci, c.name, c.db, conc, c.rps))
			}
		}
	}
	m.Header.WindowsPlanned = len(m.Cells) * 3
	for _, c := range m.Cells {
		m.Header.WindowsRecorded += len(c.PerWindow)
	}
	m.Boot = []BootRow{
		{Stack: "nethttp", Starts: 10, ColdStartMs: Spread{Median: 4.1, Min: 3.8, Max: 5.6, Q1: 3.9, Q3: 4.4}, FirstDBRequestMs: 2.3, IdleRSSBytes: 9 << 20},
		{Stack: "chi", Starts: 10, ColdStartMs: Spread{Median: 4.3, Min: 3.9, Max: 6.0, Q1: 4.0, Q3: 4.7}, FirstDBRequestMs: 2.4, IdleRSSBytes: 9<<20 + 300<<10},
		{Stack: "gin", Starts: 10, Failed: "no 200 from /health within 10s (exit status 2)"},
	}
	pricing, err := cost.DefaultPricing()
	if err != nil {
		t.Fatal(err)
	}
	if err := m.compute(&pricing, cost.DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	return m
}

// fixtureJitter spreads three rounds around the median.
var fixtureJitter = []float64{1.00, 0.97, 1.02}

func fixtureCell(stack string, si, ci int, caseName string, db bool, conc int, baseRPS float64) Cell {
	c := Cell{Stack: stack, Case: caseName, Concurrency: conc, Database: db}
	// Frameworks differ on framework-only routes; on database routes the
	// driver dominates and the differences shrink.
	speed := []float64{1.0, 0.985 - 0.01*float64(ci%3), 1.12 + 0.03*float64(ci%3)}[si]
	if db {
		speed = []float64{1.0, 0.995, 1.01 + 0.025*float64(ci-2)}[si]
	}
	if conc == 10 {
		speed *= 0.8
	}
	coresPer := []float64{1.55, 1.58, 1.50}[si]
	for round := 1; round <= 3; round++ {
		j := 1 + (fixtureJitter[(round+si+ci)%3]-1)*(0.6+0.2*float64(ci%3))
		rps := baseRPS * speed * j
		cores := coresPer * (0.98 + 0.02*float64(round))
		p50 := float64(conc) * 1e6 / rps
		w := WindowFigures{
			Round: round, Counted: true,
			ThroughputRPS: rps, PerCPUSecond: rps / cores, ServerCores: cores,
			Latency:      Latency{P50: p50, P90: p50 * 1.6, P99: p50 * 3.1, P999: p50 * 6, Max: p50 * 14},
			RSSMeanBytes: int64(18+2*si+conc/20) << 20, RSSPeakBytes: int64(21+2*si+conc/20+round) << 20,
			GeneratorCores: 0.35,
		}
		if db {
			w.DBCores = 0.6
		}
		c.PerWindow = append(c.PerWindow, w)
	}
	switch {
	case stack == "gin" && caseName == "order" && conc == 100:
		for i := range c.PerWindow {
			c.PerWindow[i].Flags, c.PerWindow[i].Counted = []string{FlagInvalid}, false
		}
		c.Flags = []Flag{{FlagInvalid, 3, "3.8 % of attempts failed (reset 2,104, status_500 310): over the 1 % limit"}}
	case stack == "gin" && caseName == "cpu" && conc == 10:
		c.PerWindow = c.PerWindow[:1]
		c.PerWindow[0].Flags, c.PerWindow[0].Counted = []string{FlagServerDied}, false
		c.State = CellFailed
		c.Flags = []Flag{{FlagServerDied, 1, "server exited with signal: killed during the window; redone once, died again"}}
	case stack == "chi" && caseName == "list" && conc == 100:
		c.PerWindow[1].Flags = []string{FlagContended}
		c.Flags = []Flag{{FlagContended, 1, "foreign CPU 0.41 cores above the gate after 5 retries"}}
	case stack == "nethttp" && caseName == "health" && conc == 100:
		for i := range c.PerWindow {
			c.PerWindow[i].Flags = []string{FlagClientBound}
			c.PerWindow[i].GeneratorCores = 1.8
		}
		c.Flags = []Flag{{FlagClientBound, 3, "load generator used 1.80 of 2 cores"}}
	case stack == "nethttp" && caseName == "order" && conc == 10:
		c.PerWindow[2].Flags = []string{FlagCheckpoint}
		c.Flags = []Flag{{FlagCheckpoint, 1, "1 checkpoint during the window"}}
	}
	if c.State != CellFailed {
		for i := range c.PerWindow {
			c.Latency = c.PerWindow[i].Latency
		}
	}
	return c
}

func TestFixtureHasEveryState(t *testing.T) {
	m := fixtureModel(t)
	seen := map[string]int{}
	for _, c := range m.Cells {
		seen[c.State]++
	}
	for _, s := range []string{CellValid, CellInvalid, CellFailed} {
		if seen[s] == 0 {
			t.Errorf("fixture has no %s cell: %v", s, seen)
		}
	}
	if fmt.Sprint(m.Header.Noise.Known) != "true" {
		t.Errorf("noise floor unknown: %+v", m.Header.Noise)
	}
}
