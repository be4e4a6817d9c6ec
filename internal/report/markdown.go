package report

import (
	"fmt"
	"github.com/stackbench/stackbench/internal/analysis"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/stackbench/stackbench/internal/host"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/stats"
)

// WriteMarkdown renders the model as Markdown tables (summary.md): the same
// content as the HTML page, pasteable into a blog post or a pull request.
func WriteMarkdown(w io.Writer, m *Model) error {
	var b strings.Builder
	mdHeader(&b, m)
	mdForest(&b, m)
	mdSteps(&b, m)
	mdLatency(&b, m)
	mdCells(&b, m)
	mdBoot(&b, m)
	mdDX(&b, m)
	mdProcess(&b, m)
	mdCost(&b, m)
	mdCapacity(&b, m)
	mdProfiling(&b, m)
	mdFooter(&b, m)
	_, err := io.WriteString(w, b.String())
	return err
}

func mdHeader(b *strings.Builder, m *Model) {
	h := m.Header
	if h.ParitySkipped {
		b.WriteString("> **Parity was skipped** (`--skip-parity`): the stacks were never checked to answer the same thing, so a difference below may be a difference in what they do.\n\n")
	}
	fmt.Fprintf(b, "# stackbench report: %s\n\n", h.RunID)
	b.WriteString("> " + strings.Join(VerdictLines(m), "\\\n> ") + "\n\n")
	if ts := thresholdLines(m); len(ts) > 0 {
		b.WriteString("Thresholds (a latency percentile of all the cell's requests, other limits the median of its processes; each with its 95 % family interval):\n\n")
		for _, t := range ts {
			fmt.Fprintf(b, "- %s\n", t)
		}
		b.WriteString("\n")
	}
	facts, protocol := splitHeader(headerLines(m))
	for _, line := range facts {
		b.WriteString(line + "\n")
	}
	b.WriteString("\n")
	if len(protocol) > 0 {
		b.WriteString("<details><summary>How this was measured</summary>\n\n")
		for _, line := range protocol {
			b.WriteString(line + "\n\n")
		}
		b.WriteString("</details>\n\n")
	}
	if len(h.Warnings)+len(h.JournalNotes) > 0 {
		b.WriteString("## Warnings\n\n")
		for _, w := range h.Warnings {
			fmt.Fprintf(b, "- %s\n", w)
		}
		for _, n := range h.JournalNotes {
			fmt.Fprintf(b, "- journal: %s\n", n)
		}
		b.WriteString("\n")
	}
}

// orderClause says, for an interleaved run, which order the stacks took
// their turns in and what it balances.
func orderClause(h analysis.Header) string {
	if h.Order != "rotation" {
		return ", in a balanced (Williams) order: within each case, over a cycle of rounds, every stack came right before every other equally often"
	}
	if len(h.Stacks) < 3 {
		return ", in a rotated order (each first as often as the other)"
	}
	return ", in the rotated order of stackbench before the balanced one, which with three or more stacks puts some stacks right before others more often, so a carry-over from one window to the next (a cache, heat, a busy database) can bias a step"
}

