package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/suite/dx"
	"github.com/stackbench/stackbench/internal/suite/spawn"
)

// suitesDir is a copy of the fixture run with the dx and process suites'
// results: journaled (as stackbench run writes them), or in a dx.json and
// a process.json (as it wrote them before they were journaled).
func suitesDir(t *testing.T, journaled bool) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(fixtureDir)); err != nil {
		t.Fatal(err)
	}
	ms := func(v float64) time.Duration { return time.Duration(v * 1e6) }
	d := dx.Result{Targets: []dx.TargetResult{
		{Name: "express-pg", Install: &dx.Timing{Cold: &dx.Spread{Median: ms(4300), Min: ms(4100), Max: ms(4500), N: 3}, Warm: &dx.Spread{Median: ms(2100), Min: ms(2000), Max: ms(2200), N: 3}},
			Deps:   &dx.Deps{Ecosystem: "npm", Bytes: 3899913, Packages: 96, Counting: dx.NpmCounting},
			Reload: &dx.Spread{Median: ms(388), Min: ms(380), Max: ms(392), N: 3}},
		{Name: "hand", Size: 100, Build: &dx.Timing{Warm: &dx.Spread{Median: ms(310), Min: ms(300), Max: ms(330), N: 3}}, ArtifactBytes: 1 << 21},
	}}
	p := spawn.Result{Sizes: []int{100}, Commands: []string{"hand", "dig"}, Warmup: 1, Rounds: 5,
		Cells: []spawn.Cell{
			{Command: "hand", Size: 100, Wall: spawn.Spread{Median: 1.5e6, Min: 1.2e6, Max: 3e6, N: 5}, Metrics: map[string]spawn.Spread{"container_ms": {Median: 0.008, N: 5}}},
			{Command: "dig", Size: 100, Error: "round 2: exit status 3"},
		},
		Calls: []spawn.Call{{Size: 100, From: "hand", To: "dig", Verdict: "invalid"}},
	}
	if journaled {
		w, _, err := journal.Create(filepath.Join(dir, journal.FileName))
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		if err := w.Append(journal.KindDX, journal.DX{Time: fixtureStart, Result: d}); err != nil {
			t.Fatal(err)
		}
		if err := w.Append(journal.KindProcess, journal.Process{Time: fixtureStart, Result: p}); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	for name, v := range map[string]any{journal.DXFile: d, journal.ProcessFile: p} {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestSuitesShownWhenMeasured(t *testing.T) {
	t.Run("journaled", func(t *testing.T) { testSuitesShown(t, true) })
	t.Run("files of an older run", func(t *testing.T) { testSuitesShown(t, false) })
}

func testSuitesShown(t *testing.T, journaled bool) {
	dir := suitesDir(t, journaled)
	m, err := Build(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, journal.DXFile)); journaled == (err == nil) {
		t.Fatalf("journaled %v, and %s exists: %v", journaled, journal.DXFile, err == nil)
	}
	if m.DX == nil || m.Process == nil {
		t.Fatalf("sections dx %v, process %v", m.DX, m.Process)
	}
	var md, html, js bytes.Buffer
	if err := WriteMarkdown(&md, m); err != nil {
		t.Fatal(err)
	}
	if err := WriteHTML(&html, m); err != nil {
		t.Fatal(err)
	}
	if err := WriteJSON(&js, m); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"## Developer experience", "| express-pg | 4.30 s (4.10 s–4.50 s) | 2.10 s (2.00 s–2.20 s) |", "3.7 MiB in 96 packages (npm)", "388",
		"| hand @100 |", "2.0 MiB", "Packages (npm): package directories",
		"## Process cost", "| 100 | hand | 1.50 ms | 1.20 ms–3.00 ms | 0.008 |", "| 100 | dig | failed: round 2: exit status 3 |",
		"size 100, hand → dig: no comparison (a cell failed)",
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("summary.md lacks %q", want)
		}
	}
	for _, want := range []string{`<section id="dx">`, `<section id="process">`, `href="#dx"`, "<svg", "container_ms", "failed"} {
		if !strings.Contains(html.String(), want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	for _, want := range []string{`"dx":`, `"process":`, `"container_ms"`} {
		if !strings.Contains(js.String(), want) {
			t.Errorf("report.json lacks %q", want)
		}
	}
}

func TestSuitesAbsentWhenNotMeasured(t *testing.T) {
	m := fixtureModel(t)
	var md, html bytes.Buffer
	if err := WriteMarkdown(&md, m); err != nil {
		t.Fatal(err)
	}
	if err := WriteHTML(&html, m); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{md.String(), html.String()} {
		if strings.Contains(s, "Developer experience") || strings.Contains(s, "Process cost") {
			t.Error("a section of a suite that was not measured is shown")
		}
	}
}
