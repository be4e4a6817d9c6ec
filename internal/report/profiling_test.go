package report

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/load"
	"github.com/stackbench/stackbench/internal/profiling"
)

// writeCPUProfile writes a Go-like CPU profile of stacks (leaf first,
// ";"-separated) with sample counts, 10 ms a sample.
func writeCPUProfile(t *testing.T, path string, stacks map[string]int64) {
	t.Helper()
	p := &profile.Profile{SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		PeriodType: &profile.ValueType{Type: "cpu", Unit: "nanoseconds"}, Period: 10e6}
	fns := map[string]*profile.Function{}
	for stack, n := range stacks {
		var locs []*profile.Location
		for _, name := range strings.Split(stack, ";") {
			f := fns[name]
			if f == nil {
				f = &profile.Function{ID: uint64(len(p.Function) + 1), Name: name, Filename: "/src/" + name + ".go"}
				fns[name] = f
				p.Function = append(p.Function, f)
			}
			l := &profile.Location{ID: uint64(len(p.Location) + 1), Line: []profile.Line{{Function: f}}}
			p.Location = append(p.Location, l)
			locs = append(locs, l)
		}
		p.Sample = append(p.Sample, &profile.Sample{Location: locs, Value: []int64{n, n * 10e6}})
	}
	var buf bytes.Buffer
	if err := p.Write(&buf); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The profiling section reads the profile windows of a journal: each
// cell's overhead against its median, CPU figures scaled to the measured
// server CPU, and the step's top change named with its share; labels are
// escaped in the HTML page.
func TestProfilingSection(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile(filepath.Join(fixtureDir, journal.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, journal.FileName), data, 0o644); err != nil {
		t.Fatal(err)
	}
	base, err := Build(dir)
	if err != nil {
		t.Fatal(err)
	}
	jw, _, err := journal.Create(filepath.Join(dir, journal.FileName))
	if err != nil {
		t.Fatal(err)
	}
	evil := `main.<script>alert(1)</script>`
	// nethttp: 400 samples of hashing, 200 of mallocgc; chi: mallocgc
	// doubles. 1000 requests each; server CPU measured 7.5 s (nethttp)
	// and 10 s (chi), against 6 s and 8 s sampled.
	for _, c := range []struct {
		stack  string
		malloc int64
		cpuS   float64
		rps    float64
	}{{"nethttp", 200, 7.5, 400}, {"chi", 400, 10, 300}} {
		rel := "profiles/" + c.stack + "/cpu-c10.go_cpu.pb.gz"
		writeCPUProfile(t, filepath.Join(dir, rel), map[string]int64{
			"crypto/sha256.block;" + evil: 400, "runtime.mallocgc;" + evil: c.malloc,
		})
		key := journal.ProfilingKey(c.stack, "cpu", 10)
		rec := journal.Profiling{Key: key, Stack: c.stack, Case: "cpu", Concurrency: 10, Requests: 1000,
			Window:   journal.Window{Key: key, Stack: c.stack, Case: "cpu", Concurrency: 10, Load: &load.Result{Successes: 1000, ThroughputRPS: c.rps}, Server: journal.Usage{CPUSeconds: c.cpuS}},
			Profiles: []journal.ProfileFile{{Kind: journal.ProfileGoCPU, Path: rel, Samples: 400 + c.malloc, RateHz: 100}}}
		if err := jw.Append(journal.KindProfiling, rec); err != nil {
			t.Fatal(err)
		}
	}
	jw.Close()
	m, err := Build(dir)
	if err != nil {
		t.Fatal(err)
	}
	s := m.Profiling
	if s == nil || len(s.Cells) != 2 {
		t.Fatalf("profiling section %+v, want two cells", s)
	}
	cell, _ := base.Cell("nethttp", "cpu", 10)
	nh := s.Cells[0]
	if want := (cell.Throughput.Median - 400) / cell.Throughput.Median * 100; nh.OverheadPct == nil || math.Abs(*nh.OverheadPct-want) > 1e-9 {
		t.Errorf("nethttp overhead %v, want %.2f %% (the cell's median %.1f against 400 req/s)", nh.OverheadPct, want, cell.Throughput.Median)
	}
	if nh.ServerCPUMicrosPerRequest != 7500 || nh.Top[0].Total != 7500 || math.Abs(nh.Top[0].Captured-0.8) > 1e-12 {
		t.Errorf("nethttp: server CPU %.1f µs/req, profile total %.1f (captured %.2f); want 7500, scaled from the sampled 6000 (0.80)",
			nh.ServerCPUMicrosPerRequest, nh.Top[0].Total, nh.Top[0].Captured)
	}
	var step *ProfiledStep
	for i := range s.Steps {
		if s.Steps[i].From == "nethttp" && s.Steps[i].To == "chi" && s.Steps[i].Case == "cpu" {
			step = &s.Steps[i]
		}
	}
	if step == nil || len(step.Explanations) != 1 {
		t.Fatalf("no nethttp → chi cpu step with one explanation: %+v", s.Steps)
	}
	e := step.Explanations[0]
	top := e.Functions[0]
	// nethttp: mallocgc 200/600 of 7500 = 2500; chi: 400/800 of 10000 = 5000.
	if top.Name != "runtime.mallocgc" || top.Group != profiling.GroupRuntime || math.Abs(top.Base-2500) > 1e-9 || math.Abs(top.Next-5000) > 1e-9 {
		t.Errorf("top change %+v; want runtime.mallocgc 2500 → 5000 µs/request", top)
	}
	if math.Abs(top.Share-1) > 1e-9 || math.Abs(e.Delta-2500) > 1e-9 {
		t.Errorf("share %.3f of a %.1f change; the hashing is 5000 on both sides, so mallocgc explains all 2500", top.Share, e.Delta)
	}
	if step.Flame == nil {
		t.Error("no differential flame graph")
	}
	if step.DatabaseCPUMicrosPerRequest != [2]float64{} {
		t.Errorf("PostgreSQL's CPU %v on the cpu case, which does not use the database", step.DatabaseCPUMicrosPerRequest)
	}
	var page bytes.Buffer
	if err := WriteHTML(&page, m); err != nil {
		t.Fatal(err)
	}
	html := page.String()
	if strings.Contains(html, "<script>alert") || !strings.Contains(html, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Error("a function name reached the page unescaped")
	}
	if !strings.Contains(html, `<svg class="flame"`) || !strings.Contains(html, `id="profiling"`) {
		t.Error("the page has no profiling section with flame graphs")
	}
	var md bytes.Buffer
	if err := WriteMarkdown(&md, m); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "| `runtime.mallocgc` | runtime/GC | 2500 | 5000 | +2500 | 100 % |") {
		t.Errorf("Markdown lacks the mallocgc row:\n%s", md.String()[strings.Index(md.String(), "## Profiles"):])
	}
	js, _ := json.Marshal(m)
	if !strings.Contains(string(js), `"profiling":{`) {
		t.Error("report.json has no profiling section")
	}
	var text bytes.Buffer
	WriteProfilingText(&text, m, 5)
	if !strings.Contains(text.String(), "+2500      2500 → 5000 (100 %)  runtime.mallocgc [runtime/GC]") {
		t.Errorf("terminal text:\n%s", text.String())
	}
}
