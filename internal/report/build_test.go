package report

import (
	"bytes"
	"github.com/stackbench/stackbench/internal/analysis"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/stats"
)

// TestBuildFinishedRun checks the figures Build takes from the fixture
// journal against what the journal says.
func TestBuildFinishedRun(t *testing.T) {
	m := fixtureModel(t)
	h := m.Header
	if h.State != "finished" || h.WindowsRecorded != h.WindowsPlanned || h.WindowsPlanned != fixtureRounds*3*7*2 {
		t.Errorf("state %s, %d of %d windows", h.State, h.WindowsRecorded, h.WindowsPlanned)
	}
	if !h.ParitySkipped {
		t.Error("the run was made with --skip-parity and the header does not say so")
	}
	cell := func(stack, caseName string, conc int) analysis.Cell {
		t.Helper()
		c, ok := m.Cell(stack, caseName, conc)
		if !ok {
			t.Fatalf("no cell %s/%s/c=%d", stack, caseName, conc)
		}
		return c
	}
	if c := cell("gin", "order", 100); c.State != analysis.CellInvalid || c.Counted != 0 || !hasFlag(c, journal.FlagInvalid) || !strings.Contains(c.Flags[0].Reason, "attempts failed") {
		t.Errorf("gin/order/c=100: %s, %d counted, flags %+v; want invalid with its reason", c.State, c.Counted, c.Flags)
	}
	if c := cell("gin", "cpu", 10); c.State != analysis.CellFailed || !hasFlag(c, journal.FlagFailed) {
		t.Errorf("gin/cpu/c=10: %s, flags %+v; want failed", c.State, c.Flags)
	}
	// Redone tries are journaled but not counted: the contended cell has
	// one window per round, the last try of round 2 kept flagged contended,
	// and that window does not count either (it measured a busy host); one
	// of four is within the cell's majority rule.
	if c := cell("chi", "list", 100); c.State != analysis.CellValid || c.Windows != fixtureRounds || c.Counted != fixtureRounds-1 || !hasFlag(c, journal.FlagContended) {
		t.Errorf("chi/list/c=100: %s, %d windows, %d counted, flags %+v", c.State, c.Windows, c.Counted, c.Flags)
	}
	if c := cell("nethttp", "me", 10); c.Windows != fixtureRounds || hasFlag(c, journal.FlagSuspended) {
		t.Errorf("nethttp/me/c=10: the suspended try was redone and must not count: %d windows, flags %+v", c.Windows, c.Flags)
	}
	// Latency comes from the merged histograms: the merged p50 lies between
	// the windows' own p50s, and the merged max is the largest window max.
	c := cell("nethttp", "user", 100)
	lo, hi, maxOf := c.PerWindow[0].Latency.P50, c.PerWindow[0].Latency.P50, 0.0
	for _, w := range c.PerWindow {
		lo, hi, maxOf = min(lo, w.Latency.P50), max(hi, w.Latency.P50), max(maxOf, w.Latency.Max)
	}
	if c.Latency.P50 < lo || c.Latency.P50 > hi || c.Latency.Max != maxOf {
		t.Errorf("merged latency %+v: p50 outside the windows' [%g, %g] or max ≠ %g", c.Latency, lo, hi, maxOf)
	}
	// Throughput per CPU-second is each window's successes over its own CPU.
	w := c.PerWindow[0]
	if got := w.ThroughputRPS / w.ServerCores; abs(got-w.PerCPUSecond)/got > 1e-3 {
		t.Errorf("per CPU-second %g, want throughput/cores = %g", w.PerCPUSecond, got)
	}
	if len(m.Boot) != 3 || m.Boot[2].Failed == "" || m.Boot[0].ColdStartMs.Median <= 0 {
		t.Errorf("boot rows %+v", m.Boot)
	}
	if m.Cost == nil || m.Cost.Concurrency != 100 || len(m.Cost.Rows) == 0 {
		t.Errorf("cost section %+v", m.Cost)
	}
}

func abs(x float64) float64 { return max(x, -x) }

// TestBuildStoppedRun reads a journal cut in the middle of a line: the
// torn line is reported, the run is "stopped", unmeasured cells are
// missing, and every renderer still works.
func TestBuildStoppedRun(t *testing.T) {
	dir := stoppedFixture(t, 30)
	m, err := Build(dir)
	if err != nil {
		t.Fatal(err)
	}
	if m.Header.State != "stopped" || m.Header.WindowsRecorded >= m.Header.WindowsPlanned {
		t.Errorf("state %s with %d of %d windows", m.Header.State, m.Header.WindowsRecorded, m.Header.WindowsPlanned)
	}
	if len(m.Header.JournalNotes) != 1 || !strings.Contains(m.Header.JournalNotes[0], "torn last line") {
		t.Errorf("journal notes %q, want the torn line", m.Header.JournalNotes)
	}
	missing := 0
	for _, c := range m.Cells {
		if c.State == analysis.CellMissing {
			missing++
		}
	}
	if missing == 0 {
		t.Error("no missing cell in a stopped run")
	}
	if err := WriteAll(dir, m); err != nil {
		t.Fatal(err)
	}
	for _, f := range Formats {
		if st, err := os.Stat(filepath.Join(dir, f.File)); err != nil || st.Size() == 0 {
			t.Errorf("%s not written: %v", f.File, err)
		}
	}
	md, _ := os.ReadFile(filepath.Join(dir, MarkdownFile))
	checkGolden(t, "stopped.md", md)
	if !bytes.Contains(md, []byte("stopped: not every planned window was measured")) {
		t.Error("summary.md does not say the run stopped")
	}
}

