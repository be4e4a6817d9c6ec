package report

import (
	"fmt"
	"sort"

	"github.com/google/pprof/profile"

	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/profiling"
)

// ProfilingSection is the profiling phase (protocol profiling: on): each
// cell's profile window, and each step's difference named function by
// function, per request (docs/profiles.md).
type ProfilingSection struct {
	// MinSamples is the fewest samples a shown figure rests on.
	MinSamples int            `json:"min_samples"`
	Cells      []ProfiledCell `json:"cells"`
	Steps      []ProfiledStep `json:"steps"`
	Problems   []string       `json:"problems,omitempty"`
}

// ProfiledCell is one cell's profile window.
type ProfiledCell struct {
	Stack       string `json:"stack"`
	Case        string `json:"case"`
	Concurrency int    `json:"concurrency"`
	// Requests are the window's successful responses: what every figure
	// per request divides by.
	Requests int64 `json:"requests"`
	// ThroughputRPS is the profile window's; CellMedianRPS the median of
	// the cell's counted windows (0 without one); OverheadPct their
	// difference as a share of the median, in percent (positive: the
	// profile window served less). It holds the profilers' cost and the
	// spread between processes.
	ThroughputRPS float64  `json:"throughput_rps"`
	CellMedianRPS float64  `json:"cell_median_rps"`
	OverheadPct   *float64 `json:"overhead_pct"`
	// ServerCPUMicrosPerRequest and DatabaseCPUMicrosPerRequest are the
	// server's and PostgreSQL's CPU time over the window (their process
	// trees, from /proc) per request.
	ServerCPUMicrosPerRequest   float64 `json:"server_cpu_us_per_request"`
	DatabaseCPUMicrosPerRequest float64 `json:"database_cpu_us_per_request"`
	// Profiles are the window's pprof files (paths relative to the
	// results directory), with their sample counts.
	Profiles []journal.ProfileFile `json:"profiles"`
	// Top are the profiles' functions with the largest flat figure per
	// request, by source.
	Top []ProfileTop `json:"top"`
	// Statements are pg_stat_statements over the window, per request.
	Statements []StatementPerRequest `json:"statements,omitempty"`
	// Findings are the known patterns the window shows (patterns.go),
	// in words with their figures.
	Findings []Finding `json:"findings,omitempty"`
	Problems []string  `json:"problems,omitempty"`
	// Flame is the flame graph of FlameSource (Go's CPU profile, else
	// perf's of the server), per request, frames under 0.5 % cut.
	FlameSource string               `json:"flame_source,omitempty"`
	Flame       *profiling.FlameNode `json:"flame,omitempty"`
}

// ProfileTop is one profile's largest functions.
type ProfileTop struct {
	// Source names the profile and its measure (Sources).
	Source  string  `json:"source"`
	Unit    string  `json:"unit"`
	Total   float64 `json:"total"`
	Samples int64   `json:"samples"`
	// Captured is the share of the measured CPU time the samples
	// covered; CPU figures are scaled to the measured time
	// (profiling.Summary.ScaleTo).
	Captured  float64              `json:"captured,omitempty"`
	Functions []profiling.Function `json:"functions"`
}

// StatementPerRequest is one statement's counts divided by the window's
// requests.
type StatementPerRequest struct {
	Query            string  `json:"query"`
	CallsPerRequest  float64 `json:"calls_per_request"`
	MicrosPerRequest float64 `json:"us_per_request"`
	RowsPerRequest   float64 `json:"rows_per_request"`
}

// ProfiledStep is one step's difference, explained by each source both
// sides have.
type ProfiledStep struct {
	From        string `json:"from"`
	To          string `json:"to"`
	Case        string `json:"case"`
	Concurrency int    `json:"concurrency"`
	// Explanations are by source, in Sources order.
	Explanations []SourcedExplanation `json:"explanations"`
	// DatabaseCPUMicrosPerRequest is PostgreSQL's CPU per request on each
	// side (from /proc); 0 for a case that does not use the database.
	DatabaseCPUMicrosPerRequest [2]float64 `json:"database_cpu_us_per_request"`
	// Statements pair each statement's figures per request on the two
	// sides, by query text.
	Statements []StatementChange `json:"statements,omitempty"`
	// Flame is the differential flame graph of the two cells' graphs
	// (same source on both sides); left out of report.json, where the
	// cells' graphs are.
	FlameSource string               `json:"flame_source,omitempty"`
	Flame       *profiling.FlameNode `json:"-"`
}

// SourcedExplanation is an explanation from one source.
type SourcedExplanation struct {
	Source string `json:"source"`
	profiling.Explanation
}

