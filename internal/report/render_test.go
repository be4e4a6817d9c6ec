package report

import (
	"bytes"
	"github.com/stackbench/stackbench/internal/analysis"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"
)

func TestMarkdownGolden(t *testing.T) {
	var b bytes.Buffer
	if err := WriteMarkdown(&b, fixtureModel(t)); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "fixture.md", b.Bytes())
}

func TestJSONGolden(t *testing.T) {
	m := fixtureModel(t)
	var b bytes.Buffer
	if err := WriteJSON(&b, m); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "fixture.json", b.Bytes())
	back, err := ReadJSON(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	var again bytes.Buffer
	if err := WriteJSON(&again, back); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again.Bytes(), b.Bytes()) {
		t.Error("report.json does not survive a read and a write unchanged")
	}
}

func TestReadJSONRefusesNewerVersion(t *testing.T) {
	_, err := ReadJSON(strings.NewReader(`{"model_version": 99}`))
	if err == nil || !strings.Contains(err.Error(), "upgrade stackbench") {
		t.Fatalf("got %v, want an error telling to upgrade", err)
	}
}

// TestBenchFormat reads bench.txt back with benchstat's own reader: one
// result per counted window, every unit present, invalid windows left out.
func TestBenchFormat(t *testing.T) {
	m := fixtureModel(t)
	var b bytes.Buffer
	if err := WriteBench(&b, m); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "fixture.bench.txt", b.Bytes())
	counted := 0
	for _, c := range m.Cells {
		counted += c.Counted
	}
	r := benchfmt.NewReader(bytes.NewReader(b.Bytes()), "bench.txt")
	results, units := 0, 0
	for r.Scan() {
		switch rec := r.Result().(type) {
		case *benchfmt.SyntaxError:
			t.Fatalf("benchstat cannot read it: %v", rec)
		case *benchfmt.UnitMetadata:
			units++
		case *benchfmt.Result:
			results++
			if got := rec.GetConfig("stackbench-run"); got != m.Header.RunID {
				t.Errorf("stackbench-run config = %q", got)
			}
			if strings.Contains(string(rec.Name), "stack=gin/case=order/c=100") {
				t.Errorf("an invalid window was written: %s", rec.Name)
			}
			for _, u := range benchUnits {
				if _, ok := rec.Value(u.unit); !ok {
					t.Errorf("%s: no %s value", rec.Name, u.unit)
				}
			}
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if results != counted {
		t.Errorf("%d benchmark lines, want one per counted window (%d)", results, counted)
	}
	if units != len(benchUnits) {
		t.Errorf("%d unit lines, want %d", units, len(benchUnits))
	}
}

func TestFixtureHasEveryState(t *testing.T) {
	m := fixtureModel(t)
	seen := map[string]int{}
	for _, c := range m.Cells {
		seen[c.State]++
	}
	for _, s := range []string{analysis.CellValid, analysis.CellInvalid, analysis.CellFailed} {
		if seen[s] == 0 {
			t.Errorf("fixture has no %s cell: %v", s, seen)
		}
	}
	if !m.Header.Dispersion.Known {
		t.Errorf("dispersion unknown: %+v", m.Header.Dispersion)
	}
}
