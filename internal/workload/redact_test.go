package workload

import (
	"strings"
	"testing"
)

func TestSecretsRedact(t *testing.T) {
	s := Secrets{}.Add("sk-live-0123456789", "tok-bench", "7", "tok-bench")
	if len(s) != 2 {
		t.Fatalf("Add kept %q; want the two long values once", s)
	}
	for _, c := range []struct{ in, want string }{
		{"key sk-live-0123456789 and Token tok-bench", "key [redacted] and Token [redacted]"},
		{"cut at sk-live-0123…(+10 bytes)", "cut at [redacted]…(+10 bytes)"},
		{"…456789 after a cut", "…[redacted] after a cut"},
		{"id 7 stays, so does tok", "id 7 stays, so does tok"},
	} {
		if got := s.Redact(c.in); got != c.want {
			t.Errorf("Redact(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// A finding never quotes a credential header, and NewReport takes every
// stack's secrets out of every finding.
func TestReportRedactsSecrets(t *testing.T) {
	c := Check{Name: "login", Method: "POST", Path: "/login",
		Header: []Header{{Name: "Authorization", Value: "Bearer abc"}, {Name: "X-Api-Key", Value: "sk-live-0123456789"}},
		Body:   []byte(`{"password":"hunter2-long"}`)}
	res := []StackResult{{Stack: "a", Secrets: Secrets{}.Add("sk-live-0123456789", "hunter2-long"),
		Checks: []CheckResult{{Check: "login", Sent: c.Sent(120), Expected: "status 200", Got: `401 {"token":"sk-live-0123456789"}`, Problem: "status 401"}}}}
	rep := NewReport("w", res)
	var b strings.Builder
	rep.WriteText(&b)
	for _, leak := range []string{"Bearer abc", "sk-live", "hunter2"} {
		if strings.Contains(b.String(), leak) {
			t.Errorf("the report shows %q:\n%s", leak, b.String())
		}
	}
	if !strings.Contains(b.String(), "[Authorization: [redacted]]") {
		t.Errorf("the report does not name the redacted header:\n%s", b.String())
	}
}
