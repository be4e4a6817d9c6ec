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

// TestTFBStackKeys reads a stack's tfb: labels and relaxed rules and its
// paths:, and names what is wrong with each.
func TestTFBStackKeys(t *testing.T) {
	parse := func(workload, stackYAML string) (*File, error) {
		src := "workload: " + workload + "\nstacks:\n  - {name: a, dir: ., start: ./a}\n  - {name: b, dir: ., start: ./b, " + stackYAML + "}\n"
		return Parse([]byte(src), "stackbench.yaml", os.Getenv)
	}
	f, err := parse("tfb", `tfb: {approach: stripped, orm: Raw, classification: Platform, relax: [tfb.header-server]}, paths: {plaintext: /p/text, queries: "/q?n="}`)
	if err != nil {
		t.Fatal(err)
	}
	b := f.Stacks[1]
	if b.TFB == nil || b.TFB.Approach != "Stripped" || b.TFB.ORM != "Raw" || b.TFB.Classification != "Platform" || len(b.TFB.Relax) != 1 {
		t.Errorf("tfb: %+v", b.TFB)
	}
	if b.Health != "/p/text" || f.Stacks[0].Health != "/plaintext" {
		t.Errorf("health %q and %q, want the stack's own plaintext URL and tfb's", b.Health, f.Stacks[0].Health)
	}
	if c, _ := f.CaseOf("b", "queries"); c.Path != "/q?n=20" {
		t.Errorf("b's queries at %q, want /q?n=20", c.Path)
	}
	if c, _ := f.CaseOf("a", "queries"); c.Path != "/queries?queries=20" {
		t.Errorf("a's queries at %q, want tfb's", c.Path)
	}
	for _, tc := range []struct{ workload, stack, want string }{
		{"tfb", "tfb: {approach: Tuned}", `approach "Tuned" is not one of TFB's`},
		{"tfb", "tfb: {relax: [tfb.no-such-rule]}", `"tfb.no-such-rule" is not a tfb rule`},
		{"tfb", "tfb: {orm: Raw, speed: 9}", "speed"},
		{"tfb", "paths: {jsn: /j}", `"jsn" is not a tfb case`},
		{"tfb", "paths: {json: j}", "paths: json"},
		{"saas-slice", "paths: {json: /j}", "this file's workload is not tfb"},
	} {
		_, err := parse(tc.workload, tc.stack)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to mention %q", tc.stack, err, tc.want)
		}
	}
}