func TestBuildRefusesADirectoryWithoutJournal(t *testing.T) {
	_, err := Build(t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "journal") {
		t.Fatalf("got %v, want an error naming the journal", err)
	}
}

// TestBuildPlanOnly renders a run stopped before its first window: every
// cell missing, no noise floor, no step defined, no price — and no format
// fails or draws a bar.
func TestBuildPlanOnly(t *testing.T) {
	dir := stoppedFixture(t, 6)
	m, err := Build(dir)
	if err != nil {
		t.Fatal(err)
	}
	if m.Header.WindowsRecorded != 0 || m.Header.Dispersion.Known {
		t.Errorf("%d windows recorded, dispersion %+v", m.Header.WindowsRecorded, m.Header.Dispersion)
	}
	for _, s := range m.Steps {
		if s.Throughput.Call != stats.CallInvalid || s.Throughput.Bounded() {
			t.Errorf("step %s %s/c=%d defined without windows: %+v", stepLabel(s), s.Case, s.Concurrency, s.Throughput)
		}
	}
	if err := WriteAll(dir, m); err != nil {
		t.Fatal(err)
	}
	page, _ := os.ReadFile(filepath.Join(dir, HTMLFile))
	charts := between(string(page), `id="charts"`, `id="cells"`)
	if charts == "" || strings.Contains(charts, `<g class="bar">`) || !strings.Contains(charts, `<g class="missing">`) {
		t.Error("the charts of a run without windows must show missing cells, not bars")
	}
}

// A step whose cells count flagged windows (client_bound, a checkpoint)
// says so wherever its call is shown: in a shared-host run the identical
// stacks pgx-a → pgx-b showed "+106 %, real" from a median window flagged
// contended, and only the cell table mentioned the flag. (Contended
// windows no longer count at all.)
func TestStepsSayWhenFlaggedWindowsCount(t *testing.T) {
	m := fixtureModel(t)
	var flagged, clean *analysis.Step
	for i, s := range m.Steps {
		switch {
		case s.Case == "order" && s.Concurrency == 10 && s.From == "nethttp" && s.To == "chi":
			flagged = &m.Steps[i]
		case s.Case == "health" && s.Concurrency == 10 && s.Kind == analysis.StepAdjacent && clean == nil:
			clean = &m.Steps[i]
		}
	}
	if flagged == nil || clean == nil {
		t.Fatal("fixture steps missing")
	}
	if got := strings.Join(flagged.Flagged, "; "); !strings.Contains(got, "nethttp: checkpoint_in_window ×1") {
		t.Errorf("step %s → %s on order c=10 (nethttp has a checkpoint in a counted window): flagged %q", flagged.From, flagged.To, got)
	}
	if len(clean.Flagged) != 0 {
		t.Errorf("step %s → %s on health c=10: flagged %v, want none", clean.From, clean.To, clean.Flagged)
	}
	counted := 0
	for _, g := range m.Groups {
		counted += g.Flagged
	}
	if counted == 0 {
		t.Error("no group summary counts its flagged steps")
	}
	var md, page bytes.Buffer
	if err := WriteMarkdown(&md, m); err != nil {
		t.Fatal(err)
	}
	if err := WriteHTML(&page, m); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "nethttp: checkpoint_in_window ×1") || !strings.Contains(page.String(), "flagged windows counted: ") {
		t.Error("the flagged step is not marked in the Markdown or the HTML")
	}
}

// hasFlag reports whether the cell carries the flag.
func hasFlag(c analysis.Cell, flag journal.Flag) bool {
	return slices.ContainsFunc(c.Flags, func(f analysis.Flag) bool { return f.Name == flag })
}

// TestHeaderSaysWhichOrder: a journal from before the balanced order (its
// protocol has none) still reports, and its interleaved header says the
// rotated order is not balanced from three stacks on; a run in the
// Williams order says what is balanced.
func TestHeaderSaysWhichOrder(t *testing.T) {
	for _, tc := range []struct {
		order  string
		stacks []string
		want   string
	}{
		{plan.OrderRotation, []string{"a", "b", "c"}, "puts some stacks right before others more often"},
		{plan.OrderRotation, []string{"a", "b"}, "each first as often as the other"},
		{plan.OrderWilliams, []string{"a", "b", "c"}, "every stack came right before every other equally often"},
	} {
		pr := plan.Protocol{Layout: plan.LayoutInterleaved, Order: tc.order}
		m := &Model{Header: analysis.Header{Stacks: tc.stacks, Order: analysis.OrderOf(pr)}}
		m.Header.Layout, m.Header.Design = analysis.LayoutOf(pr)
		if got := strings.Join(headerLines(m), "\n"); !strings.Contains(got, tc.want) {
			t.Errorf("order %q, %d stacks: header\n%s\nwant %q", tc.order, len(tc.stacks), got, tc.want)
		}
	}
	if got := fixtureModel(t).Header.Order; got != "rotation" {
		t.Errorf("the fixture journal, written before the order was recorded: order %q", got)
	}
}