// headerLines are the header's facts as sentences, shared with the HTML page.
func headerLines(m *Model) []string {
	h := m.Header
	state := "finished " + h.Finished.UTC().Format("2006-01-02 15:04 UTC")
	if h.State != "finished" {
		state = h.State + ": not every planned window was measured"
	}
	lines := []string{
		fmt.Sprintf("Workload %s, profile %s, stackbench %s. Started %s; %s (%d of %d windows recorded).",
			h.Workload, h.Profile, h.ToolVersion, h.Started.UTC().Format("2006-01-02 15:04 UTC"), state, h.WindowsRecorded, h.WindowsPlanned),
		fmt.Sprintf("Stacks in step order: %s.", strings.Join(stacksWithWires(h), " → ")),
	}
	if t := tfbSentence(h); t != "" {
		// Beside the stacks, in view: which entry is which, and which
		// passed parity only because a rule was relaxed.
		lines[1] += " " + t
	}
	if ri := h.Rounds; ri != nil {
		upTo := fmt.Sprintf("%d to %d within %s", ri.MinRounds, ri.MaxRounds, ri.Budget)
		if ri.LastRound > 0 && ri.LastRound < ri.MaxRounds {
			upTo = fmt.Sprintf("%d to %d (the rounds a budget of %s affords by the plan's estimate; max_rounds %d)", ri.MinRounds, ri.LastRound, ri.Budget, ri.MaxRounds)
		}
		line := fmt.Sprintf("Rounds: auto, %s; %d measured; looks (where steps are called) after rounds %s", upTo, ri.Measured, looksText(ri.Looks))
		if h.CallsThroughRound > 0 {
			line += fmt.Sprintf(" — the run stopped before its next look, so the steps are called from rounds 1 to %d, and later windows show in the cells only", h.CallsThroughRound)
		}
		if h.BeforeFirstLook {
			line += " — the run has not reached its first look, so every step is undecided"
		}
		for _, x := range ri.Extra {
			line += fmt.Sprintf("; round %d (%d windows) for %d open step(s)", x.Round, x.Windows, len(x.Undecided))
		}
		if ri.Stop != "" {
			line += "; stopped: " + ri.Stop
		}
		lines = append(lines, line+".")
	}
	if h.Design == stats.Paired {
		lines = append(lines, "Layout: interleaved; in each round the stacks took turns case by case"+orderClause(h)+", so each step compares its two stacks round by round (paired: the Hodges–Lehmann shift of the rounds' log-ratios, with its Wilcoxon signed-rank interval).")
	} else {
		lines = append(lines, "Layout: grouped; each stack served its cases in a row, so each step compares its two stacks' windows as independent samples (the two-sample Hodges–Lehmann shift, with its Mann–Whitney interval).")
	}
	lines = append(lines, noiseSentence(h))
	if hs := h.HostSpeed; hs.Probes > 0 {
		slow := 0
		for _, p := range hs.Windows {
			if p.HostSlow {
				slow++
			}
		}
		lines = append(lines, fmt.Sprintf("Host speed: a fixed-work CPU probe around every window took %.2f ms (median; %.2f–%.2f ms); %d kept window(s) ran over %.0f %% slower than at the start (host_slow, not counted).",
			hs.ProbeMedianMs, hs.ProbeMinMs, hs.ProbeMaxMs, slow, 100*host.HostSlowShare))
	}
	if line := foreignLine(h.Foreign); line != "" {
		lines = append(lines, line)
	}
	if line := warmupLine(h.Warmup, h.WarmupPlan); line != "" {
		lines = append(lines, line)
	}
	if line := placementLine(h.Placement); line != "" {
		lines = append(lines, line)
	}
	if line := containersLine(h.Containers); line != "" {
		lines = append(lines, line)
	}
	return lines
}

// looksText is "7, 12", or why there are none.
func looksText(looks []int) string {
	if len(looks) == 0 {
		return "none (no round within the budget can decide a step)"
	}
	return joinInts(looks)
}

// noiseSentence says how the steps are called, and how much the run's
// windows varied.
func noiseSentence(h analysis.Header) string {
	return callRule(h.Alpha, h.MinEffect) + " " + familyText(h) + " " + dispersionText(h.Dispersion, "")
}

// callRule is the rule the calls follow, in one sentence.
func callRule(alpha, minEffect float64) string {
	return fmt.Sprintf("Each step is called from distribution-free intervals of its shift (Hodges–Lehmann), never from the estimate alone: gain or loss when the %s interval excludes 0 (\"at least\" when it also lies past ±%s, \"small\" when it stays within), same when the %s interval lies within ±%s (two one-sided tests at α each; on the log scale, so A→B and B→A get the same call), undecided otherwise.",
		confidenceText(alpha), fmtFraction(minEffect), confidenceText(stats.SameLevel(alpha)), fmtFraction(minEffect))
}

