package load

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// shop is a flow of four steps: log in (a token, and a session from a
// header), list (ids), read one of them with the token and the session,
// write with the token.
func shopFlow() *Flow {
	return &Flow{Name: "session", Steps: []FlowStep{
		{Name: "login", Method: "POST", Path: "/login", Body: `{"user":"u${rand:1..9}"}`, Capture: map[string]string{"token": "body.token", "sess": "header.X-Session"}},
		{Name: "list", Path: "/items", Headers: map[string]string{"Authorization": "Bearer ${token}"}, Capture: map[string]string{"id": "body.items.#.id"}},
		{Name: "read", Path: "/items/${id}", Headers: map[string]string{"Authorization": "Bearer ${token}", "X-Session": "${sess}"}},
		{Name: "write", Method: "POST", Path: "/items/${id}/likes", Headers: map[string]string{"Authorization": "Bearer ${token}"}, Expect: []int{201}},
	}}
}

// shopServer answers the shop flow, checking that each step carries what
// the earlier ones captured: a wrong token, session or id is a 400.
// loginStatus is the login's answer (200 hands out a token).
func shopServer(t *testing.T, loginStatus int, seen *[5]atomic.Int64) string {
	return httpServer(t, shopHandler(loginStatus, nil, seen))
}

// shopHandler is shopServer's handler; read, when not nil, answers the
// third step (read) instead, once its token and session were checked.
func shopHandler(loginStatus int, read http.HandlerFunc, seen *[5]atomic.Int64) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		auth := r.Header.Get("Authorization")
		switch {
		case r.URL.Path == "/login":
			seen[0].Add(1)
			var in struct{ User string }
			if json.Unmarshal(body, &in) != nil || !strings.HasPrefix(in.User, "u") {
				w.WriteHeader(400)
				return
			}
			w.Header().Set("X-Session", "s-"+in.User)
			w.WriteHeader(loginStatus)
			io.WriteString(w, `{"token":"tok-`+in.User+`"}`)
		case !strings.HasPrefix(auth, "Bearer tok-u"):
			seen[4].Add(1)
			w.WriteHeader(400)
		case r.URL.Path == "/items":
			seen[1].Add(1)
			io.WriteString(w, `{"items":[{"id":5},{"id":7}]}`)
		case r.URL.Path == "/items/5" || r.URL.Path == "/items/7":
			if r.Header.Get("X-Session") != "s-"+strings.TrimPrefix(auth, "Bearer tok-") {
				seen[4].Add(1)
				w.WriteHeader(400)
				return
			}
			seen[2].Add(1)
			if read != nil {
				read(w, r)
				return
			}
			io.WriteString(w, `{"id":5}`)
		case r.Method == "POST" && (r.URL.Path == "/items/5/likes" || r.URL.Path == "/items/7/likes"):
			seen[3].Add(1)
			w.WriteHeader(201)
		default:
			seen[4].Add(1)
			w.WriteHeader(400)
		}
	}
}

// Each user's captures flow from step to step: the server, which refuses
// a wrong token or id, answers every step; flows complete and are counted
// per second, with per-step and whole-flow latency.
func TestFlowCapturesFlowStepToStep(t *testing.T) {
	var seen [5]atomic.Int64
	url := shopServer(t, 200, &seen)
	res := runLoad(t, url, Config{Connections: 4, Duration: 500 * time.Millisecond, Flow: shopFlow(), Seed: 3})
	f := res.Flow
	if f == nil {
		t.Fatal("no flow figures")
	}
	if f.Completed < 20 || f.Failed != 0 || seen[4].Load() != 0 {
		t.Fatalf("%d flows completed, %d failed (%v); the server refused %d requests", f.Completed, f.Failed, f.Failures, seen[4].Load())
	}
	if f.FlowsPerSecond <= 0 || f.LatencyMicros.P50 <= 0 || len(f.Steps) != 4 || f.Steps[3].Name != "write" || f.Steps[3].Successes < f.Completed {
		t.Errorf("flows/s %v, p50 %d µs, steps %+v", f.FlowsPerSecond, f.LatencyMicros.P50, f.Steps)
	}
	if f.Started < f.Completed || f.Started > f.Completed+4 {
		t.Errorf("%d flows started, %d completed, by 4 users", f.Started, f.Completed)
	}
	if res.Successes < 4*f.Completed {
		t.Errorf("%d requests succeeded for %d flows of 4 steps", res.Successes, f.Completed)
	}
}

