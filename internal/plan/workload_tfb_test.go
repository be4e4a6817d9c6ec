package plan

import (
	"os"
	"strings"
	"testing"
)

func TestTFBWorkload(t *testing.T) {
	parse := func(workloadYAML string) (*File, error) {
		src := "workload: " + workloadYAML + "\nstacks:\n  - {name: a, dir: ., start: ./a}\n  - {name: b, dir: ., start: ./b}\n"
		return Parse([]byte(src), "stackbench.yaml", os.Getenv)
	}
	f, err := parse("tfb")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(f.Workload.CaseNames(), ","); got != "json,db,queries,fortunes,updates,plaintext" {
		t.Errorf("cases %s", got)
	}
	if !f.Workload.NeedsDatabase || f.Stacks[0].Health != "/plaintext" {
		t.Errorf("needs database %v, health %q; want true, /plaintext", f.Workload.NeedsDatabase, f.Stacks[0].Health)
	}
	f, err = parse("{name: tfb, cases: [json, plaintext]}")
	if err != nil {
		t.Fatal(err)
	}
	if f.Workload.NeedsDatabase {
		t.Error("json and plaintext need no database")
	}
	f, err = parse("{name: tfb, cases: [queries], queries: 5}")
	if err != nil {
		t.Fatal(err)
	}
	if c, _ := f.Workload.Case("queries"); c.Path != "/queries?queries=5" {
		t.Errorf("queries path %q", c.Path)
	}
	for src, want := range map[string]string{
		"{name: tfb, cases: [jsn]}":     `unknown tfb case "jsn"`,
		"{name: tfb, queries: 501}":     "outside 1…500",
		"{name: tfb, pipelining: 16}":   "pipelining",
		"{name: tfb, updates: 0}":       "updates: 0",
		"{name: tfb, cases: [json], x}": "",
	} {
		_, err := parse(src)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want it to mention %q", src, err, want)
		}
	}
}