// familyText says how false calls were controlled over the run.
func familyText(h analysis.Header) string {
	switch {
	case h.Family == "run" && h.FamilyCalls == 0:
		// Analysis counts only the calls it could make: with every cell
		// pair invalid there were none, but the family is still the run.
		return "False gains and losses are controlled over the run's calls at once (family: run), but no call had two valid cells, so none was made."
	case h.Family == "run" && h.FamilyCalls == 1:
		return "False gains and losses are controlled over the run's calls at once (family: run); with one valid call that is its own α."
	case h.Family != "run":
		return "Each call is bounded at α on its own (family: step): with many calls, an unchanged run can show a false gain or loss."
	}
	return fmt.Sprintf("False gains and losses are controlled over the run's %d calls at once (family: run; Benjamini–Hochberg at α = %s): in an unchanged run the chance of any false gain or loss is at most α, and a called gain or loss shows its interval at the adjusted level (selected ÷ calls × α).",
		h.FamilyCalls, strconv.FormatFloat(h.Alpha, 'g', 4, 64))
}

// confidenceText is 1 − alpha as a percentage, "95 %".
func confidenceText(alpha float64) string {
	return strconv.FormatFloat(100*(1-alpha), 'g', 4, 64) + " %"
}

// dispersionText is the run's quality figure in one sentence; who names
// the run ("run A's ") in a comparison.
func dispersionText(d analysis.Dispersion, who string) string {
	if !d.Known {
		return "Dispersion of " + who + "windows: unknown (no valid cell had three counted windows)."
	}
	out := ""
	if d.Outliers > 0 {
		out = fmt.Sprintf("; %d counted window(s) past the outlier fence (modified z-score over 3.5), shown and kept", d.Outliers)
	}
	// With one window per process, the spread between processes is the
	// windows' own; it is worth a clause only beside the spread within.
	if d.WithinCells > 0 {
		out += fmt.Sprintf("; within a process (its repeated windows of a cell): median %s over %d cells; between processes (each process's own throughput): median %s over %d cells",
			fmtFraction(d.MedianWithinCV), d.WithinCells, fmtFraction(d.MedianBetweenCV), d.BetweenCells)
	}
	return fmt.Sprintf("Dispersion of %swindows (robust CV of throughput, 1.4826 × MAD ÷ median): median %s over %d valid cells, largest %s (%s %s c=%d)%s.",
		who, fmtFraction(d.MedianCV), d.Cells, fmtFraction(d.MaxCV), d.MaxStack, d.MaxCase, d.MaxConcurrency, out)
}

// stacksWithWires names each stack with how the load reached it, when
// some stack is not plain HTTP/1.1 ("a (HTTP/1.1)", "b (h2c, 100 streams
// a connection)"); the bare names otherwise.
func stacksWithWires(h analysis.Header) []string {
	if len(h.Wires) == 0 {
		return h.Stacks
	}
	out := make([]string, len(h.Stacks))
	for i, s := range h.Stacks {
		w := h.Wires[s]
		if w == "" {
			w = "HTTP/1.1"
		}
		out[i] = s + " (" + w + ")"
	}
	return out
}

// groupHead is the head of a group-summary table; groupRow one row.
var groupHead = groupHeadFor(plan.MetricThroughput)

// groupHeadFor is groupHead for groups that summarise metric (a run's
// headline, which is always called).
func groupHeadFor(metric string) []string {
	name := map[string]string{plan.MetricPerCPU: "per CPU-second", plan.MetricCost: "cost"}[metric]
	if name == "" {
		name = metric
	}
	return []string{"step", "c", name + " estimate: min / median / max", "gain", "loss", "same", "undecided", "invalid", "flagged"}
}

func groupRow(r analysis.GroupStep) []string {
	row := []string{r.From + " → " + r.To, fmt.Sprint(r.Concurrency), groupRange(r)}
	for _, c := range []stats.Call{stats.CallGain, stats.CallLoss, stats.CallSame, stats.CallUndecided, stats.CallInvalid} {
		row = append(row, fmt.Sprint(r.Calls[c]))
	}
	return append(row, fmt.Sprint(r.Flagged))
}