// A flow whose login fails fails every flow it starts, each counted with
// the step and class that failed it, and none is throughput; no later
// step is sent.
func TestFlowWhoseLoginFailsFailsEveryFlow(t *testing.T) {
	var seen [5]atomic.Int64
	url := shopServer(t, 401, &seen)
	res := runLoad(t, url, Config{Connections: 4, Duration: 400 * time.Millisecond, Flow: shopFlow()})
	f := res.Flow
	if f.Completed != 0 || f.FlowsPerSecond != 0 || f.Failed == 0 {
		t.Fatalf("%d completed (%v flows/s), %d failed", f.Completed, f.FlowsPerSecond, f.Failed)
	}
	if len(f.Failures) != 1 || f.Failures["login: status_401"] != f.Failed {
		t.Errorf("failures %v; want all %d as login: status_401", f.Failures, f.Failed)
	}
	// Those in flight at the window's end are answered in the drain.
	if f.Failed > f.Started || f.Started-f.Failed > 4 {
		t.Errorf("%d flows started in the window, %d failed in it; every one should fail (but the 4 users' last)", f.Started, f.Failed)
	}
	if n := seen[1].Load() + seen[2].Load() + seen[3].Load() + seen[4].Load(); n != 0 {
		t.Errorf("%d requests of later steps were sent after a failed login", n)
	}
}

// A capture that finds nothing fails the flow at that step (class
// capture); think time spaces a user's steps.
func TestFlowCaptureMissingAndThinkTime(t *testing.T) {
	url := httpServer(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, `{"other":1}`) })
	flow := &Flow{Name: "f", Steps: []FlowStep{{Name: "a", Path: "/a", Capture: map[string]string{"x": "body.token"}}, {Name: "b", Path: "/b/${x}"}}}
	res := runLoad(t, url, Config{Connections: 2, Duration: 300 * time.Millisecond, Flow: flow})
	if res.Flow.Completed != 0 || res.Flow.Failures["a: capture"] == 0 || res.Flow.Failures["a: capture"] != res.Flow.Failed {
		t.Errorf("completed %d, failures %v", res.Flow.Completed, res.Flow.Failures)
	}
	think := &Flow{Name: "t", Steps: []FlowStep{{Name: "a", Path: "/a", ThinkMillis: 50}, {Name: "b", Path: "/b"}}}
	res = runLoad(t, url, Config{Connections: 1, Duration: 500 * time.Millisecond, Flow: think})
	if c := res.Flow.Completed; c < 3 || c > 10 || res.Flow.LatencyMicros.P50 < 50_000 {
		t.Errorf("one user with 50 ms of think time per flow completed %d flows in 500 ms (p50 %d µs); want about 9", c, res.Flow.LatencyMicros.P50)
	}
}

func TestFlowConfigErrors(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{Flow: &Flow{Name: "f"}}, "has 0 steps"},
		{Config{Flow: &Flow{Name: "f", Steps: []FlowStep{{Name: "a", Path: "/a/${id}"}}}}, "${id} is not captured by an earlier step"},
		{Config{Flow: &Flow{Name: "f", Steps: []FlowStep{{Name: "a", Path: "/a", Capture: map[string]string{"x": "json.x"}}}}}, "not body.<path> or header.<Name>"},
		{Config{Protocol: ProtoGRPC, GRPC: &GRPCCall{Method: "a.B/C"}, Flow: shopFlow()}, "not gRPC calls"},
	} {
		c.cfg.URL = "http://127.0.0.1:1/"
		_, err := Run(t.Context(), c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want one saying %q", err, c.want)
		}
	}
}

// In an open loop flows start on a schedule, each on a free user: their
// number follows the rate, not the users, and a flow's latency counts from
// its scheduled start; flows no user was free for are unsent.
func TestFlowOpenModel(t *testing.T) {
	var seen [5]atomic.Int64
	url := shopServer(t, 200, &seen)
	res := runLoad(t, url, Config{Connections: 8, Rate: 200, Duration: 500 * time.Millisecond, Flow: shopFlow()})
	f := res.Flow
	if f.Completed < 80 || f.Completed > 110 || f.Failed != 0 || f.Unsent != 0 || seen[4].Load() != 0 {
		t.Errorf("at 200 flows/s for 0.5 s: %d completed, %d failed (%v), %d unsent, %d refused", f.Completed, f.Failed, f.Failures, f.Unsent, seen[4].Load())
	}
	// One user, a flow taking over 20 ms, 200 due a second: most are
	// never started, and those started wait for the user, which their
	// latency shows.
	slow := httpServer(t, func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(10 * time.Millisecond)
		io.WriteString(w, `{"token":"x"}`)
	})
	two := &Flow{Name: "two", Steps: []FlowStep{{Name: "a", Path: "/a"}, {Name: "b", Path: "/b"}}}
	res = runLoad(t, slow, Config{Connections: 1, Rate: 200, Duration: 500 * time.Millisecond, Flow: two})
	if f := res.Flow; f.Unsent < 50 || f.Completed > 30 || f.LatencyMicros.P99 < 100_000 {
		t.Errorf("one user behind a 200/s schedule: %d unsent, %d completed, flow p99 %d µs", f.Unsent, f.Completed, f.LatencyMicros.P99)
	}
}
