package report

import (
	"fmt"
	"github.com/stackbench/stackbench/internal/analysis"
	"html/template"
	"slices"
	"strings"

	"github.com/stackbench/stackbench/internal/capacity"
)

// The capacity section's text, shared by the Markdown and HTML renderers.

// capacityIntro says how the searches were made.
func capacityIntro(cs *CapacitySection) []string {
	s := cs.Settings
	searched := "was searched once"
	if s.Searches > 1 {
		searched = fmt.Sprintf("was searched %d times, each search in a fresh process, the stacks taking turns search by search in a balanced order,", s.Searches)
	}
	return []string{
		fmt.Sprintf("After the windows, each stack × case %s for the highest open-loop rate that meets the case's SLO: probes of %s s after %s s of warm-up at the rate, %d connections, "+
			"climbing ×2 from half the cell's closed-loop median, bisected to %s, then %d confirmation windows in a row; a failed probe is repeated %d time(s) before it is believed; each search within %s s (docs/capacity.md).",
			searched, sig3(s.ProbeSeconds), sig3(s.WarmupSeconds), s.Connections, fmtFraction(s.Resolution), s.Confirmations, s.Retries, sig3(s.BudgetSeconds)),
		"A search's capacity is the middle of its bracket: from the rate it confirmed to the lowest rate above it whose failure was believed, the server sustains something in between. " +
			"A stack's capacity is the median of its confirmed searches' (the lower middle one for an even count); \"searches\" says how many it rests on and their range. " +
			"Latency, server CPU and RSS at capacity, and the bracket, are the median search's: over its confirmation windows merged, and their means.",
	}
}

// capacityHead is the head of a case's capacity table.
func capacityHead(c CapacityCase) []string {
	head := []string{"stack", "capacity", "p50 at capacity", "p99 at capacity"}
	if c.SLOName != "p99" {
		head = append(head, c.SLOName+" at capacity")
	}
	per := "CPU per request"
	if c.PerFlow {
		per = "CPU per completed flow"
	}
	return append(head, "server CPU", per, "RSS (mean / peak)", "searches", "bracket", "closed loop", "probes", "search")
}

// rateUnitOf is the unit of a capacity case's rates in its table: "rps",
// or "flows/s" for a flow case.
func rateUnitOf(c CapacityCase) string {
	if c.PerFlow {
		return "flows/s"
	}
	return "rps"
}

// capacityCells is one stack's line of a case's capacity table.
func capacityCells(c CapacityCase, r CapacityRow) []string {
	dash := "–"
	capRate, p50, p99, pSLO, cores, perReq, rss := dash, dash, dash, dash, dash, dash, dash
	if r.Status == capacity.StatusConfirmed {
		capRate = fmtRate(r.CapacityRPS) + " " + rateUnitOf(c)
	}
	if a := r.AtCapacity; r.Status == capacity.StatusConfirmed && a != nil {
		p50, p99, pSLO = fmtMicros(float64(a.LatencyMicros.P50)), fmtMicros(float64(a.LatencyMicros.P99)), fmtMicros(float64(a.LatencyMicros.SLO))
		cores, perReq = fmtCores(r.ServerCores), sig3(r.CPUMicrosPerRequest)+" µs"
		rss = fmtBytes(r.RSSMeanBytes) + " / " + fmtBytes(r.RSSPeakBytes)
	}
	cells := []string{r.Stack, capRate, p50, p99}
	if c.SLOName != "p99" {
		cells = append(cells, pSLO)
	}
	unit := rateUnitOf(c)
	return append(cells, cores, perReq, rss, strings.Replace(searchesText(r), " rps", " "+unit, 1), strings.Replace(bracketText(r), " rps", " "+unit, 1), fmtRate(r.ClosedLoopRPS)+" "+unit,
		fmt.Sprint(len(r.Probes)), capacityStatusText(r))
}

