package report

import (
	"fmt"
	"html/template"
	"strings"

	"github.com/stackbench/stackbench/internal/capacity"
)

// The capacity section's text, shared by the Markdown and HTML renderers.

// capacityIntro says how the searches were made.
func capacityIntro(cs *CapacitySection) []string {
	s := cs.Settings
	return []string{
		fmt.Sprintf("After the windows, each stack × case was searched for the highest open-loop rate that meets the case's SLO: probes of %s s after %s s of warm-up at the rate, %d connections, "+
			"climbing ×2 from half the cell's closed-loop median, bisected to %s, then %d confirmation windows in a row; a failed probe is repeated %d time(s) before it is believed; each search within %s s (docs/capacity.md).",
			sig3(s.ProbeSeconds), sig3(s.WarmupSeconds), s.Connections, fmtFraction(s.Resolution), s.Confirmations, s.Retries, sig3(s.BudgetSeconds)),
		"Capacity is the confirmed rate; latency at capacity is over its confirmation windows merged, server CPU and RSS their means. The bracket is the lowest rate whose failure was believed and the highest rate that passed below it: the server sustains less than the former; a confirmation that failed steps the capacity down, below the bracket's lower end.",
	}
}

// capacityHead is the head of a case's capacity table.
func capacityHead(c CapacityCase) []string {
	head := []string{"stack", "capacity", "p50 at capacity", "p99 at capacity"}
	if c.SLOName != "p99" {
		head = append(head, c.SLOName+" at capacity")
	}
	return append(head, "server CPU", "CPU per request", "RSS (mean / peak)", "bracket", "closed loop", "probes", "search")
}

// capacityCells is one stack's line of a case's capacity table.
func capacityCells(c CapacityCase, r CapacityRow) []string {
	dash := "–"
	capRate, p50, p99, pSLO, cores, perReq, rss := dash, dash, dash, dash, dash, dash, dash
	if a := r.AtCapacity; r.Status == capacity.StatusConfirmed && a != nil {
		capRate = fmtRate(r.CapacityRPS) + " rps"
		p50, p99, pSLO = fmtMicros(float64(a.LatencyMicros.P50)), fmtMicros(float64(a.LatencyMicros.P99)), fmtMicros(float64(a.LatencyMicros.SLO))
		cores, perReq = fmtCores(r.ServerCores), sig3(r.CPUMicrosPerRequest)+" µs"
		rss = fmtBytes(r.RSSMeanBytes) + " / " + fmtBytes(r.RSSPeakBytes)
	}
	cells := []string{r.Stack, capRate, p50, p99}
	if c.SLOName != "p99" {
		cells = append(cells, pSLO)
	}
	return append(cells, cores, perReq, rss, bracketText(r), fmtRate(r.ClosedLoopRPS)+" rps",
		fmt.Sprint(len(r.Probes)), capacityStatusText(r))
}

// bracketText is "12,000–12,240 rps", with "none" for an end without a rate.
func bracketText(r CapacityRow) string {
	end := func(v float64) string {
		if v <= 0 {
			return "none"
		}
		return fmtRate(v)
	}
	return end(r.LastPassRPS) + "–" + end(r.FirstFailRPS) + " rps"
}

// capacityStatusText says how a search ended.
func capacityStatusText(r CapacityRow) string {
	switch r.Status {
	case capacity.StatusConfirmed:
		return fmt.Sprintf("confirmed in %s s", sig3(r.ElapsedSeconds))
	case capacity.StatusBudget:
		return "out of budget: only the bracket is known"
	case capacity.StatusNoPass:
		return "no rate met the SLO"
	case capacity.StatusFailed:
		return "failed: " + r.Error
	case CapacityStopped:
		return "stopped (the run was stopped in this search; resume it)"
	}
	return "not run"
}

// capacityStepCaveat says what a capacity step's interval does not hold.
const capacityStepCaveat = "Each search is one server process and one pass: the interval holds the confirmation windows' noise and the searches' resolution, not the variation between processes or searches, which on a busy host can be far larger; repeat the run before building on a capacity step."

// capacityStepHead and capacityStepCells are the capacity steps' table.
var capacityStepHead = []string{"step", "case", "capacity call", "estimate (interval)", "confirmation windows", "why"}

func capacityStepCells(s CapacityStep) []string {
	step := s.From + " → " + s.To
	if s.Kind == StepOverall {
		step += " (overall)"
	}
	return []string{step, s.Case, string(s.Capacity.Call), estimateText(s.Capacity),
		fmt.Sprintf("%d / %d", s.Capacity.FromWindows, s.Capacity.ToWindows), s.Capacity.Reason}
}