// StatementChange is one statement on the two sides of a step.
type StatementChange struct {
	Query            string     `json:"query"`
	CallsPerRequest  [2]float64 `json:"calls_per_request"`
	MicrosPerRequest [2]float64 `json:"us_per_request"`
}

// source is a profile kind read for one measure.
type source struct {
	name    string
	kind    string
	measure profiling.Measure
	label   string
}

// Sources are what a step is explained by, in order: Go's CPU profile,
// Go's allocations in bytes and in objects, perf's samples of the server
// and of PostgreSQL.
var sources = []source{
	{"go_cpu", journal.ProfileGoCPU, profiling.MeasureCPU, "Go CPU profile"},
	{"go_alloc_bytes", journal.ProfileGoAllocs, profiling.MeasureAllocBytes, "Go heap allocation, bytes"},
	{"go_alloc_objects", journal.ProfileGoAllocs, profiling.MeasureAllocObjects, "Go heap allocation, objects"},
	{"perf_server", journal.ProfilePerfServer, profiling.MeasureCPU, "perf, server processes"},
	{"perf_database", journal.ProfilePerfDatabase, profiling.MeasureCPU, "perf, PostgreSQL processes"},
}

// sourceLabel is a source's name for readers.
func sourceLabel(name string) string {
	for _, s := range sources {
		if s.name == name {
			return s.label
		}
	}
	return name
}

// topFunctions is how many functions a cell keeps per source and a step
// per explanation.
const topFunctions = 10

// flameMinShare is the smallest frame a flame graph keeps, as a share of
// the whole: it bounds report.json and the page.
const flameMinShare = 0.005

// AddProfiling reads the profiling phase's records and profile files (in
// dir) into m.Profiling; a file that does not read is a problem of its
// cell, not an error.
func AddProfiling(dir string, res *journal.Results, m *Model) {
	if len(res.Profiling) == 0 {
		return
	}
	sec := &ProfilingSection{MinSamples: profiling.MinSamples, Cells: []ProfiledCell{}, Steps: []ProfiledStep{}}
	summaries := map[string]map[string]profiling.Summary{} // cell key → source → summary
	for _, stack := range m.Header.Stacks {
		for _, ci := range m.Header.Cases {
			for _, conc := range m.Header.Concurrency {
				p, ok := res.ProfilingWindow(journal.ProfilingKey(stack, ci.Name, conc))
				if !ok {
					continue
				}
				pc, sums := profiledCell(dir, p, m)
				sec.Cells = append(sec.Cells, pc)
				summaries[p.Key] = sums
			}
		}
	}
	seen := map[string]bool{}
	for _, st := range m.Steps {
		k := fmt.Sprintf("%s>%s>%s>%d", st.From, st.To, st.Case, st.Concurrency)
		if seen[k] {
			continue
		}
		seen[k] = true
		a, aok := cellOf(sec.Cells, st.From, st.Case, st.Concurrency)
		b, bok := cellOf(sec.Cells, st.To, st.Case, st.Concurrency)
		if !aok || !bok {
			continue
		}
		ps := ProfiledStep{From: st.From, To: st.To, Case: st.Case, Concurrency: st.Concurrency,
			Statements: pairStatements(a.Statements, b.Statements)}
		if st.Database {
			ps.DatabaseCPUMicrosPerRequest = [2]float64{a.DatabaseCPUMicrosPerRequest, b.DatabaseCPUMicrosPerRequest}
		}
		sa := summaries[journal.ProfilingKey(st.From, st.Case, st.Concurrency)]
		sb := summaries[journal.ProfilingKey(st.To, st.Case, st.Concurrency)]
		for _, src := range sources {
			if src.kind == journal.ProfilePerfDatabase && !st.Database {
				continue // PostgreSQL's background work, not this case's
			}
			x, xok := sa[src.name]
			y, yok := sb[src.name]
			if xok && yok {
				ps.Explanations = append(ps.Explanations, SourcedExplanation{Source: src.name, Explanation: profiling.Explain(x, y, topFunctions)})
			}
		}
		if a.Flame != nil && b.Flame != nil && a.FlameSource == b.FlameSource {
			ps.FlameSource, ps.Flame = a.FlameSource, profiling.DiffFlame(a.Flame, b.Flame)
		}
		sec.Steps = append(sec.Steps, ps)
	}
	m.Profiling = sec
}

func cellOf(cs []ProfiledCell, stack, cas string, conc int) (ProfiledCell, bool) {
	for _, c := range cs {
		if c.Stack == stack && c.Case == cas && c.Concurrency == conc {
			return c, true
		}
	}
	return ProfiledCell{}, false
}