// mdForest is the forest plot as a table: every step on every case, its
// call on the run's headline metric, estimate and interval, sorted from
// the largest loss to the largest gain, with the row drawn in text on one
// log axis.
func mdForest(b *strings.Builder, m *Model) {
	headline := m.Header.Headline()
	groups := forestGroups(m, func(s analysis.Step) analysis.Change {
		if c := s.Metric(headline); c != nil {
			return *c
		}
		return analysis.Change{Call: stats.CallInvalid}
	})
	rows := sortedByEffect(groups)
	if len(rows) == 0 {
		return
	}
	lo, hi := forestRange(groups, m.Header.MinEffect)
	label := analysis.MetricLabel(headline)
	fmt.Fprintf(b, "## Every step by effect\n\n%s, sorted by the estimated change. The axis runs from %s to %s on a log scale: `●` the estimate, `─` its interval, `┊` no change, `·` the ±%s band.\n\n",
		strings.ToUpper(label[:1])+label[1:], fmtPct(100*(math.Pow(10, lo)-1)), fmtPct(100*(math.Pow(10, hi)-1)), fmtFraction(m.Header.MinEffect))
	t := mdTable{head: []string{"step", "case", "c", "call", "estimate (interval)", "picture"}}
	for _, r := range rows {
		pic := forestText(r.Change, lo, hi, m.Header.MinEffect)
		if pic != "" {
			pic = "`" + pic + "`"
		}
		step := stepLabel(r.Step)
		if r.Step.Kind == analysis.StepOverall {
			step += " (overall)"
		}
		t.add(step, "`"+r.Step.Case+"`", fmt.Sprint(r.Step.Concurrency), callCell(r.Change), estimateText(r.Change), pic)
	}
	t.write(b)
}

func mdSteps(b *strings.Builder, m *Model) {
	if len(m.Steps) == 0 {
		return
	}
	b.WriteString("## What each step bought\n\n")
	for _, g := range []string{analysis.GroupDatabase, analysis.GroupFramework} {
		rows := m.GroupSteps(g)
		if len(rows) == 0 {
			continue
		}
		fmt.Fprintf(b, "### %s routes (%s)\n\n", titleCase(g), strings.Join(m.groupCases(g), ", "))
		t := mdTable{head: groupHeadFor(m.Header.Headline())}
		for _, r := range rows {
			t.add(groupRow(r)...)
		}
		t.write(b)
	}
	b.WriteString("### Per case\n\n")
	t := mdTable{head: []string{"case", "c", "step", "throughput", "estimate (interval)", "per CPU-second", "estimate (interval)", "flagged windows"}}
	for _, s := range m.Steps {
		label := stepLabel(s)
		if r := relaxedText(s); r != "" {
			label += " (" + r + ")"
		}
		t.add("`"+s.Case+"`", fmt.Sprint(s.Concurrency), label,
			callCell(s.Throughput), estimateText(s.Throughput),
			callCell(s.PerCPU), estimateText(s.PerCPU), strings.Join(s.Flagged, "; "))
	}
	t.write(b)
}

// callCell is a call for a table cell: bold when it is a gain or a loss,
// with the windows needed when undecided.
func callCell(c analysis.Change) string {
	switch c.Call {
	case stats.CallGain, stats.CallLoss:
		return "**" + callLabel(c) + "**"
	case stats.CallUndecided:
		if c.WindowsNeeded > 0 {
			return "undecided (" + windowsNeededText(c) + ")"
		}
	}
	return string(c.Call)
}

// groupRange is a group step's min / median / max change, or why there is none.
func groupRange(g analysis.GroupStep) string {
	if g.Defined == 0 {
		return "no valid pair"
	}
	if g.Defined == 1 {
		return fmtPct(g.MedianPct) + fmt.Sprintf(" (1 of %d cases)", g.Cases)
	}
	s := fmtPct(g.MinPct) + " / " + fmtPct(g.MedianPct) + " / " + fmtPct(g.MaxPct)
	if g.Defined < g.Cases {
		s += fmt.Sprintf(" (%d of %d cases)", g.Defined, g.Cases)
	}
	return s
}