// capacityCostGrid is the cost at the SLO beside the saturation-based
// cost, per stack, provider and load: "SLO: 3 × CX33, $29.97/mo ·
// saturation: 1 × CX23, $6.49/mo".
func capacityCostGrid(m *Model) [][]string {
	sat := map[string][]string{}
	if m.Cost != nil {
		for _, r := range costGrid(m.Cost) {
			sat[r[0]+"\x00"+r[1]] = r
		}
	}
	var out [][]string
	for _, r := range costGrid(m.Capacity.Cost) {
		row := []string{r[0], r[1]}
		s := sat[r[0]+"\x00"+r[1]]
		for i, cell := range r[2:] {
			text := "SLO: " + cell
			if len(s) > i+2 && m.Cost.LoadsRPS[i] == m.Capacity.Cost.LoadsRPS[i] {
				text += " · saturation: " + s[i+2]
			}
			row = append(row, text)
		}
		out = append(out, row)
	}
	return out
}

// capacityCostIntro says what the cost at the SLO rests on.
func capacityCostIntro(c *CostSection) string {
	return fmt.Sprintf("Priced at each stack's capacity within the SLO on %s (cost.ModelAtSLO), beside the saturation-based price of the cost section; prices in %s as of %s.",
		strings.Join(c.Cases, ", "), c.Currency, c.PricingDate)
}

// mdCapacity writes the capacity section.
func mdCapacity(b *strings.Builder, m *Model) {
	cs := m.Capacity
	if cs == nil {
		return
	}
	b.WriteString("## Capacity at the SLO\n\n")
	for _, line := range capacityIntro(cs) {
		b.WriteString(line + "\n")
	}
	b.WriteString("\n")
	for _, c := range cs.Cases {
		fmt.Fprintf(b, "### %s (SLO %s)\n\n", c.Case, c.SLO)
		t := mdTable{head: capacityHead(c)}
		for _, r := range c.Rows {
			t.add(capacityCells(c, r)...)
		}
		t.write(b)
	}
	if len(cs.Steps) > 0 {
		b.WriteString("### Capacity steps\n\n")
		b.WriteString("Each call is on the ratio of the two capacities: the Hodges–Lehmann shift between the two stacks' confirmation windows' achieved rates, its interval widened by both searches' brackets (docs/capacity.md, \"The call on a capacity step\"). " + capacityStepCaveat + "\n\n")
		t := mdTable{head: capacityStepHead}
		for _, s := range cs.Steps {
			t.add(capacityStepCells(s)...)
		}
		t.write(b)
	}
	if c := cs.Cost; c != nil {
		b.WriteString("### Cost at capacity within the SLO\n\n")
		b.WriteString(capacityCostIntro(c) + "\n\n")
		mdCostTables(b, c, "rps per vCPU at the SLO (harmonic mean)", capacityCostGrid(m))
		for _, cv := range c.Caveats {
			fmt.Fprintf(b, "- %s\n", cv)
		}
		b.WriteString("\n")
	}
}

// capacityView is the capacity section laid out for the HTML template.
type capacityView struct {
	Intro      []string
	Cases      []capacityCaseView
	StepHead   []string
	StepCaveat string
	Steps      [][]string
	CostIntro  string
	CostInputs [][]string
	CostHead   []string
	CostGrid   [][]string
	CostNotes  []string
}

type capacityCaseView struct {
	Title string
	Chart template.HTML
	Head  []string
	Rows  [][]string
}

// newCapacityView lays the capacity section out; nil without one.
func newCapacityView(m *Model, colors map[string]string) *capacityView {
	cs := m.Capacity
	if cs == nil {
		return nil
	}
	v := &capacityView{Intro: capacityIntro(cs), StepHead: capacityStepHead, StepCaveat: capacityStepCaveat}
	for _, c := range cs.Cases {
		cv := capacityCaseView{Title: fmt.Sprintf("%s (SLO %s)", c.Case, c.SLO), Chart: capacityChart(c, colors), Head: capacityHead(c)}
		for _, r := range c.Rows {
			cv.Rows = append(cv.Rows, capacityCells(c, r))
		}
		v.Cases = append(v.Cases, cv)
	}
	for _, s := range cs.Steps {
		v.Steps = append(v.Steps, capacityStepCells(s))
	}
	if c := cs.Cost; c != nil {
		v.CostIntro = capacityCostIntro(c)
		v.CostInputs, v.CostHead, v.CostGrid = costInputRows(c), costGridHead(c), capacityCostGrid(m)
		v.CostNotes = c.Caveats
	}
	return v
}
