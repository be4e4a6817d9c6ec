package profiling

import (
	"bytes"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

// The fixture is perf script's text of a real recording (perf record -e
// cpu-clock -F 499 -g) of a Go program hashing with crypto/sha256.
func TestParsePerfScriptFixture(t *testing.T) {
	f, err := os.Open("testdata/perf-script-go.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := ParsePerfScript(f, nil, 499)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Sample) != 174 {
		t.Fatalf("%d samples, want the 174 perf recorded", len(p.Sample))
	}
	// Round-trip through the pprof encoding, as the run writes it.
	var buf bytes.Buffer
	if err := p.Write(&buf); err != nil {
		t.Fatal(err)
	}
	if p, err = profile.Parse(&buf); err != nil {
		t.Fatal(err)
	}
	s, err := Summarize(p, MeasureCPU, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if s.Samples != 174 {
		t.Errorf("summary has %d samples, want 174", s.Samples)
	}
	// Every sample's period is 2004008 ns: the total is 174 × 2004.008 µs / 1000 requests.
	if want := 174 * 2004.008 / 1000; math.Abs(s.Total-want) > 1e-9 {
		t.Errorf("total %.6f µs/request, want %.6f", s.Total, want)
	}
	byName := map[string]Function{}
	var flatSum float64
	for _, fn := range s.Functions {
		byName[fn.Name] = fn
		flatSum += fn.Flat
	}
	if math.Abs(flatSum-s.Total) > 1e-9 {
		t.Errorf("flat figures sum to %.6f, want the total %.6f", flatSum, s.Total)
	}
	sum := byName["crypto/sha256.Sum256"]
	if sum.CumSamples < 100 || sum.Package != "crypto/sha256" || sum.Group != GroupStdlib {
		t.Errorf("crypto/sha256.Sum256 = %+v; want most samples under it, package crypto/sha256, standard library", sum)
	}
	if mm := byName["main.main"]; mm.Group != GroupYours {
		t.Errorf("main.main is in %q, want %q", mm.Group, GroupYours)
	}
	kernel := false
	for _, fn := range s.Functions {
		if fn.Group == GroupKernel {
			kernel = true
			if fn.Package != KernelMapping {
				t.Errorf("kernel function %s has package %q", fn.Name, fn.Package)
			}
		}
	}
	if !kernel {
		t.Error("no kernel frame found; the fixture has some")
	}
}

func TestParsePerfScriptKeepAndUnknown(t *testing.T) {
	text := `my worker 10/11   5.000001:    1000000 cpu-clock: 
	    401000 [unknown] (/opt/app/server)
	    401100 handle+0x10 (/opt/app/server)

postgres 20/20   5.000002:    1000000 cpu-clock: 
	    501000 ExecScan+0x1 (/usr/lib/postgresql/15/bin/postgres)

:-1 20795/-1    5.000003:    1000000 cpu-clock: 
	    601000 [unknown] ([unknown])
`
	p, err := ParsePerfScript(strings.NewReader(text), func(pid int, at float64) bool { return pid == 10 && at < 5.0000015 }, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Sample) != 1 || p.Sample[0].Label["comm"][0] != "my worker" {
		t.Fatalf("kept %d samples (%v); want pid 10's one, comm with its space", len(p.Sample), p.Sample)
	}
	leaf := p.Sample[0].Location[0].Line[0].Function.Name
	if leaf != "[unknown] server" {
		t.Errorf("unsymbolised leaf named %q, want it grouped by its binary", leaf)
	}
	late, err := ParsePerfScript(strings.NewReader(text), func(pid int, at float64) bool { return at > 5.0000015 && at < 5.0000025 }, 1000)
	if err != nil || len(late.Sample) != 1 || late.Sample[0].NumLabel["pid"][0] != 20 {
		t.Errorf("by time: %v, %v; want pid 20's sample only", late, err)
	}
	// perf's -1 for a thread id it never learnt is a sample like any other.
	lost, err := ParsePerfScript(strings.NewReader(text), func(pid int, at float64) bool { return pid == 20795 }, 1000)
	if err != nil || len(lost.Sample) != 1 || lost.Sample[0].Label["comm"][0] != ":-1" {
		t.Errorf("a sample of tid -1: %v, %v; want it parsed and kept", lost, err)
	}
	if _, err := ParsePerfScript(strings.NewReader("garbage\n"), nil, 99); err == nil {
		t.Error("a line that is no sample header was accepted")
	}
}

func TestGroupAndPackage(t *testing.T) {
	for _, c := range []struct{ name, file, binary, pkg, group string }{
		{"runtime.mallocgc", "/usr/local/go/src/runtime/malloc.go", "/x/server", "runtime", GroupRuntime},
		{"internal/runtime/maps.(*Map).Get", "", "", "internal/runtime/maps", GroupRuntime},
		{"github.com/jackc/pgx/v5/pgconn.(*PgConn).Exec", "/root/go/pkg/mod/github.com/jackc/pgx/v5@v5.12.0/pgconn/pgconn.go", "", "github.com/jackc/pgx/v5/pgconn", GroupDriver},
		{"github.com/lib/pq.(*conn).query", "", "", "github.com/lib/pq", GroupDriver},
		{"database/sql.(*DB).QueryContext", "", "", "database/sql", GroupDriver},
		{"encoding/json.Marshal", "", "", "encoding/json", GroupJSON},
		{"github.com/goccy/go-json.Marshal", "", "", "github.com/goccy/go-json", GroupJSON},
		{"github.com/stackbench/stackbench/apps/internal/saas.CPUChain", "/work/x/apps/internal/saas/cpu.go", "", "github.com/stackbench/stackbench/apps/internal/saas", GroupYours},
		{"github.com/gin-gonic/gin.(*Engine).ServeHTTP", "/root/go/pkg/mod/github.com/gin-gonic/gin@v1.12.0/gin.go", "", "github.com/gin-gonic/gin", GroupLibrary},
		{"net/http.(*conn).serve", "", "", "net/http", GroupStdlib},
		{"slices.Sort[go.shape.[]int,go.shape.int]", "", "", "slices", GroupStdlib},
		{"main.main", "", "", "main", GroupYours},
		{"__schedule", "", KernelMapping, KernelMapping, GroupKernel},
		{"ExecScan", "", "/usr/lib/postgresql/15/bin/postgres", "postgres", GroupDatabase},
		{"Builtins_JsonStringify", "", "/usr/bin/node", "node", GroupJSON},
		{"JS:*handler /app/server.js:3:17", "", "/tmp/perf-1.map", "/app/server.js", GroupYours},
		{"JS:^Router.handle /app/node_modules/express/lib/router/index.js:136:31", "", "/tmp/perf-1.map", "/app/node_modules/express/lib/router/index.js", GroupLibrary},
		{"JS:~emit node:events:460:44", "", "/tmp/perf-1.map", "node:events", GroupStdlib},
		{"Builtins_InterpreterEntryTrampoline", "", "/usr/bin/node", "node", GroupRuntime},
		{"v8::internal::Heap::CollectGarbage", "", "/usr/bin/node", "node", GroupRuntime},
		{"sha256_block_data_order_shaext", "", "/usr/bin/node", "node", GroupOther},
		{"malloc", "", "/usr/lib/x86_64-linux-gnu/libc.so.6", "libc.so.6", GroupOther},
	} {
		if got := Package(c.name, c.binary); got != c.pkg {
			t.Errorf("Package(%q) = %q, want %q", c.name, got, c.pkg)
		}
		if got := Group(c.name, c.file, c.binary); got != c.group {
			t.Errorf("Group(%q) = %q, want %q", c.name, got, c.group)
		}
	}
}

// cpuProfile builds a CPU profile from stacks (leaf first) with a sample
// count and 10 ms per sample.
func cpuProfile(stacks map[string]int64) *profile.Profile {
	p := &profile.Profile{SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}}}
	fns := map[string]*profile.Function{}
	for stack, n := range stacks {
		var locs []*profile.Location
		for _, name := range strings.Split(stack, ";") {
			f := fns[name]
			if f == nil {
				f = &profile.Function{ID: uint64(len(p.Function) + 1), Name: name}
				fns[name] = f
				p.Function = append(p.Function, f)
			}
			l := &profile.Location{ID: uint64(len(p.Location) + 1), Line: []profile.Line{{Function: f}}}
			p.Location = append(p.Location, l)
			locs = append(locs, l)
		}
		p.Sample = append(p.Sample, &profile.Sample{Location: locs, Value: []int64{n, n * 10e6}})
	}
	return p
}

