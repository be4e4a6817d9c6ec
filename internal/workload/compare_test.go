package workload

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func result(stack string, checks ...CheckResult) StackResult {
	for i := range checks {
		checks[i].comparable = checks[i].Body
		checks[i].Got = describeAnswer(checks[i].Status, checks[i].Body, findingBodyBytes)
	}
	return StackResult{Stack: stack, Workload: "saas-slice", Checks: checks}
}

func TestCompare(t *testing.T) {
	a := result("a",
		CheckResult{Check: "user/ok", Success: true, Status: 200, Body: []byte(`{"id":1,"age":20}`)},
		CheckResult{Check: "user/id-zero", Status: 400, Body: []byte(`{"error":"bad id"}`)},
		CheckResult{Check: "cpu/n-0", Status: 400, Body: []byte(`{}`)},
		CheckResult{Check: "list/ok", Success: true, Status: 200, Body: []byte(`[1]`)},
	)
	b := result("b",
		CheckResult{Check: "user/ok", Success: true, Status: 200, Body: []byte(`{"id":1,"age":21}`)},
		CheckResult{Check: "user/id-zero", Status: 422, Body: []byte(`{"message":"invalid"}`)},
		CheckResult{Check: "cpu/n-0", Status: 400, Body: []byte(`{"other":"body"}`)},
		CheckResult{Check: "list/ok", Success: true, Status: 500, Body: []byte(`x`), Problem: "status 500, want 200"},
	)
	failures, warnings := Compare([]StackResult{a, b})
	if len(failures) != 1 || failures[0].Stack != "b" || failures[0].Check != "user/ok" ||
		!strings.Contains(failures[0].Problem, "differs from stack a's") {
		t.Errorf("failures = %+v, want one for b user/ok", failures)
	}
	if len(warnings) != 1 || warnings[0].Check != "user/id-zero" || !strings.Contains(warnings[0].Problem, "422") {
		t.Errorf("warnings = %+v, want one for user/id-zero", warnings)
	}
	if f, w := Compare([]StackResult{a}); f != nil || w != nil {
		t.Errorf("one stack: %v, %v", f, w)
	}
}

func TestReportText(t *testing.T) {
	a := result("a", CheckResult{Check: "user/ok", Success: true, Status: 200, Body: []byte(`{}`)})
	b := result("b", CheckResult{Check: "user/ok", Success: true, Status: 500, Sent: "GET /users/4242",
		Expected: "status 200 {}", Body: []byte(`{"error":"boom"}`), Problem: "status 500, want 200"})
	c := StackFailure("c", "saas-slice", errString("did not start: exit status 2"), "line 1\npanic: no PORT\n")
	rep := NewReport("saas-slice", []StackResult{a, b, c})
	if rep.OK() {
		t.Error("report with failures is OK")
	}
	var out bytes.Buffer
	if err := rep.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	for _, want := range []string{
		"FAIL b user/ok: status 500, want 200 | sent GET /users/4242 | expected status 200 {} | got 500 {\"error\":\"boom\"}\n",
		"FAIL c: did not start: exit status 2\n",
		"     | panic: no PORT\n",
		"a                        1/1 checks passed\n",
		"c                        not checked: it failed before the first check\n",
		"parity saas-slice: FAIL, 3 stacks, 2 failures, 0 warnings\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("text report lacks %q:\n%s", want, text)
		}
	}
	out.Reset()
	if err := rep.WriteJSON(&out); err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(out.Bytes(), &back); err != nil || len(back.Failures) != 2 || back.Stacks[2].Error == "" {
		t.Errorf("JSON report does not round-trip: %v\n%s", err, out.String())
	}
}

type errString string

func (e errString) Error() string { return string(e) }