// profiledCell reads one profile window and its files.
func profiledCell(dir string, p journal.Profiling, m *Model) (ProfiledCell, map[string]profiling.Summary) {
	pc := ProfiledCell{Stack: p.Stack, Case: p.Case, Concurrency: p.Concurrency, Requests: p.Requests,
		Profiles: p.Profiles, Problems: append([]string(nil), p.Problems...), Top: []ProfileTop{}}
	if pc.Profiles == nil {
		pc.Profiles = []journal.ProfileFile{}
	}
	if p.Window.Load != nil {
		pc.ThroughputRPS = p.Window.Load.ThroughputRPS
	}
	if c, ok := m.Cell(p.Stack, p.Case, p.Concurrency); ok && c.Counted > 0 && c.Throughput.Median > 0 {
		pc.CellMedianRPS = c.Throughput.Median
		if pc.ThroughputRPS > 0 {
			o := (pc.CellMedianRPS - pc.ThroughputRPS) / pc.CellMedianRPS * 100
			pc.OverheadPct = &o
		}
	}
	sums := map[string]profiling.Summary{}
	if p.Requests <= 0 {
		return pc, sums
	}
	r := float64(p.Requests)
	pc.ServerCPUMicrosPerRequest = p.Window.Server.CPUSeconds * 1e6 / r
	pc.DatabaseCPUMicrosPerRequest = p.Window.Database.CPUSeconds * 1e6 / r
	for _, s := range p.Statements {
		pc.Statements = append(pc.Statements, StatementPerRequest{Query: s.Query, CallsPerRequest: float64(s.Calls) / r,
			MicrosPerRequest: s.TotalMillis * 1e3 / r, RowsPerRequest: float64(s.Rows) / r})
	}
	loaded := map[string]*profile.Profile{}
	for _, src := range sources {
		f, ok := profileFile(p.Profiles, src.kind)
		if !ok {
			continue
		}
		prof, seen := loaded[f.Path]
		if !seen {
			var err error
			prof, err = readProfile(dir, f.Path)
			if err != nil {
				pc.Problems = append(pc.Problems, err.Error())
			}
			loaded[f.Path] = prof
		}
		if prof == nil {
			continue
		}
		s, err := profiling.Summarize(prof, src.measure, p.Requests)
		if err != nil {
			pc.Problems = append(pc.Problems, fmt.Sprintf("%s: %v", f.Path, err))
			continue
		}
		measured := pc.ServerCPUMicrosPerRequest
		if src.kind == journal.ProfilePerfDatabase {
			measured = pc.DatabaseCPUMicrosPerRequest
		}
		raw := s.Total
		s.ScaleTo(measured)
		sums[src.name] = s
		if pc.Flame == nil && src.measure == profiling.MeasureCPU && src.kind != journal.ProfilePerfDatabase {
			if fl, err := profiling.Flame(prof, src.measure, p.Requests, flameMinShare); err == nil {
				if s.Captured > 0 {
					fl.Scale(s.Total / raw)
				}
				pc.FlameSource, pc.Flame = src.name, fl
			}
		}
		top := s.Functions
		if len(top) > topFunctions {
			top = top[:topFunctions]
		}
		pc.Top = append(pc.Top, ProfileTop{Source: src.name, Unit: s.Unit, Total: s.Total, Samples: s.Samples, Captured: s.Captured, Functions: top})
	}
	pc.Findings = findPatterns(pc, sums)
	return pc, sums
}

func profileFile(fs []journal.ProfileFile, kind string) (journal.ProfileFile, bool) {
	for _, f := range fs {
		if f.Kind == kind {
			return f, true
		}
	}
	return journal.ProfileFile{}, false
}

// pairStatements pairs two sides' statements by query text, by the
// larger time per request first.
func pairStatements(a, b []StatementPerRequest) []StatementChange {
	by := map[string]*StatementChange{}
	var order []string
	put := func(side int, ss []StatementPerRequest) {
		for _, s := range ss {
			c := by[s.Query]
			if c == nil {
				c = &StatementChange{Query: s.Query}
				by[s.Query] = c
				order = append(order, s.Query)
			}
			c.CallsPerRequest[side] += s.CallsPerRequest
			c.MicrosPerRequest[side] += s.MicrosPerRequest
		}
	}
	put(0, a)
	put(1, b)
	var out []StatementChange
	for _, q := range order {
		out = append(out, *by[q])
	}
	sort.SliceStable(out, func(i, j int) bool {
		return max(out[i].MicrosPerRequest[0], out[i].MicrosPerRequest[1]) > max(out[j].MicrosPerRequest[0], out[j].MicrosPerRequest[1])
	})
	return out
}