func TestSummarizeAndExplain(t *testing.T) {
	// Base: 1000 requests; 400 samples in a.hash under main.handle, 200 in
	// runtime.mallocgc under main.handle, 50 in a.rare.
	base, err := Summarize(cpuProfile(map[string]int64{
		"a.hash;main.handle": 400, "runtime.mallocgc;main.handle": 200, "a.rare;main.handle": 50,
	}), MeasureCPU, 1000)
	if err != nil {
		t.Fatal(err)
	}
	// Next: 500 requests; mallocgc grows to 600 samples (12 ms/request),
	// a.hash 400 samples (8 ms/request).
	next, err := Summarize(cpuProfile(map[string]int64{
		"a.hash;main.handle": 400, "runtime.mallocgc;main.handle": 600, "a.rare;main.handle": 50,
	}), MeasureCPU, 500)
	if err != nil {
		t.Fatal(err)
	}
	// 10 ms a sample: base total 650 × 10 000 µs / 1000 = 6500 µs/request.
	if base.Total != 6500 || next.Total != 21000 {
		t.Fatalf("totals %.1f and %.1f µs/request, want 6500 and 21000", base.Total, next.Total)
	}
	h := map[string]Function{}
	for _, f := range base.Functions {
		h[f.Name] = f
	}
	if h["main.handle"].Cum != 6500 || h["main.handle"].Flat != 0 || h["a.hash"].Flat != 4000 {
		t.Errorf("main.handle %+v, a.hash %+v: want cum 6500 flat 0, and flat 4000", h["main.handle"], h["a.hash"])
	}
	e := Explain(base, next, 5)
	if e.Delta != 14500 {
		t.Fatalf("delta %.1f, want 14500", e.Delta)
	}
	if len(e.Functions) == 0 || e.Functions[0].Name != "runtime.mallocgc" {
		t.Fatalf("top change %+v, want runtime.mallocgc", e.Functions)
	}
	m := e.Functions[0]
	// mallocgc: 2000 → 12000 µs/request, 10000 of the 14500 change.
	if m.Base != 2000 || m.Next != 12000 || math.Abs(m.Share-10000.0/14500) > 1e-12 {
		t.Errorf("mallocgc change %+v; want 2000 → 12000, share %.4f", m, 10000.0/14500)
	}
	for _, f := range e.Functions {
		if f.Name == "a.rare" {
			t.Errorf("a.rare (50 samples a side) is shown; figures under %d samples are hidden", MinSamples)
		}
	}
	// By cumulative figure: main.handle is on every stack (left out);
	// mallocgc's cumulative change is its flat one.
	if len(e.Callers) == 0 || e.Callers[0].Name != "runtime.mallocgc" || e.Callers[0].Delta != 10000 {
		t.Errorf("callers %+v; want runtime.mallocgc first, main.handle left out", e.Callers)
	}
	for _, c := range e.Callers {
		if c.Name == "main.handle" {
			t.Error("main.handle, on every stack, is listed among the callers")
		}
	}
	if e.Hidden != 1 {
		t.Errorf("hidden %d rows, want 1 (a.rare)", e.Hidden)
	}
	var shares float64
	for _, g := range e.Groups {
		shares += g.Share
	}
	if len(e.Groups) == 0 || e.Groups[0].Name != GroupRuntime {
		t.Errorf("groups %+v; want runtime/GC first", e.Groups)
	}
	// Groups add up every function, a.rare included (its group, the
	// standard library by a.hash's and a.rare's path "a", has samples
	// enough): together they explain the whole change.
	if want := 1.0; math.Abs(shares-want) > 1e-9 {
		t.Errorf("group shares sum to %.4f, want %.4f", shares, want)
	}
}

