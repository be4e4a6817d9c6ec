package load

import (
	"crypto/tls"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/net/http2/hpack"
)

// h2TLSServer serves handler over HTTP/2 on TLS (ALPN h2) with the
// throwaway certificate; it returns the URL and the CA's PEM.
func h2TLSServer(t *testing.T, handler http.HandlerFunc) (string, []byte) {
	t.Helper()
	ca, pem := throwaway(t)
	cert, err := tls.LoadX509KeyPair(ca.CertFile, ca.KeyFile)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(handler)
	srv.EnableHTTP2 = true
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv.URL + "/", pem
}

// onlyH2 wraps h: a request that is not HTTP/2 is counted in notH2 and
// refused; cc tracks the requests in the server at once.
func onlyH2(h http.HandlerFunc, notH2 *atomic.Int64, cc *concurrency) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		cc.enter()
		defer cc.leave()
		if r.ProtoMajor != 2 {
			notH2.Add(1)
			w.WriteHeader(505)
			return
		}
		if r.URL.Path == "/items" {
			time.Sleep(time.Millisecond) // long enough for every user to be in at once
		}
		h(w, r)
	}
}

// Over h2c and over h2 (TLS), each of a connection's streams is a user:
// the server, which refuses a wrong token, session (a header captured
// from the login's HPACK-decoded answer) or id, answers every step of
// every flow, and holds at most — and at some point exactly — one
// request per user: 1 connection × 8 streams.
func TestFlowOverH2CarriesCaptures(t *testing.T) {
	for _, proto := range []string{ProtoH2C, ProtoH2} {
		t.Run(proto, func(t *testing.T) {
			var seen [5]atomic.Int64
			var notH2 atomic.Int64
			var cc concurrency
			h := onlyH2(shopHandler(200, nil, &seen), &notH2, &cc)
			cfg := Config{Protocol: proto, Connections: 1, Streams: 8, Duration: 400 * time.Millisecond, Flow: shopFlow(), Seed: 3}
			var url string
			if proto == ProtoH2C {
				url = h2cServer(t, h)
			} else {
				url, cfg.CACertPEM = h2TLSServer(t, h)
			}
			res := runLoad(t, url, cfg)
			f := res.Flow
			if f == nil {
				t.Fatal("no flow figures")
			}
			if f.Completed < 20 || f.Failed != 0 || seen[4].Load() != 0 || notH2.Load() != 0 {
				t.Fatalf("%d flows completed, %d failed (%v); the server refused %d requests, %d not over HTTP/2; errors %v",
					f.Completed, f.Failed, f.Failures, seen[4].Load(), notH2.Load(), res.Errors)
			}
			if len(f.Steps) != 4 || f.Steps[2].Name != "read" || f.Steps[3].Successes < f.Completed || res.Successes < 4*f.Completed {
				t.Errorf("steps %+v, %d requests for %d flows", f.Steps, res.Successes, f.Completed)
			}
			if f.Started < f.Completed || f.Started > f.Completed+8 {
				t.Errorf("%d flows started, %d completed, by 8 users", f.Started, f.Completed)
			}
			if p := cc.peak.Load(); p != 8 {
				t.Errorf("at most %d requests in the server at once, want 8 (1 connection × 8 streams, a user each)", p)
			}
			var text strings.Builder
			if err := res.WriteText(&text); err != nil {
				t.Fatal(err)
			}
			if res.Protocol != proto || res.H2 == nil || !strings.Contains(text.String(), "flows/s by 8 users") {
				t.Errorf("protocol %q, h2 %+v; text:\n%s", res.Protocol, res.H2, text.String())
			}
		})
	}
}

// A flow that fails at its third step over HTTP/2 fails with that step's
// class, an unexpected status or an HTTP/2 one (the server resets the
// stream): every failed flow counted so, none completed, and the fourth
// step never sent.
func TestFlowOverH2FailsAtTheThirdStep(t *testing.T) {
	for _, c := range []struct {
		class string
		read  http.HandlerFunc
	}{
		{"read: status_503", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(503) }},
		{"read: rst_stream", func(w http.ResponseWriter, r *http.Request) { panic(http.ErrAbortHandler) }},
	} {
		var seen [5]atomic.Int64
		url := h2cServer(t, shopHandler(200, c.read, &seen))
		res := runLoad(t, url, Config{Protocol: ProtoH2C, Connections: 1, Streams: 4, Duration: 300 * time.Millisecond, Flow: shopFlow()})
		f := res.Flow
		if f.Completed != 0 || f.Failed < 10 || len(f.Failures) != 1 || f.Failures[c.class] != f.Failed {
			t.Errorf("%s: %d completed, %d failed: %v", c.class, f.Completed, f.Failed, f.Failures)
		}
		if f.Steps[0].Successes == 0 || f.Steps[1].Successes == 0 || f.Steps[2].Successes != 0 || seen[3].Load() != 0 || seen[4].Load() != 0 {
			t.Errorf("%s: steps %+v; the server saw %d writes and refused %d requests", c.class, f.Steps, seen[3].Load(), seen[4].Load())
		}
	}
}