// searchesText says what a stack's capacity rests on: "4 of 4: 8,010–8,420
// rps", "1 of 1", "0 of 4".
func searchesText(r CapacityRow) string {
	n := max(r.Searches, len(r.SearchResults))
	t := fmt.Sprintf("%d of %d", r.Confirmed, n)
	if len(r.SearchCapacitiesRPS) > 1 {
		t += ": " + fmtRate(slices.Min(r.SearchCapacitiesRPS)) + "–" + fmtRate(slices.Max(r.SearchCapacitiesRPS)) + " rps"
	}
	return t
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

// capacityStatusText says how a stack's searches ended: "confirmed in
// 41.2 s" for one, "confirmed ×3, out of budget ×1; 170 s" for several.
func capacityStatusText(r CapacityRow) string {
	if len(r.SearchResults) <= 1 {
		return searchStatusText(r.Status, r.Error, r.ElapsedSeconds)
	}
	var parts []string
	seen := map[string]int{}
	var order []string
	for _, s := range r.SearchResults {
		text := searchStatusText(s.Status, s.Error, 0)
		if seen[text] == 0 {
			order = append(order, text)
		}
		seen[text]++
	}
	for _, text := range order {
		parts = append(parts, fmt.Sprintf("%s ×%d", text, seen[text]))
	}
	return strings.Join(parts, ", ") + fmt.Sprintf("; %s s in all", sig3(r.ElapsedSeconds))
}

// searchStatusText says how one search ended; elapsed is left out when 0.
func searchStatusText(status, errText string, elapsed float64) string {
	switch status {
	case capacity.StatusConfirmed:
		if elapsed == 0 {
			return "confirmed"
		}
		return fmt.Sprintf("confirmed in %s s", sig3(elapsed))
	case capacity.StatusBudget:
		return "out of budget: only the bracket is known"
	case capacity.StatusNoPass:
		return "no rate met the SLO"
	case capacity.StatusFailed:
		return "failed: " + errText
	case CapacityStopped:
		return "stopped (the run was stopped in this search; resume it)"
	}
	return "not run"
}

// capacityStepIntro says what a capacity step's call rests on.
const capacityStepIntro = "Each call is on the ratio of the two capacities: the two-sample Hodges–Lehmann shift between the two stacks' search capacities (one value per confirmed search), with its Mann–Whitney interval (docs/capacity.md, \"The call on a capacity step\"); \"searches\" counts the values on each side."

// capacityStepCaveat says what a capacity step's interval holds and what
// it does not.
const capacityStepCaveat = "Each search is a fresh process's whole search, so the interval holds the spread between processes and between searches as this run met it (the stacks' searches took turns, so a drift of the host lands on both); it says nothing of another host or another time."

// capacityStepHead and capacityStepCells are the capacity steps' table.
var capacityStepHead = []string{"step", "case", "capacity call", "estimate (interval)", "searches", "why"}

func capacityStepCells(s CapacityStep) []string {
	step := s.From + " → " + s.To
	if s.Kind == analysis.StepOverall {
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
		fmt.Fprintf(b, "### %s (SLO %s)\n\n", c.Case, capacitySLOText(c))
		t := mdTable{head: capacityHead(c)}
		for _, r := range c.Rows {
			t.add(capacityCells(c, r)...)
		}
		t.write(b)
	}
	if len(cs.Steps) > 0 {
		b.WriteString("### Capacity steps\n\n")
		b.WriteString(capacityStepIntro + " " + capacityStepCaveat + "\n\n")
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
	StepIntro  string
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
	v := &capacityView{Intro: capacityIntro(cs), StepHead: capacityStepHead, StepIntro: capacityStepIntro, StepCaveat: capacityStepCaveat}
	for _, c := range cs.Cases {
		cv := capacityCaseView{Title: fmt.Sprintf("%s (SLO %s)", c.Case, capacitySLOText(c)), Chart: capacityChart(c, colors), Head: capacityHead(c)}
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

// capacitySLOText is a case's objectives as a table's title says them:
// the SLO, or a flow's on the whole flow and on its steps, in flows/s.
func capacitySLOText(c CapacityCase) string {
	if !c.PerFlow {
		return c.SLO
	}
	return capacityFlowSLOText(c) + "; rates in flows/s"
}