func TestSummarizeRefusesNoRequests(t *testing.T) {
	if _, err := Summarize(cpuProfile(map[string]int64{"a.b": 1}), MeasureCPU, 0); err == nil {
		t.Error("a window without requests was divided by")
	}
	if _, err := Summarize(cpuProfile(map[string]int64{"a.b": 1}), MeasureAllocBytes, 10); err == nil {
		t.Error("a CPU profile was read as an allocation profile")
	}
}

func allocProfile(bytesByFn map[string]int64) *profile.Profile {
	p := &profile.Profile{SampleType: []*profile.ValueType{{Type: "alloc_objects", Unit: "count"}, {Type: "alloc_space", Unit: "bytes"}}, Period: 1000}
	for name, b := range bytesByFn {
		f := &profile.Function{ID: uint64(len(p.Function) + 1), Name: name}
		p.Function = append(p.Function, f)
		l := &profile.Location{ID: uint64(len(p.Location) + 1), Line: []profile.Line{{Function: f}}}
		p.Location = append(p.Location, l)
		p.Sample = append(p.Sample, &profile.Sample{Location: []*profile.Location{l}, Value: []int64{b / 32, b}})
	}
	return p
}

func TestDeltaOfAllocations(t *testing.T) {
	before := allocProfile(map[string]int64{"main.a": 32000, "main.b": 64000})
	after := allocProfile(map[string]int64{"main.a": 32000, "main.b": 96000, "main.c": 3200})
	d, err := Delta(before, after)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Summarize(d, MeasureAllocBytes, 100)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, f := range s.Functions {
		got[f.Name] = f.Flat
	}
	// main.a allocated nothing in between; b 32000 B, c 3200 B over 100 requests.
	if len(got) != 2 || got["main.b"] != 320 || got["main.c"] != 32 {
		t.Errorf("per-request bytes %v, want main.b 320 and main.c 32 only", got)
	}
	if s.Samples != 32+3 {
		t.Errorf("estimated samples %d, want 35 (bytes ÷ the 1000-byte period)", s.Samples)
	}
}