func mdCells(b *strings.Builder, m *Model) {
	b.WriteString("## Cells\n\n")
	b.WriteString("Medians over each cell's counted windows (min–max beside them); latency percentiles from the windows' merged histograms.\n\n")
	for _, ci := range m.Header.Cases {
		kind := "framework-only"
		if ci.Database {
			kind = "database"
		}
		fmt.Fprintf(b, "### `%s` (%s)\n\n", ci.Name, kind)
		t := mdTable{head: cellColumns}
		for _, c := range m.Cells {
			if c.Case != ci.Name {
				continue
			}
			row := cellRow(c)
			if c.State != analysis.CellValid {
				row[3] = "**" + row[3] + "**"
			}
			t.add(row...)
		}
		t.write(b)
		routesTable(m.Cells, ci.Name).writeMD(b)
		routeStepsTable(m.Steps, ci.Name).writeMD(b)
		flowsTable(m.Cells, ci.Name).writeMD(b)
		notes := flagNotes(m, ci.Name)
		for _, n := range notes {
			fmt.Fprintf(b, "- %s\n", n)
		}
		if len(notes) > 0 {
			b.WriteString("\n")
		}
	}
}

// flagNotes explains the flags of a case's cells, one line per flag.
func flagNotes(m *Model, caseName string) []string {
	var out []string
	for _, c := range m.Cells {
		if c.Case != caseName {
			continue
		}
		for _, f := range c.Flags {
			out = append(out, fmt.Sprintf("%s c=%d, %s in %d of %d windows: %s", c.Stack, c.Concurrency, f.Name, f.Windows, c.Windows, f.Reason))
		}
	}
	return out
}

// cellColumns heads the per-case cell tables of every renderer.
var cellColumns = []string{"stack", "c", "windows", "req/s", "min–max", "req/CPU-s", "CPU-µs/req", "cores", "p50", "p90", "p99", "p99.9", "max", "RSS mean / peak", "DB / gen. cores (gen. waiting)", "flags"}

// cellRow is a cell's line of the tables under cellColumns; a cell that is
// not valid shows its state in place of figures.
func cellRow(c analysis.Cell) []string {
	windows := fmt.Sprintf("%d/%d", c.Counted, c.Windows)
	if c.State != analysis.CellValid {
		row := make([]string, len(cellColumns))
		note := flagText(c)
		if c.StateReason != "" {
			note = strings.TrimSuffix(c.StateReason+"; "+note, "; ")
		}
		row[0], row[1], row[2], row[3], row[len(row)-1] = c.Stack, fmt.Sprint(c.Concurrency), windows, c.State, note
		return row
	}
	return []string{c.Stack, fmt.Sprint(c.Concurrency), windows,
		fmtRate(c.Throughput.Median), fmtRate(c.Throughput.Min) + "–" + fmtRate(c.Throughput.Max) + cvText(c),
		fmtRate(c.PerCPUSecond.Median), fmtRate(c.CPUMicrosPerRequest), fmtCores(c.ServerCores),
		fmtMicros(c.Latency.P50), fmtMicros(c.Latency.P90), fmtMicros(c.Latency.P99), fmtMicros(c.Latency.P999), fmtMicros(c.Latency.Max),
		fmtBytes(c.RSSMeanBytes) + " / " + fmtBytes(c.RSSPeakBytes), fmtCores(c.DBCores) + " / " + fmtCores(c.GeneratorCores) + genWait(c.GeneratorWaitCores), joinNotes(flagText(c), outlierText(c))}
}

// cvText is a cell's robust CV of throughput, " (CV 1.2 %)", when it has
// one.
func cvText(c analysis.Cell) string {
	if c.Counted < 3 {
		return ""
	}
	return " (CV " + fmtFraction(c.ThroughputCV) + ")"
}

