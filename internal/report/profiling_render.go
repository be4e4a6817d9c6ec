package report

import (
	"fmt"
	"io"
	"math"
	"strings"
)

// mdProfiling renders the profiling section: the profile windows, then
// each step's explanation.
func mdProfiling(b *strings.Builder, m *Model) {
	s := m.Profiling
	if s == nil {
		return
	}
	b.WriteString("## Profiles: where each step's difference goes\n\n")
	fmt.Fprintf(b, "One extra window per cell with sampling on, after the measured rounds and never among the calls' windows. "+
		"Every figure is per successful response of that window; rows resting on fewer than %d samples on both sides are hidden, and sample counts are stated. "+
		"The profiles are pprof files in the results directory (`go tool pprof -diff_base A B`).\n\n", s.MinSamples)
	b.WriteString("| stack | case | conc | profile window req/s | cell median req/s | overhead | server CPU µs/req | PostgreSQL CPU µs/req | profiles (samples) |\n")
	b.WriteString("|---|---|---:|---:|---:|---:|---:|---:|---|\n")
	for _, c := range s.Cells {
		var files []string
		for _, f := range c.Profiles {
			files = append(files, fmt.Sprintf("%s (%d)", f.Kind, f.Samples))
		}
		fmt.Fprintf(b, "| %s | %s | %d | %.1f | %s | %s | %s | %s | %s |\n", mdEscape(c.Stack), mdEscape(c.Case), c.Concurrency, c.ThroughputRPS,
			orDash(c.CellMedianRPS, "%.1f"), pctOrDash(c.OverheadPct), num(c.ServerCPUMicrosPerRequest), num(c.DatabaseCPUMicrosPerRequest), strings.Join(files, ", "))
	}
	b.WriteString("\n")
	for _, c := range s.Cells {
		for _, p := range c.Problems {
			fmt.Fprintf(b, "- %s %s c%d: %s\n", mdEscape(c.Stack), mdEscape(c.Case), c.Concurrency, mdEscape(p))
		}
	}
	if f := findingLines(s); len(f) > 0 {
		b.WriteString("\n**What the profiles show**\n\n")
		for _, l := range f {
			fmt.Fprintf(b, "- %s\n", mdEscape(l))
		}
	}
	for _, st := range s.Steps {
		fmt.Fprintf(b, "\n### %s → %s, %s (c%d)\n\n", mdEscape(st.From), mdEscape(st.To), mdEscape(st.Case), st.Concurrency)
		for _, e := range st.Explanations {
			fmt.Fprintf(b, "**%s**: %s → %s %s/request (%s); %d and %d samples.\n\n", sourceLabel(e.Source),
				num(e.BaseTotal), num(e.NextTotal), e.Unit, signedNum(e.Delta), e.BaseSamples, e.NextSamples)
			if len(e.Functions) == 0 {
				b.WriteString("No function's own figure rests on enough samples.\n")
			} else {
				fmt.Fprintf(b, "| function | group | %s | %s | change | share | cumulative | samples |\n", mdEscape(st.From), mdEscape(st.To))
				b.WriteString("|---|---|---:|---:|---:|---:|---:|---:|\n")
				for _, f := range e.Functions {
					fmt.Fprintf(b, "| `%s` | %s | %s | %s | %s | %s | %s → %s | %d / %d |\n", mdCode(f.Name), f.Group, num(f.Base), num(f.Next),
						signedNum(f.Delta), share(f.Share), num(f.BaseCum), num(f.NextCum), f.BaseSamples, f.NextSamples)
				}
			}
			var groups []string
			for _, g := range e.Groups {
				groups = append(groups, fmt.Sprintf("%s %s (%s)", g.Name, signedNum(g.Delta), share(g.Share)))
			}
			if len(groups) > 0 {
				fmt.Fprintf(b, "\nBy group: %s.", strings.Join(groups, "; "))
			}
			if e.Hidden > 0 {
				fmt.Fprintf(b, " %d functions hidden (under %d samples).", e.Hidden, s.MinSamples)
			}
			b.WriteString("\n\n")
			if len(e.Callers) > 0 {
				b.WriteString("Largest changes of a cumulative figure (the function and what it calls; functions on nearly every stack left out):\n\n")
				fmt.Fprintf(b, "| function | group | %s | %s | change | share | samples |\n|---|---|---:|---:|---:|---:|---:|\n", mdEscape(st.From), mdEscape(st.To))
				for _, c := range e.Callers {
					fmt.Fprintf(b, "| `%s` | %s | %s | %s | %s | %s | %d / %d |\n", mdCode(c.Name), c.Group, num(c.Base), num(c.Next),
						signedNum(c.Delta), share(c.Share), c.BaseSamples, c.NextSamples)
				}
				b.WriteString("\n")
			}
		}
		if st.DatabaseCPUMicrosPerRequest != [2]float64{} {
			fmt.Fprintf(b, "PostgreSQL's CPU: %s → %s µs/request.\n\n", num(st.DatabaseCPUMicrosPerRequest[0]), num(st.DatabaseCPUMicrosPerRequest[1]))
		}
		if len(st.Statements) > 0 {
			fmt.Fprintf(b, "| statement | calls/req %s | calls/req %s | µs/req %s | µs/req %s |\n|---|---:|---:|---:|---:|\n",
				mdEscape(st.From), mdEscape(st.To), mdEscape(st.From), mdEscape(st.To))
			for _, q := range st.Statements {
				fmt.Fprintf(b, "| `%s` | %.2f | %.2f | %s | %s |\n", mdCode(oneLine(q.Query, 80)), q.CallsPerRequest[0], q.CallsPerRequest[1],
					num(q.MicrosPerRequest[0]), num(q.MicrosPerRequest[1]))
			}
			b.WriteString("\n")
		}
	}
}