func TestFlameAndDiff(t *testing.T) {
	a := cpuProfile(map[string]int64{"a.hash;main.handle": 400, "runtime.mallocgc;main.handle": 200, "a.tiny;main.handle": 1})
	b := cpuProfile(map[string]int64{"a.hash;main.handle": 400, "runtime.mallocgc;main.handle": 600})
	fa, err := Flame(a, MeasureCPU, 1000, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	// 601 samples × 10 ms / 1000 requests = 6010 µs; a.tiny (10 µs, under 1 %) is cut.
	if fa.Value != 6010 || len(fa.Children) != 1 || fa.Children[0].Name != "main.handle" {
		t.Fatalf("root %+v", fa)
	}
	h := fa.Children[0]
	if len(h.Children) != 2 || h.Children[0].Name != "a.hash" || h.Children[0].Value != 4000 || h.Children[1].Value != 2000 {
		t.Errorf("main.handle's children %+v; want a.hash 4000 and runtime.mallocgc 2000 µs, a.tiny cut", h.Children)
	}
	fb, _ := Flame(b, MeasureCPU, 1000, 0.01)
	d := DiffFlame(fa, fb)
	m := d.Children[0].Children[1]
	if m.Name != "runtime.mallocgc" || m.Base != 2000 || m.Value != 6000 {
		t.Errorf("diff node %+v; want runtime.mallocgc 2000 → 6000", m)
	}
}

func TestScaleToMeasuredCPU(t *testing.T) {
	s, err := Summarize(cpuProfile(map[string]int64{"a.hash;main.handle": 300, "runtime.mallocgc;main.handle": 100}), MeasureCPU, 1000)
	if err != nil {
		t.Fatal(err)
	}
	// 400 samples × 10 ms / 1000 = 4000 µs/request sampled; /proc measured 5000.
	s.ScaleTo(5000)
	if s.Total != 5000 || s.Captured != 0.8 {
		t.Errorf("total %.1f captured %.2f, want 5000 and 0.80", s.Total, s.Captured)
	}
	for _, f := range s.Functions {
		if f.Name == "a.hash" && f.Flat != 3750 {
			t.Errorf("a.hash %.1f µs/request, want its 75 %% share of 5000", f.Flat)
		}
	}
}

func TestMainModuleCommentMakesYourCode(t *testing.T) {
	p := cpuProfile(map[string]int64{"example.com/api/handlers.Get;main.main": 10, "github.com/gin-gonic/gin.(*Engine).ServeHTTP;main.main": 10})
	p.Comments = []string{MainModuleComment + "example.com/api"}
	s, err := Summarize(p, MeasureCPU, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range s.Functions {
		want := map[string]string{"example.com/api/handlers.Get": GroupYours, "github.com/gin-gonic/gin.(*Engine).ServeHTTP": GroupLibrary, "main.main": GroupYours}[f.Name]
		if f.Group != want {
			t.Errorf("%s in %q, want %q", f.Name, f.Group, want)
		}
	}
}

// The fixture is perf script's text of a real recording of Node 20 with
// --perf-basic-prof (a loop building JSON and hashing): JavaScript frames
// carry their names and scripts.
func TestParsePerfScriptNodeFixture(t *testing.T) {
	f, err := os.Open("testdata/perf-script-node.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := ParsePerfScript(f, nil, 499)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Summarize(p, MeasureCPU, 40)
	if err != nil {
		t.Fatal(err)
	}
	var handler *Function
	for i, fn := range s.Functions {
		if strings.HasPrefix(fn.Name, "JS:*handler ") {
			handler = &s.Functions[i]
		}
	}
	if handler == nil {
		t.Fatal("no JavaScript frame named handler")
	}
	if handler.CumSamples != 40 || handler.Group != GroupYours || handler.Package != "/tmp/pf/n.js" {
		t.Errorf("handler %+v; want it under all 40 samples, your code, in /tmp/pf/n.js", *handler)
	}
}
