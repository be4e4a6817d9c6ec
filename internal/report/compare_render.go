package report

import (
	"fmt"
	"github.com/stackbench/stackbench/internal/analysis"
	"github.com/stackbench/stackbench/internal/stats"
	"io"
	"strings"
)

// WriteComparisonMarkdown renders a comparison of two runs as Markdown.
func WriteComparisonMarkdown(w io.Writer, c *Comparison) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# stackbench comparison: %s → %s\n\n", c.A.RunID, c.B.RunID)
	t := mdTable{head: []string{"", "A", "B"}}
	t.add("run", c.A.RunID, c.B.RunID)
	t.add("started", c.A.Started.UTC().Format("2006-01-02 15:04 UTC"), c.B.Started.UTC().Format("2006-01-02 15:04 UTC"))
	t.add("state", c.A.State, c.B.State)
	t.add("stackbench", c.A.ToolVersion, c.B.ToolVersion)
	t.add("profile", c.A.Profile, c.B.Profile)
	t.add("host", hostText(c.A.Host), hostText(c.B.Host))
	if len(c.RunsA) > 0 || len(c.RunsB) > 0 {
		t.add("runs", strings.Join(c.RunsA, ", "), strings.Join(c.RunsB, ", "))
	}
	t.write(&b)
	b.WriteString(compareMethodText(c) + " " + compareCallRule(c) + " " + dispersionText(c.DispersionA, "run A's ") + " " + dispersionText(c.DispersionB, "run B's ") + "\n\n")
	if len(c.CannotJudge) > 0 {
		b.WriteString("## Cannot judge\n\nThe calls below compare two hosts as much as two versions, so a regression gate does not act on them:\n\n")
		for _, w := range c.CannotJudge {
			fmt.Fprintf(&b, "- %s\n", w)
		}
		b.WriteString("\nPut both versions in one run as neighbouring stacks instead: their windows interleave, so the host's drift lands on both.\n\n")
	}
	if len(c.Warnings) > 0 {
		b.WriteString("## Warnings\n\n")
		for _, w := range c.Warnings {
			fmt.Fprintf(&b, "- %s\n", w)
		}
		b.WriteString("\n")
	}
	b.WriteString("## Each stack, A → B\n\n")
	for _, g := range []string{analysis.GroupDatabase, analysis.GroupFramework} {
		var rows []analysis.GroupStep
		for _, r := range c.Groups {
			if r.Group == g {
				rows = append(rows, r)
			}
		}
		if len(rows) == 0 {
			continue
		}
		fmt.Fprintf(&b, "### %s routes\n\n", titleCase(g))
		t := mdTable{head: append([]string{"stack"}, groupHead[1:len(groupHead)-1]...)}
		for _, r := range rows {
			row := groupRow(r)
			t.add(append([]string{r.From}, row[1:len(row)-1]...)...)
		}
		t.write(&b)
	}
	b.WriteString("### Per case\n\n")
	head := []string{"stack", "case", "c", "throughput", "estimate (interval)", "per CPU-second", "estimate (interval)"}
	withCost := len(c.Steps) > 0 && c.Steps[0].Cost != nil
	if withCost {
		head = append(head, "cost at the fixed rate (per request; a flow case: per completed flow)", "estimate (interval)")
	}
	head = append(head, "80 % power")
	pc := mdTable{head: head}
	for _, s := range c.Steps {
		row := []string{s.From, "`" + s.Case + "`", fmt.Sprint(s.Concurrency),
			callCell(s.Throughput), estimateText(s.Throughput),
			callCell(s.PerCPU), estimateText(s.PerCPU)}
		power := powerText(s.Throughput)
		if withCost && s.Cost != nil {
			row = append(row, callCell(*s.Cost), estimateText(*s.Cost))
			power += "; cost " + powerText(*s.Cost)
		}
		pc.add(append(row, power)...)
	}
	pc.write(&b)
	b.WriteString("\n80 % power: the smallest true change each comparison would call in 80 % of repeats, from the width of its interval (between-run spread included).\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// powerText is a cross-run call's 80 % power: "±4.2 %", or "–" when its
// interval is not bounded.
func powerText(c analysis.Change) string {
	if c.Detectable80Pct <= 0 {
		return "–"
	}
	return fmt.Sprintf("±%.1f %%", c.Detectable80Pct)
}

// compareMethodText says how the runs were compared.
func compareMethodText(c *Comparison) string {
	var s string
	if c.Method == CompareReference {
		s = fmt.Sprintf("Compared through the reference stack %s, unchanged in every run: each stack's per-round ratio to %s in run A against the same in run B (a difference in differences: what changed the speed of the host or the hour changed %s too and cancels).",
			c.Reference, c.Reference, c.Reference)
	} else {
		s = "Compared by pooling each stack's windows of run A against those of run B (no reference stack both runs share unchanged): a change of the hour is not cancelled."
	}
	if c.BetweenRunPct > 0 {
		cost := ""
		if c.CostBetweenRunPct > 0 {
			cost = fmt.Sprintf(" (%.2g %% for the cost calls)", c.CostBetweenRunPct)
		}
		switch c.BetweenRunSource {
		case "", "assumed":
			s += fmt.Sprintf(" The rounds of one run carry none of what moves a whole run (a rebuild, the memory layout, the database's state), so each run adds a run-to-run spread of %.2g %%%s to the intervals — assumed, not measured: measure this machine's with `stackbench spread` on three or more runs of one file, or pass yours with `--between-run`.", c.BetweenRunPct, cost)
		default:
			s += fmt.Sprintf(" The rounds of one run carry none of what moves a whole run (a rebuild, the memory layout, the database's state), so each run adds a run-to-run spread of %.2g %%%s to the intervals, %s.", c.BetweenRunPct, cost, c.BetweenRunSource)
		}
	} else {
		s += fmt.Sprintf(" The runs are the unit (%d in A, %d in B): one value a run, compared by Welch's t on the logs, so the runs' own spread is in the intervals.", len(c.RunsA), len(c.RunsB))
	}
	if c.Family == "run" {
		s += fmt.Sprintf(" False calls are controlled over the comparison's %d calls at once (Benjamini–Hochberg at α = %g).", c.FamilyCalls, c.Alpha)
	} else {
		s += fmt.Sprintf(" One decision per call at α = %g.", c.Alpha)
	}
	s += " The hosts are compared by " + strings.Join(c.HostCompared, ", ") + "."
	return s
}

// WriteComparisonJSON writes a comparison as indented JSON.
func WriteComparisonJSON(w io.Writer, c *Comparison) error { return writeJSON(w, c) }

// compareCallRule says how a comparison's calls read their intervals:
// the interval is not the rounds' rank interval alone (compareMethodText
// says what it carries).
func compareCallRule(c *Comparison) string {
	return fmt.Sprintf("Each call reads its intervals alone, never the estimate: gain or loss when its %s interval excludes 0, same when its %s interval lies within ±%s (two one-sided tests at α each, on the log scale), undecided otherwise.",
		confidenceText(c.Alpha), confidenceText(stats.SameLevel(c.Alpha)), fmtFraction(c.MinEffect))
}