// WriteProfilingText writes each step's top changes for a terminal: per
// step and source, the top functions by change per request.
func WriteProfilingText(w io.Writer, m *Model, top int) error {
	s := m.Profiling
	if s == nil {
		return nil
	}
	var b strings.Builder
	for _, c := range s.Cells {
		if c.OverheadPct != nil {
			fmt.Fprintf(&b, "profile window %s %s c%d: %.1f req/s against the cell's median %.1f (%+.1f %%)\n", c.Stack, c.Case, c.Concurrency,
				c.ThroughputRPS, c.CellMedianRPS, -*c.OverheadPct)
		}
	}
	if f := findingLines(s); len(f) > 0 {
		b.WriteString("\nWhat the profiles show:\n")
		for _, l := range f {
			fmt.Fprintf(&b, "  %s\n", l)
		}
	}
	for _, st := range s.Steps {
		fmt.Fprintf(&b, "\n%s → %s, %s c%d\n", st.From, st.To, st.Case, st.Concurrency)
		for _, e := range st.Explanations {
			fmt.Fprintf(&b, "  %s: %s → %s %s/request (%s; %d and %d samples)\n", sourceLabel(e.Source), num(e.BaseTotal), num(e.NextTotal),
				e.Unit, signedNum(e.Delta), e.BaseSamples, e.NextSamples)
			for i, f := range e.Functions {
				if i == top {
					break
				}
				fmt.Fprintf(&b, "    %-10s %s → %s (%s)  %s [%s]\n", signedNum(f.Delta), num(f.Base), num(f.Next), share(f.Share), oneLine(f.Name, 90), f.Group)
			}
			var groups []string
			for i, g := range e.Groups {
				if i == 3 {
					break
				}
				groups = append(groups, fmt.Sprintf("%s %s (%s)", g.Name, signedNum(g.Delta), share(g.Share)))
			}
			if len(groups) > 0 {
				fmt.Fprintf(&b, "    by group: %s\n", strings.Join(groups, "; "))
			}
			var callers []string
			for i, c := range e.Callers {
				if i == 3 {
					break
				}
				callers = append(callers, fmt.Sprintf("%s %s → %s", oneLine(shortName(c.Name), 60), num(c.Base), num(c.Next)))
			}
			if len(callers) > 0 {
				fmt.Fprintf(&b, "    cumulative: %s\n", strings.Join(callers, "; "))
			}
		}
		if st.DatabaseCPUMicrosPerRequest != [2]float64{} {
			fmt.Fprintf(&b, "  PostgreSQL CPU: %s → %s µs/request\n", num(st.DatabaseCPUMicrosPerRequest[0]), num(st.DatabaseCPUMicrosPerRequest[1]))
		}
		for i, q := range st.Statements {
			if i == top {
				break
			}
			fmt.Fprintf(&b, "    %.2f → %.2f calls/req, %s → %s µs/req  %s\n", q.CallsPerRequest[0], q.CallsPerRequest[1],
				num(q.MicrosPerRequest[0]), num(q.MicrosPerRequest[1]), oneLine(q.Query, 70))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// num formats a per-request figure with three significant digits or so.
func num(v float64) string {
	a := math.Abs(v)
	switch {
	case a == 0:
		return "0"
	case a >= 100:
		return fmt.Sprintf("%.0f", v)
	case a >= 10:
		return fmt.Sprintf("%.1f", v)
	case a >= 1:
		return fmt.Sprintf("%.2f", v)
	default:
		return fmt.Sprintf("%.3f", v)
	}
}

func signedNum(v float64) string {
	if v > 0 {
		return "+" + num(v)
	}
	return num(v)
}

func share(v float64) string { return fmt.Sprintf("%.0f %%", v*100) }

func orDash(v float64, format string) string {
	if v == 0 {
		return "–"
	}
	return fmt.Sprintf(format, v)
}

func pctOrDash(p *float64) string {
	if p == nil {
		return "–"
	}
	return fmt.Sprintf("%.1f %%", *p)
}

// mdEscape keeps user text (stack names, problems) from breaking a table.
func mdEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", "<", "&lt;", ">", "&gt;").Replace(s)
}

// mdCode readies text for a code span in a table cell.
func mdCode(s string) string {
	return strings.NewReplacer("|", `\|`, "`", "'", "\n", " ").Replace(s)
}

// oneLine collapses whitespace and cuts s to n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// shortName drops a Go symbol's import path up to its last element
// ("github.com/x/y/saas.CPUChain" → "saas.CPUChain"), for the terminal.
func shortName(name string) string {
	if strings.ContainsAny(name, " :") {
		return name // not a Go symbol
	}
	head := name
	if i := strings.IndexByte(head, '['); i >= 0 {
		head = head[:i]
	}
	if i := strings.LastIndexByte(head, '/'); i >= 0 {
		return name[i+1:]
	}
	return name
}

// findingLines are the cells' known patterns (Finding), one line each,
// named by their cell.
func findingLines(s *ProfilingSection) []string {
	var out []string
	for _, c := range s.Cells {
		for _, f := range c.Findings {
			out = append(out, fmt.Sprintf("%s %s c%d: %s", c.Stack, c.Case, c.Concurrency, f.Text))
		}
	}
	return out
}
