package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/workload"
)

// TestTFBLabelsAndRelaxedRules builds a report of a run whose middle
// stack is a TechEmpower entry that passed parity with a rule relaxed on
// one case: its labels are shown beside the stacks, and exactly the steps
// of that case that touch it are marked rule relaxed, in every format.
func TestTFBLabelsAndRelaxedRules(t *testing.T) {
	dir := t.TempDir()
	jw, _, err := journal.Create(filepath.Join(dir, journal.FileName))
	if err != nil {
		t.Fatal(err)
	}
	add := func(kind journal.Kind, rec any) {
		t.Helper()
		if err := jw.Append(kind, rec); err != nil {
			t.Fatal(err)
		}
	}
	w, _ := workload.Builtin("saas-slice", workload.DefaultJWTSecret)
	pl := fixturePlan(w)
	pl.Stacks[1].TFB = &plan.TFBEntry{Approach: "Realistic", ORM: "Raw", Classification: "Micro"}
	add(journal.KindPlan, journal.Plan{RunID: "tfb", CreatedAt: fixtureStart, ToolVersion: "test", Plan: pl, Database: "embedded"})
	add(journal.KindEnvironment, fixtureEnvironment(fixtureStart))
	add(journal.KindParity, journal.Parity{Passed: true, Stacks: []journal.ParityStack{
		{Stack: "nethttp", Checks: 9},
		{Stack: "chi", Checks: 9, Relaxed: []journal.ParityRelaxed{{Case: "order", Check: "order/ok", Rule: workload.TFBRuleOneWritePerRow, Detail: "20 rows written with 1 UPDATE statements"}}},
		{Stack: "gin", Checks: 9}}})
	clock := fixtureStart.Add(time.Minute)
	for _, pw := range pl.Windows {
		for _, rec := range fixtureTries(w, pw, &clock) {
			add(journal.KindWindow, rec)
		}
	}
	jw.Close()
	m, err := Build(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Header.TFB["chi"]; got.Labels() != "Realistic, Raw ORM, Micro" || len(got.Relaxed) != 1 {
		t.Fatalf("chi's tfb: %+v", got)
	}
	marked := 0
	for _, s := range m.Steps {
		touches := s.From == "chi" || s.To == "chi"
		want := s.Case == "order" && touches
		if got := len(s.RuleRelaxed) > 0; got != want {
			t.Errorf("step %s → %s %s: marked %v, want %v", s.From, s.To, s.Case, got, want)
		}
		if want {
			marked++
			if s.RuleRelaxed[0] != "chi: "+workload.TFBRuleOneWritePerRow {
				t.Errorf("step %s → %s: %v", s.From, s.To, s.RuleRelaxed)
			}
		}
	}
	if marked == 0 {
		t.Fatal("no step was marked")
	}
	var md strings.Builder
	if err := WriteMarkdown(&md, m); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"chi: Realistic, Raw ORM, Micro", "Parity passed with a rule relaxed: chi broke " + workload.TFBRuleOneWritePerRow + " on order",
		"nethttp → chi (" + RelaxedMark + ": chi: " + workload.TFBRuleOneWritePerRow + ")"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("the Markdown does not say %q", want)
		}
	}
	if err := WriteAll(dir, m); err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), RelaxedMark+" · ") || !strings.Contains(string(page), "chi: Realistic, Raw ORM, Micro") {
		t.Error("the HTML page shows no relaxed mark or no labels")
	}
	if lines := TFBLines(m); len(lines) != 1 || !strings.Contains(lines[0], "chi: Realistic") {
		t.Errorf("terminal lines %q", lines)
	}
}
