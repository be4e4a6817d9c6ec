package report

import (
	_ "embed"
	"fmt"
	"html/template"
	"strings"
)

//go:embed profiling.html.tmpl
var profilingSource string

// profilingView is the HTML page's profiling section.
type profilingView struct {
	Intro    string
	CellHead []string
	Cells    [][]string
	Problems []string
	Flames   []flameFigure
	Steps    []profStepView
}

type flameFigure struct {
	Title string
	SVG   template.HTML
}

type profStepView struct {
	Title         string
	Blocks        []profBlock
	Database      string
	StatementHead []string
	Statements    [][]string
	FlameTitle    string
	Flame         template.HTML
}

type profBlock struct {
	Title, Summary, Note string
	Head                 []string
	Rows                 [][]string
}

// newProfilingView lays out m.Profiling for the page; nil without one.
func newProfilingView(m *Model) *profilingView {
	s := m.Profiling
	if s == nil {
		return nil
	}
	v := &profilingView{
		Intro: fmt.Sprintf("One extra window per cell with sampling on, after the measured rounds and never among the calls' windows. Every figure is per successful response of that window; rows resting on fewer than %d samples on both sides are hidden. "+
			"The overhead sets the profile window's throughput against the cell's median: it holds the profilers' cost and the spread between processes. The profiles are pprof files in the results directory (go tool pprof -diff_base A B).", s.MinSamples),
		CellHead: []string{"stack", "case", "conc", "profile window req/s", "cell median req/s", "overhead", "server CPU µs/req", "PostgreSQL CPU µs/req", "profiles (samples)"},
	}
	for _, c := range s.Cells {
		var files []string
		for _, f := range c.Profiles {
			files = append(files, fmt.Sprintf("%s (%d)", f.Kind, f.Samples))
		}
		v.Cells = append(v.Cells, []string{c.Stack, c.Case, fmt.Sprint(c.Concurrency), fmt.Sprintf("%.1f", c.ThroughputRPS), orDash(c.CellMedianRPS, "%.1f"),
			pctOrDash(c.OverheadPct), num(c.ServerCPUMicrosPerRequest), num(c.DatabaseCPUMicrosPerRequest), strings.Join(files, ", ")})
		for _, p := range c.Problems {
			v.Problems = append(v.Problems, fmt.Sprintf("%s %s c%d: %s", c.Stack, c.Case, c.Concurrency, p))
		}
		if c.Flame != nil {
			v.Flames = append(v.Flames, flameFigure{Title: fmt.Sprintf("%s, %s c%d: %s, µs per request (width)", c.Stack, c.Case, c.Concurrency, sourceLabel(c.FlameSource)),
				SVG: flameSVG(c.Flame, nil)})
		}
	}
	for _, st := range s.Steps {
		sv := profStepView{Title: fmt.Sprintf("%s → %s, %s (c%d)", st.From, st.To, st.Case, st.Concurrency)}
		for _, e := range st.Explanations {
			b := profBlock{Title: sourceLabel(e.Source),
				Summary: fmt.Sprintf("%s → %s %s/request (%s); %d and %d samples", num(e.BaseTotal), num(e.NextTotal), e.Unit, signedNum(e.Delta), e.BaseSamples, e.NextSamples),
				Head:    []string{"function", "group", st.From, st.To, "change", "share", "cumulative", "samples"}}
			for _, f := range e.Functions {
				b.Rows = append(b.Rows, []string{f.Name, f.Group, num(f.Base), num(f.Next), signedNum(f.Delta), share(f.Share),
					num(f.BaseCum) + " → " + num(f.NextCum), fmt.Sprintf("%d / %d", f.BaseSamples, f.NextSamples)})
			}
			var groups []string
			for _, g := range e.Groups {
				groups = append(groups, fmt.Sprintf("%s %s (%s)", g.Name, signedNum(g.Delta), share(g.Share)))
			}
			if len(groups) > 0 {
				b.Note = "By group: " + strings.Join(groups, "; ") + "."
			}
			if e.Hidden > 0 {
				b.Note += fmt.Sprintf(" %d functions hidden (under %d samples).", e.Hidden, s.MinSamples)
			}
			sv.Blocks = append(sv.Blocks, b)
			if len(e.Callers) > 0 {
				cb := profBlock{Title: sourceLabel(e.Source) + ", cumulative", Summary: "the function and what it calls; functions on nearly every stack left out",
					Head: []string{"function", "group", st.From, st.To, "change", "share", "samples"}}
				for _, c := range e.Callers {
					cb.Rows = append(cb.Rows, []string{c.Name, c.Group, num(c.Base), num(c.Next), signedNum(c.Delta), share(c.Share), fmt.Sprintf("%d / %d", c.BaseSamples, c.NextSamples)})
				}
				sv.Blocks = append(sv.Blocks, cb)
			}
		}
		if st.DatabaseCPUMicrosPerRequest != [2]float64{} {
			sv.Database = fmt.Sprintf("PostgreSQL's CPU: %s → %s µs/request.", num(st.DatabaseCPUMicrosPerRequest[0]), num(st.DatabaseCPUMicrosPerRequest[1]))
		}
		if len(st.Statements) > 0 {
			sv.StatementHead = []string{"statement", "calls/req " + st.From, "calls/req " + st.To, "µs/req " + st.From, "µs/req " + st.To}
			for _, q := range st.Statements {
				sv.Statements = append(sv.Statements, []string{oneLine(q.Query, 120), fmt.Sprintf("%.2f", q.CallsPerRequest[0]), fmt.Sprintf("%.2f", q.CallsPerRequest[1]),
					num(q.MicrosPerRequest[0]), num(q.MicrosPerRequest[1])})
			}
		}
		if st.Flame != nil {
			sv.FlameTitle = fmt.Sprintf("%s → %s: %s, width the larger side's µs per request; red where %s spends more, blue where less", st.From, st.To, sourceLabel(st.FlameSource), st.To)
			sv.Flame = flameSVG(st.Flame, st.Flame)
		}
		v.Steps = append(v.Steps, sv)
	}
	return v
}
