package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// capacityMain runs "stackbench capacity args..." through Main.
func capacityMain(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	env := Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut, Getenv: func(string) string { return "" }}
	code = Main(context.Background(), append([]string{"capacity"}, args...), env)
	return code, out.String(), errOut.String()
}

// slotServer holds one of slots for hold per request: at most slots ÷
// hold requests per second.
func slotServer(t *testing.T, slots int, hold time.Duration) string {
	sem := make(chan struct{}, slots)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sem <- struct{}{}
		time.Sleep(hold)
		<-sem
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestCapacityBadInputExits2(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"http://127.0.0.1:1/"}, "--slo is required"},
		{[]string{"--slo", "99=20ms", "http://127.0.0.1:1/"}, "--slo"},
		{[]string{"--slo", "p99=20ms", "--errors", "five", "http://127.0.0.1:1/"}, "--errors"},
		{[]string{"--slo", "p99=20ms", "--resolution", "0", "http://127.0.0.1:1/"}, "--resolution"},
		{[]string{"--slo", "p99=20ms", "-c", "0", "http://127.0.0.1:1/"}, "-c 0"},
		{[]string{"--slo", "p99=20ms"}, "want exactly one URL"},
		{[]string{"--slo", "p99=20ms", "--start-fraction", "2", "http://127.0.0.1:1/"}, "start-fraction"},
	} {
		code, _, errOut := capacityMain(t, c.args...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", c.args, code, errOut, c.want)
		}
	}
}

// A coarse, quick search on the command line: the JSON names the result
// capacity_rps, with the figures at that rate and every probe. The server
// shares the test's process, whose CPU wait is the generator's: not judged.
func TestCapacityJSON(t *testing.T) {
	url := slotServer(t, 8, 20*time.Millisecond) // 400 req/s at most
	code, out, errOut := capacityMain(t, "--slo", "p99=500ms", "--start-rps", "300", "--resolution", "20%", "--confirm", "1", "--generator-wait", "0",
		"--probe", "500ms", "--warmup", "200ms", "--budget", "40s", "-o", "json", url)
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errOut, out)
	}
	var rep struct {
		Status      string   `json:"status"`
		CapacityRPS *float64 `json:"capacity_rps"`
		AtCapacity  *struct {
			LatencyMicros   map[string]int64 `json:"latency_us"`
			ErrorShare      *float64         `json:"error_share"`
			UnfinishedShare *float64         `json:"unfinished_share"`
			UnsentShare     *float64         `json:"unsent_share"`
		} `json:"at_capacity"`
		Probes []map[string]any `json:"probes"`
		URL    string           `json:"url"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Status != "confirmed" || rep.CapacityRPS == nil || *rep.CapacityRPS <= 0 || *rep.CapacityRPS > 408 || !strings.HasPrefix(rep.URL, "http://127.0.0.1:") {
		t.Fatalf("status %s, capacity %v, url %q", rep.Status, rep.CapacityRPS, rep.URL)
	}
	a := rep.AtCapacity
	if a == nil || a.ErrorShare == nil || a.UnfinishedShare == nil || a.UnsentShare == nil {
		t.Fatalf("at_capacity %+v lacks its shares", a)
	}
	for _, k := range []string{"p50", "p99", "p999"} {
		if a.LatencyMicros[k] <= 0 {
			t.Errorf("at_capacity.latency_us.%s = %d", k, a.LatencyMicros[k])
		}
	}
	if len(rep.Probes) < 2 || rep.Probes[0]["phase"] != "climb" || rep.Probes[0]["rate_rps"] != 150.0 {
		t.Errorf("probes %v; want every probe, the first a climb at 150 req/s", rep.Probes)
	}
}

// Out of budget, the text says what is known (the bracket) and the
// command exits 1.
func TestCapacityOutOfBudgetReportsTheBracket(t *testing.T) {
	url := slotServer(t, 8, 20*time.Millisecond)
	code, out, errOut := capacityMain(t, "--slo", "p99=500ms", "--start-rps", "300",
		"--probe", "500ms", "--warmup", "200ms", "--budget", "3s", url)
	if code != 1 || !strings.Contains(errOut, "no capacity confirmed (budget)") {
		t.Fatalf("exit %d, stderr %q; want 1 and no capacity confirmed (budget)", code, errOut)
	}
	for _, want := range []string{"not confirmed within the 3s budget", "  bracket       ", "probe  phase", "  climb  "} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
}