// In the open model over HTTP/2, flows start on the schedule, each on a
// free user (a stream): their number follows the rate; when the users are
// too few, the flows no user was free for are unsent, and those started
// show their wait in the flow latency.
func TestFlowOverH2OpenModel(t *testing.T) {
	var seen [5]atomic.Int64
	url := h2cServer(t, shopHandler(200, nil, &seen))
	res := runLoad(t, url, Config{Protocol: ProtoH2C, Connections: 1, Streams: 8, Rate: 200, Duration: 500 * time.Millisecond, Flow: shopFlow()})
	f := res.Flow
	// A stall of a busy test host may leave a few due flows unsent (the
	// host's, not the engine's: 8 users at 200 flows/s are idle most of
	// the time).
	if f.Completed < 75 || f.Completed > 110 || f.Failed != 0 || f.Unsent > 10 || seen[4].Load() != 0 {
		t.Errorf("at 200 flows/s for 0.5 s: %d completed, %d failed (%v), %d unsent, %d refused", f.Completed, f.Failed, f.Failures, f.Unsent, seen[4].Load())
	}
	// Two users (one connection of two streams), a flow taking over
	// 20 ms, 200 due a second: at most about 100 a second start.
	slow := h2cServer(t, func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(10 * time.Millisecond)
		io.WriteString(w, `{"token":"x"}`)
	})
	two := &Flow{Name: "two", Steps: []FlowStep{{Name: "a", Path: "/a"}, {Name: "b", Path: "/b"}}}
	res = runLoad(t, slow, Config{Protocol: ProtoH2C, Connections: 1, Streams: 2, Rate: 200, Duration: 500 * time.Millisecond, Flow: two})
	if f := res.Flow; f.Unsent < 30 || f.Completed > 55 || f.LatencyMicros.P99 < 100_000 {
		t.Errorf("two users behind a 200/s schedule: %d unsent, %d completed, flow p99 %d µs", f.Unsent, f.Completed, f.LatencyMicros.P99)
	}
}

// A captured value too long for one frame (a 40 KB token) goes on in
// CONTINUATION frames, whole.
func TestFlowOverH2LongCaptureGoesInContinuation(t *testing.T) {
	token := strings.Repeat("t", 40_000)
	var bad atomic.Int64
	url := h2cServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/login" {
			io.WriteString(w, `{"token":"`+token+`"}`)
			return
		}
		if r.Header.Get("Authorization") != "Bearer "+token {
			bad.Add(1)
			w.WriteHeader(400)
		}
	})
	flow := &Flow{Name: "long", Steps: []FlowStep{
		{Name: "login", Path: "/login", Capture: map[string]string{"token": "body.token"}},
		{Name: "me", Path: "/me", Headers: map[string]string{"Authorization": "Bearer ${token}"}},
	}}
	res := runLoad(t, url, Config{Protocol: ProtoH2C, Connections: 1, Streams: 2, Duration: 200 * time.Millisecond, Flow: flow})
	if f := res.Flow; f.Completed < 5 || f.Failed != 0 || bad.Load() != 0 {
		t.Errorf("%d completed, %d failed (%v), %d refused; errors %v, h2 %+v", f.Completed, f.Failed, f.Failures, bad.Load(), res.Errors, res.H2)
	}
}

