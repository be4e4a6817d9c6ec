package report

import (
	"encoding/xml"
	"github.com/stackbench/stackbench/internal/analysis"
	"strings"
	"testing"
)

// A run of one stack gated by thresholds: JUnit has a thresholds suite
// whose failing case carries the median and interval; GitHub gets one
// ::error; the job summary says the gate failed, or that there was none.
func TestCIRenderersWithThresholds(t *testing.T) {
	m := &Model{Header: analysis.Header{RunID: "r1"}, Thresholds: thresholdChecks()}
	g := Gate{Title: "stackbench run r1", Active: true, Thresholds: m.Thresholds}

	var junit strings.Builder
	if err := WriteJUnit(&junit, g); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		XMLName  xml.Name `xml:"testsuites"`
		Tests    int      `xml:"tests,attr"`
		Failures int      `xml:"failures,attr"`
		Suites   []struct {
			Name  string `xml:"name,attr"`
			Cases []struct {
				Classname string `xml:"classname,attr"`
				Name      string `xml:"name,attr"`
				Failure   *struct {
					Message string `xml:"message,attr"`
					Type    string `xml:"type,attr"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal([]byte(junit.String()), &doc); err != nil {
		t.Fatalf("%v\n%s", err, junit.String())
	}
	if !strings.HasPrefix(junit.String(), `<?xml version="1.0" encoding="UTF-8"?>`) || doc.Tests != 2 || doc.Failures != 1 || len(doc.Suites) != 1 || doc.Suites[0].Name != "thresholds" {
		t.Fatalf("junit:\n%s", junit.String())
	}
	var failed []string
	for _, c := range doc.Suites[0].Cases {
		if c.Failure != nil {
			failed = append(failed, c.Classname+" "+c.Name+": "+c.Failure.Type+": "+c.Failure.Message)
		}
	}
	if want := "stackbench.threshold.api user c=8 p99: fail: api user c=8 p99 ≤ 1.00 ms: fail, 5.40 ms of all requests (4.10 … 5.40 ms, 8 processes)"; len(failed) != 1 || failed[0] != want {
		t.Errorf("failures %q, want %q", failed, want)
	}

	var gh strings.Builder
	if err := WriteGitHubAnnotations(&gh, g); err != nil {
		t.Fatal(err)
	}
	if want := "::error title=stackbench threshold fail::api user c=8 p99 ≤ 1.00 ms: fail, 5.40 ms of all requests (4.10 … 5.40 ms, 8 processes)\n"; gh.String() != want {
		t.Errorf("annotations %q, want %q", gh.String(), want)
	}

	var md strings.Builder
	if err := WriteJobSummary(&md, m, g, "results/r1/report.html"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## stackbench run r1\n\n**Gate failed**: 1 of 2 checks failed.\n\n> Decided: no step to call (a run of one stack); thresholds: 1 pass, 1 fail.\\\n> Not decided: nothing.\\\n> To decide: nothing left.\n",
		"| api | user | 8 | p99 ≤ 1.00 ms | fail ❌ | 5.40 ms (4.10 … 5.40 ms) |", "| api | user | 8 | p50 ≤ 1000 ms | pass | 0 ms"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("job summary lacks %q:\n%s", want, md.String())
		}
	}
	g.Active = false
	md.Reset()
	if err := WriteJobSummary(&md, m, g, ""); err != nil || !strings.Contains(md.String(), "No gate: `--fail-on` was not given.") {
		t.Errorf("without a gate:\n%s", md.String())
	}
}