// outlierText names a cell's outlier windows (kept and counted) with their
// rounds and throughput.
func outlierText(c analysis.Cell) string {
	var parts []string
	for _, w := range c.PerWindow {
		if w.Outlier {
			parts = append(parts, fmt.Sprintf("round %d: %s req/s", w.Round, fmtRate(w.ThroughputRPS)))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "outlier (kept): " + strings.Join(parts, ", ")
}

// joinNotes joins the non-empty notes with "; ".
func joinNotes(notes ...string) string {
	var out []string
	for _, n := range notes {
		if n != "" {
			out = append(out, n)
		}
	}
	return strings.Join(out, "; ")
}

func mdBoot(b *strings.Builder, m *Model) {
	if len(m.Boot) == 0 {
		return
	}
	b.WriteString("## Cold start and idle memory\n\n")
	t := mdTable{head: []string{"stack", "starts", "cold start (median)", "IQR", "first DB request", "idle RSS"}}
	for _, r := range m.Boot {
		if r.Failed != "" {
			t.add(r.Stack, fmt.Sprint(r.Starts), "**failed**: "+r.Failed, "", "", "")
			continue
		}
		t.add(bootCells(r)...)
	}
	t.write(b)
}

// bootCells is a measured stack's line of the boot table.
func bootCells(r BootRow) []string {
	first := fmtMillis(r.FirstDBRequestMs)
	if r.FirstDBNote != "" {
		first += "; " + r.FirstDBNote
	}
	return []string{r.Stack, fmt.Sprint(r.Starts), fmtMillis(r.ColdStartMs.Median),
		fmtMillis(r.ColdStartMs.Q1) + "–" + fmtMillis(r.ColdStartMs.Q3), first, fmtBytes(r.IdleRSSBytes)}
}

func mdCost(b *strings.Builder, m *Model) {
	c := m.Cost
	if c == nil {
		return
	}
	b.WriteString("## Cost at sustained load\n\n")
	for _, line := range costIntro(c) {
		b.WriteString(line + "\n")
	}
	b.WriteString("\n")
	mdCostTables(b, c, "rps per core (harmonic mean)", costGrid(c))
	for _, n := range costKindNotes(c) {
		fmt.Fprintf(b, "- %s\n", n)
	}
	for _, cv := range c.Caveats {
		fmt.Fprintf(b, "- %s\n", cv)
	}
	b.WriteString("\n")
}

// mdCostTables writes a cost section's inputs, their rate column named
// rateHead, and its grid.
func mdCostTables(b *strings.Builder, c *CostSection, rateHead string, grid [][]string) {
	(&mdTable{head: []string{"stack", rateHead, "peak RSS", "note"}, rows: costInputRows(c)}).write(b)
	(&mdTable{head: costGridHead(c), rows: grid}).write(b)
}

// costInputRows are the cost inputs' lines.
func costInputRows(c *CostSection) [][]string {
	var out [][]string
	for _, i := range c.Inputs {
		out = append(out, costInputRow(i))
	}
	return out
}

// costGridHead heads the cost grid: a column per load.
func costGridHead(c *CostSection) []string {
	head := []string{"stack", "provider"}
	for _, l := range c.LoadsRPS {
		head = append(head, fmtRate(float64(l))+" rps")
	}
	return head
}

// costInputRow is a stack's line of the cost inputs table.
func costInputRow(i CostInput) []string {
	rate := fmtRate(i.RPSPerCore)
	if i.RPSPerCore <= 0 {
		rate = "–"
	}
	return []string{i.Stack, rate, fmtBytes(i.PeakRSSBytes), i.Problem}
}

// costIntro says where the cost figures come from, shared with the HTML page.
func costIntro(c *CostSection) []string {
	return []string{
		fmt.Sprintf("From the median windows of %s at c=%d; prices in %s as of %s.", strings.Join(c.Cases, ", "), c.Concurrency, c.Currency, c.PricingDate),
		"Sources: " + strings.Join(c.Sources, "; ") + ".",
	}
}

// costGrid lays the cost rows out as one line per (stack, provider) and one
// column per load: "3 × CX33, $29.97/mo (shared)". What a plan kind means is
// said once, by costKindNotes; why a stack has no plan, by its input line.
func costGrid(c *CostSection) [][]string {
	type key struct{ stack, provider string }
	problem := map[string]bool{}
	for _, in := range c.Inputs {
		problem[in.Stack] = in.Problem != ""
	}
	var order []key
	cells := map[key]map[int]string{}
	for _, r := range c.Rows {
		k := key{r.Stack, r.Provider}
		if cells[k] == nil {
			cells[k] = map[int]string{}
			order = append(order, k)
		}
		var s string
		switch {
		case r.OK && r.Note != "":
			s = fmt.Sprintf("%d × %s, %s/mo (%s)", r.Machines, r.Plan, fmtUSD(r.MonthlyUSD), r.Kind)
		case r.OK:
			s = fmt.Sprintf("%d × %s, %s/mo", r.Machines, r.Plan, fmtUSD(r.MonthlyUSD))
		case problem[r.Stack]:
			s = "no plan"
		default:
			s = r.Note
		}
		cells[k][r.LoadRPS] = s
	}
	var out [][]string
	for _, k := range order {
		row := []string{k.stack, k.provider}
		for _, l := range c.LoadsRPS {
			v := cells[k][l]
			if v == "" {
				v = "–"
			}
			row = append(row, v)
		}
		out = append(out, row)
	}
	return out
}

// costKindNotes says once what each plan kind in the table means.
func costKindNotes(c *CostSection) []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range c.Rows {
		if r.OK && r.Note != "" && !seen[r.Kind] {
			seen[r.Kind] = true
			out = append(out, r.Kind+": "+r.Note)
		}
	}
	return out
}

func mdFooter(b *strings.Builder, m *Model) {
	for _, sec := range []struct {
		title  string
		fields []Field
	}{{"Protocol", m.Footer.Protocol}, {"Environment", m.Footer.Environment}} {
		if len(sec.fields) == 0 {
			continue
		}
		fmt.Fprintf(b, "## %s\n\n", sec.title)
		t := mdTable{head: []string{"", ""}}
		for _, f := range sec.fields {
			t.add(f.Name, f.Value)
		}
		t.write(b)
	}
}

// mdTable accumulates a Markdown table.
type mdTable struct {
	head []string
	rows [][]string
}

func (t *mdTable) add(cells ...string) { t.rows = append(t.rows, cells) }

func (t *mdTable) write(b *strings.Builder) {
	line := func(cells []string) {
		b.WriteString("|")
		for _, c := range cells {
			b.WriteString(" " + strings.ReplaceAll(c, "|", `\|`) + " |")
		}
		b.WriteString("\n")
	}
	line(t.head)
	b.WriteString("|")
	for range t.head {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for _, r := range t.rows {
		line(r)
	}
	b.WriteString("\n")
}

// titleCase capitalises the first letter of s.
func titleCase(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// genWait shows how long the generator waited for a CPU, per second of
// window, when it did at all.
func genWait(cores float64) string {
	if cores < 0.005 {
		return ""
	}
	return " (" + fmtCores(cores) + ")"
}

// foreignLine says how much CPU outside the benchmark the windows saw, and
// whether the gate judged it; "" without the figures.
func foreignLine(f *analysis.ForeignCPU) string {
	if f == nil {
		return ""
	}
	s := fmt.Sprintf("Foreign CPU (everything outside the benchmark) during the %d windows: median %.2f cores, 90th percentile %.2f, max %.2f",
		f.Windows, f.MedianCores, f.P90Cores, f.MaxCores)
	if f.ProcessMedianCores > 0 || f.TickMedianCores > 0 {
		s += fmt.Sprintf(" (medians read process by process %.2f, from the host's ticks %.2f; the larger counts)", f.ProcessMedianCores, f.TickMedianCores)
	}
	if f.GateOff {
		return s + "; the gate was off, so these were recorded and never judged."
	}
	return s + fmt.Sprintf("; %d window(s) kept flagged contended.", f.Contended)
}