// A step's HTTP/2 header block decodes to the request its HTTP/1.1 head
// says: the method (indexed or literal), scheme, :authority (a Host
// header's value when the step has one), the path and header values with
// the user's captures (one longer than 127 bytes, whose length takes
// more bytes), no connection-specific header, a user-agent, and the
// body's length.
func TestFlowH2BlockDecodes(t *testing.T) {
	cf, err := compileFlow(&Flow{Name: "f", Steps: []FlowStep{
		{Name: "a", Path: "/a", Capture: map[string]string{"tok": "body.t"}},
		{Name: "b", Method: "PUT", Path: "/b/${tok}?n=${rand:5..5}", Body: `{"t":"${tok}"}`,
			Headers: map[string]string{"Authorization": "Bearer ${tok}", "Connection": "close", "Host": "api.example", "Content-Length": "1", "TE": "trailers"}},
		{Name: "c", Path: "/c"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	f := &flowState{vars: make([][]byte, cf.slots)}
	long := strings.Repeat("x", 300)
	f.vars[0] = []byte(long)
	decode := func(block []byte) map[string]string {
		got := map[string]string{}
		dec := hpack.NewDecoder(4096, func(hf hpack.HeaderField) {
			if _, dup := got[hf.Name]; dup {
				t.Errorf("field %s twice", hf.Name)
			}
			got[hf.Name] = hf.Value
		})
		if _, err := dec.Write(block); err != nil {
			t.Fatalf("block does not decode: %v", err)
		}
		return got
	}
	f.renderH2(&cf.steps[1], "127.0.0.1:80", true)
	want := map[string]string{":method": "PUT", ":scheme": "https", ":authority": "api.example", ":path": "/b/" + long + "?n=5",
		"authorization": "Bearer " + long, "te": "trailers", "user-agent": "stackbench", "content-length": "308"}
	got := decode(f.wire.h2block)
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %.40q, want %.40q", k, got[k], v)
		}
	}
	if len(got) != len(want) || string(f.wire.body) != `{"t":"`+long+`"}` {
		t.Errorf("fields %v, body %d bytes; want only %v", len(got), len(f.wire.body), want)
	}
	f.renderH2(&cf.steps[2], "127.0.0.1:80", false)
	got = decode(f.wire.h2block)
	if len(got) != 5 || got[":method"] != "GET" || got[":scheme"] != "http" || got[":authority"] != "127.0.0.1:80" || got[":path"] != "/c" {
		t.Errorf("a GET without headers: %v", got)
	}
}

// Think time spaces a user's steps over HTTP/2 too: two users (one
// connection of two streams), 50 ms after their first step, complete
// about 9 flows each in 500 ms.
func TestFlowOverH2ThinkTime(t *testing.T) {
	url := h2cServer(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, `{}`) })
	think := &Flow{Name: "t", Steps: []FlowStep{{Name: "a", Path: "/a", ThinkMillis: 50}, {Name: "b", Path: "/b"}}}
	res := runLoad(t, url, Config{Protocol: ProtoH2C, Connections: 1, Streams: 2, Duration: 500 * time.Millisecond, Flow: think})
	if c := res.Flow.Completed; c < 6 || c > 20 || res.Flow.Failed != 0 || res.Flow.LatencyMicros.P50 < 50_000 {
		t.Errorf("two users with 50 ms of think time per flow completed %d flows in 500 ms (%d failed, p50 %d µs); want about 18", c, res.Flow.Failed, res.Flow.LatencyMicros.P50)
	}
}

// A step's own Host and User-Agent are sent once and instead of the
// engine's, on either wire, as a case's are (encode.go); a step without
// them gets the target's host and "stackbench".
func TestFlowStepOwnHostAndUserAgentOnBothWires(t *testing.T) {
	cf, err := compileFlow(&Flow{Name: "f", Steps: []FlowStep{
		{Name: "own", Path: "/a", Headers: map[string]string{"Host": "api.example", "User-Agent": "probe/1"}},
		{Name: "plain", Path: "/b"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	f := &flowState{vars: make([][]byte, cf.slots)}
	for i, want := range []struct{ host, ua string }{{"api.example", "probe/1"}, {"127.0.0.1:80", "stackbench"}} {
		f.render(&cf.steps[i], "127.0.0.1:80")
		head := string(f.wire.bytes)
		if strings.Count(strings.ToLower(head), "\r\nhost: ") != 1 || !strings.Contains(head, "\r\nHost: "+want.host+"\r\n") ||
			strings.Count(strings.ToLower(head), "\r\nuser-agent: ") != 1 || !strings.Contains(head, "\r\nUser-Agent: "+want.ua+"\r\n") {
			t.Errorf("step %s over HTTP/1.1: %q; want Host %s and User-Agent %s, once each", cf.steps[i].name, head, want.host, want.ua)
		}
		f.renderH2(&cf.steps[i], "127.0.0.1:80", false)
		got := map[string][]string{}
		dec := hpack.NewDecoder(4096, func(hf hpack.HeaderField) { got[hf.Name] = append(got[hf.Name], hf.Value) })
		if _, err := dec.Write(f.wire.h2block); err != nil {
			t.Fatal(err)
		}
		if len(got[":authority"]) != 1 || got[":authority"][0] != want.host || len(got["user-agent"]) != 1 || got["user-agent"][0] != want.ua || len(got["host"]) != 0 {
			t.Errorf("step %s over HTTP/2: %v; want :authority %s and user-agent %s, once each", cf.steps[i].name, got, want.host, want.ua)
		}
	}
}
