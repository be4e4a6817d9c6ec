package run

import (
	"flag"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/agent"
	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/load"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/workload"
)

// A flow's window on a generator host runs the flow sent with it (the
// agent names --flow), against the server's base URL, with that
// generator's users numbered from where the generator before it ended;
// a case that is not a flow carries no user numbers.
func TestRemoteLoadArgsFlow(t *testing.T) {
	flow := workload.Case{Name: "session", Flow: &load.Flow{Name: "session", Steps: []load.FlowStep{{Name: "login", Method: "POST", Path: "/login"}}}}
	files := agent.LoadSpec{Flow: []byte(`{"name":"session"}`)}
	parse := func(args []string) (load.Flags, string) {
		t.Helper()
		var f load.Flags
		fs := flag.NewFlagSet("load", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		f.Register(fs)
		if args[0] != "load" || fs.Parse(args[1:]) != nil || fs.NArg() != 1 {
			t.Fatalf("args %q do not parse", args)
		}
		return f, fs.Arg(0)
	}
	at := time.Now()
	conns := split(5, 2)
	first := 0
	for i, want := range []int{0, 3} {
		f, url := parse(remoteLoadArgs("http://10.9.9.9:9", flow, plan.Wire{}, files, conns[i], first, 0, time.Second, time.Second, time.Minute, at))
		first += conns[i]
		if f.Flow != "" || f.Requests != "" || url != "http://10.9.9.9:9" {
			t.Errorf("generator %d: --flow %q, --requests %q, target %s; want the flow left to the agent and the base URL", i+1, f.Flow, f.Requests, url)
		}
		if f.FirstUser != want || f.Connections != conns[i] {
			t.Errorf("generator %d: users from %d, %d connections; want from %d, %d", i+1, f.FirstUser, f.Connections, want, conns[i])
		}
	}
	plain := workload.Case{Name: "user", Method: "GET", Path: "/users/1"}
	if f, _ := parse(remoteLoadArgs("http://10.9.9.9:9", plain, plan.Wire{}, agent.LoadSpec{}, 2, 3, 0, time.Second, time.Second, time.Minute, at)); f.FirstUser != 0 {
		t.Errorf("a case that is not a flow got --first-user %d", f.FirstUser)
	}
}

// A flow at a fixed rate is not split across generator hosts: the window
// is refused before anything is sent, naming the case and what to leave
// out.
func TestFixedRateFlowAcrossHostsIsRefused(t *testing.T) {
	h := &hostsSite{generators: []string{"load1", "load2"}}
	flow := workload.Case{Name: "session", Flow: &load.Flow{Name: "session", Steps: []load.FlowStep{{Name: "login", Path: "/login"}}}}
	side := windowSide{srv: &server{stack: plan.Stack{Name: "a"}}, load: loadStream{c: flow, conns: 4, rateRPS: 100}}
	_, err := h.launch(t.Context(), side, &journal.Window{Key: "k"})
	if err == nil || !strings.Contains(err.Error(), "case session is a flow at a fixed rate (100 flows/s), which is not yet split across generator hosts") {
		t.Fatalf("a fixed-rate flow across hosts: %v", err)
	}
}
