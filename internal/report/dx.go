package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/suite/dx"
	"github.com/stackbench/stackbench/internal/suite/spawn"
)

// DXSection is the developer-experience suite, as measured.
type DXSection struct {
	Targets []dx.TargetResult `json:"targets"`
}

// ProcessSection is the process suite, as measured.
type ProcessSection struct {
	spawn.Result
}

// readSuites attaches the suites' results to the model: the journal's
// records, or the files of a results directory written before them. A
// suite that was not measured leaves its section nil.
func readSuites(dir string, res *journal.Results, m *Model) error {
	var d dx.Result
	ok := res.DX != nil
	if ok {
		d = res.DX.Result
	} else {
		var err error
		if ok, err = readJSONFile(filepath.Join(dir, journal.DXFile), &d); err != nil {
			return err
		}
	}
	if ok && len(d.Targets) > 0 {
		m.DX = &DXSection{Targets: d.Targets}
	}
	var p spawn.Result
	ok = res.Process != nil
	if ok {
		p = res.Process.Result
	} else {
		var err error
		if ok, err = readJSONFile(filepath.Join(dir, journal.ProcessFile), &p); err != nil {
			return err
		}
	}
	if ok && len(p.Cells) > 0 {
		m.Process = &ProcessSection{p}
	}
	return nil
}

// readJSONFile decodes path into v; ok is false when there is no such file.
func readJSONFile(path string, v any) (bool, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err == nil {
		err = json.Unmarshal(b, v)
	}
	if err != nil {
		return false, fmt.Errorf("read %s: %w", path, err)
	}
	return true, nil
}

// dxHead are the columns of the DX table.
var dxHead = []string{"target", "install cold", "install warm", "generate cold", "generate warm", "build cold", "build warm", "artifact", "dependencies", "reload"}

// dxRows are the DX table's lines, every figure a median with its range.
func dxRows(s *DXSection) [][]string {
	var rows [][]string
	for _, t := range s.Targets {
		row := []string{dxName(t)}
		for _, tm := range []*dx.Timing{t.Install, t.Generate, t.Build} {
			if tm == nil {
				row = append(row, "—", "—")
				continue
			}
			row = append(row, dxSpread(tm.Cold), dxSpread(tm.Warm))
		}
		art := "—"
		if t.ArtifactBytes > 0 {
			art = fmtBytes(t.ArtifactBytes)
		}
		deps := "—"
		if t.Deps != nil {
			deps = fmt.Sprintf("%s in %d packages (%s)", fmtBytes(t.Deps.Bytes), t.Deps.Packages, t.Deps.Ecosystem)
			if t.Deps.Missing > 0 {
				deps += fmt.Sprintf("; %d not downloaded", t.Deps.Missing)
			}
		}
		row = append(row, art, deps, dxSpread(t.Reload))
		if t.Error != "" {
			row[len(row)-1] += " — failed: " + firstLine(t.Error)
		}
		rows = append(rows, row)
	}
	return rows
}

// dxNotes say how the packages were counted, once per ecosystem.
func dxNotes(s *DXSection) []string {
	notes := []string{"Durations: median (min–max) over the rounds. Cold: after removing the directories the target names in cold:; warm: right after, with them filled."}
	seen := map[string]bool{}
	for _, t := range s.Targets {
		if t.Deps != nil && !seen[t.Deps.Ecosystem] {
			seen[t.Deps.Ecosystem] = true
			notes = append(notes, fmt.Sprintf("Packages (%s): %s.", t.Deps.Ecosystem, t.Deps.Counting))
		}
	}
	return notes
}

func dxName(t dx.TargetResult) string {
	if t.Size == 0 {
		return t.Name
	}
	return fmt.Sprintf("%s @%d", t.Name, t.Size)
}

func dxSpread(s *dx.Spread) string {
	if s == nil {
		return "—"
	}
	if s.N == 1 {
		return fmtMillis(s.Median.Seconds() * 1e3)
	}
	return fmt.Sprintf("%s (%s–%s)", fmtMillis(s.Median.Seconds()*1e3), fmtMillis(s.Min.Seconds()*1e3), fmtMillis(s.Max.Seconds()*1e3))
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// mdDX writes the DX section of summary.md.
func mdDX(b *strings.Builder, m *Model) {
	if m.DX == nil {
		return
	}
	b.WriteString("## Developer experience\n\n")
	t := mdTable{head: dxHead}
	for _, r := range dxRows(m.DX) {
		t.add(r...)
	}
	t.write(b)
	for _, n := range dxNotes(m.DX) {
		b.WriteString("- " + n + "\n")
	}
	b.WriteString("\n")
}

// dxChart draws the warm build (or, without one, install) median of each
// target, with its range as the whisker.
func dxChart(s *DXSection) template.HTML {
	g := barGroup{Label: "build, warm (install when there is no build)"}
	for i, t := range s.Targets {
		tm := t.Build
		if tm == nil {
			tm = t.Install
		}
		b := bar{Color: stackColor(i)}
		if tm == nil || tm.Warm == nil {
			b.Missing, b.Title = "missing", dxName(t)+": no build or install timed"
		} else {
			w := tm.Warm
			ms := func(d float64) float64 { return d / 1e6 }
			b.Value, b.Lo, b.Hi, b.Whisker = ms(float64(w.Median)), ms(float64(w.Min)), ms(float64(w.Max)), w.N > 1
			b.Label = fmtMillis(b.Value)
			b.Title = dxName(t) + ": " + dxSpread(w)
		}
		g.Bars = append(g.Bars, b)
	}
	return barChart("build time", []barGroup{g}, func(v float64) string { return tickText(fmtMillis, v) })
}

// dxLegend names the DX chart's bars in order.
func dxLegend(s *DXSection) []legendItem {
	var out []legendItem
	for i, t := range s.Targets {
		out = append(out, legendItem{Name: dxName(t), Color: stackColor(i)})
	}
	return out
}
