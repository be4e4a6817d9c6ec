package load

import (
	"bytes"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/h2c"
	"golang.org/x/net/http2/hpack"
)

// h2cServer serves handler over HTTP/2 in cleartext (prior knowledge).
func h2cServer(t *testing.T, handler http.HandlerFunc) string {
	t.Helper()
	srv := httptest.NewServer(h2c.NewHandler(handler, &http2.Server{}))
	t.Cleanup(srv.Close)
	return srv.URL + "/"
}

// concurrency tracks the most requests a handler held at once.
type concurrency struct{ now, peak atomic.Int64 }

func (c *concurrency) enter() {
	n := c.now.Add(1)
	for p := c.peak.Load(); n > p && !c.peak.CompareAndSwap(p, n); p = c.peak.Load() {
	}
}

func (c *concurrency) leave() { c.now.Add(-1) }

// Streams per connection are requests in flight at once: 2 connections of
// 8 streams keep 16 in the server, all of them HTTP/2.
func TestH2CStreamsAreConcurrentRequests(t *testing.T) {
	var cc concurrency
	var notH2 atomic.Int64
	url := h2cServer(t, func(w http.ResponseWriter, r *http.Request) {
		cc.enter()
		defer cc.leave()
		if r.ProtoMajor != 2 {
			notH2.Add(1)
		}
		time.Sleep(5 * time.Millisecond)
		w.Write([]byte(`{"ok":true}`))
	})
	res := runLoad(t, url, Config{Protocol: ProtoH2C, Connections: 2, Streams: 8, Duration: 400 * time.Millisecond})
	if res.Successes < 100 || res.ErrorCount() != 0 || notH2.Load() != 0 {
		t.Fatalf("%d successes, errors %v, %d not over HTTP/2", res.Successes, res.Errors, notH2.Load())
	}
	if p := cc.peak.Load(); p != 16 {
		t.Errorf("at most %d requests in the server at once, want 16 (2 connections × 8 streams)", p)
	}
	h := res.H2
	if res.Protocol != "h2c" || h == nil || h.StreamsPerConnection != 8 || h.PeerMaxStreams != 250 ||
		h.StreamWindowBytes != h2StreamWindowBytes || h.ConnectionWindowBytes != h2ConnWindowBytes {
		t.Errorf("protocol %q, h2 %+v; want h2c, 8 streams, the server's limit (250) and the windows stated", res.Protocol, h)
	}
}

// Request bodies go in DATA frames, within the server's windows; a pool
// cycles; the open loop works over streams too.
func TestH2CBodiesPoolAndOpenLoop(t *testing.T) {
	var bad atomic.Int64
	url := h2cServer(t, func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if r.Method == "POST" && (len(b) != 100_000 || r.ContentLength != 100_000) || r.Method == "GET" && r.URL.Path != "/a" && r.URL.Path != "/b" {
			bad.Add(1)
		}
		if r.Header.Get("X-Case") != "yes" {
			bad.Add(1)
		}
		w.WriteHeader(201)
	})
	body := bytes.Repeat([]byte("x"), 100_000) // beyond the server's first 64 KiB window
	res := runLoad(t, url, Config{Protocol: ProtoH2C, Method: "POST", Body: body, Connections: 1, Streams: 4,
		Headers: []Header{{"X-Case", "yes"}}, Expect: []int{201}, Duration: 300 * time.Millisecond})
	if res.Successes < 10 || res.ErrorCount() != 0 || bad.Load() != 0 {
		t.Fatalf("bodies: %d successes, errors %v, %d bad requests", res.Successes, res.Errors, bad.Load())
	}
	pool := []Request{{Path: "/a", Headers: map[string]string{"X-Case": "yes"}}, {Path: "/b", Headers: map[string]string{"X-Case": "yes"}}}
	res = runLoad(t, url, Config{Protocol: ProtoH2C, Requests: pool, Connections: 2, Streams: 16, Rate: 500,
		Expect: []int{201}, Duration: 400 * time.Millisecond})
	// A stall of this busy test host may leave a few due requests unsent
	// (they are failures, but the host's, not the engine's).
	if res.Successes < 120 || res.ErrorCount() != 0 || bad.Load() != 0 || res.Mode != "open" {
		t.Fatalf("open loop: %d successes, errors %v, unsent %d, %d bad requests", res.Successes, res.Errors, res.Unsent, bad.Load())
	}
}

// HTTP/2 over TLS is agreed through ALPN; a server that offers only
// HTTP/1.1 fails every request in the tls class, saying why.
func TestH2OverTLSNeedsALPN(t *testing.T) {
	ca, pem := throwaway(t)
	cert, err := tls.LoadX509KeyPair(ca.CertFile, ca.KeyFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, h2 := range []bool{true, false} {
		srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte(r.Proto))
		}))
		srv.EnableHTTP2 = h2
		srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
		srv.StartTLS()
		res := runLoad(t, srv.URL+"/", Config{Protocol: ProtoH2, Connections: 1, Streams: 4, Duration: 200 * time.Millisecond, CACertPEM: pem})
		srv.Close()
		if h2 && (res.Successes < 10 || res.ErrorCount() != 0 || res.TLS.ALPN != "h2") {
			t.Errorf("h2 server: %d successes, errors %v, tls %+v", res.Successes, res.Errors, res.TLS)
		}
		if !h2 && (res.Successes != 0 || res.Errors["tls"] == 0 || !strings.Contains(res.TLS.FirstError, "ALPN")) {
			t.Errorf("HTTP/1.1-only server: %d successes, errors %v, first error %q", res.Successes, res.Errors, res.TLS.FirstError)
		}
	}
}

// A server that resets streams mid-window: each reset request fails as
// rst_stream, never as throughput, and the connection goes on.
func TestH2LiarResetsStreams(t *testing.T) {
	var n atomic.Int64
	url := h2cServer(t, func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) > 200 {
			panic(http.ErrAbortHandler) // the server resets the stream
		}
		w.Write([]byte("ok"))
	})
	res := runLoad(t, url, Config{Protocol: ProtoH2C, Connections: 1, Streams: 10, Duration: 300 * time.Millisecond})
	if res.Errors["rst_stream"] == 0 || res.Successes+res.Errors["rst_stream"] != res.Attempts || res.Successes > 200 {
		t.Fatalf("%d successes, errors %v in %d attempts; want the resets counted as rst_stream", res.Successes, res.Errors, res.Attempts)
	}
	if res.Reconnects != 0 {
		t.Errorf("%d reconnects; a stream reset leaves the connection up", res.Reconnects)
	}
}

// rawH2Server runs serve on each connection after the preface, with a
// Framer on it.
func rawH2Server(t *testing.T, serve func(fr *http2.Framer)) string {
	return rawServer(t, func(c net.Conn) {
		preface := make([]byte, len(http2.ClientPreface))
		if _, err := io.ReadFull(c, preface); err != nil || string(preface) != http2.ClientPreface {
			return
		}
		serve(http2.NewFramer(c, c))
	})
}

// okHeaders is a header block with :status 200.
func okHeaders() []byte {
	var b bytes.Buffer
	hpack.NewEncoder(&b).WriteField(hpack.HeaderField{Name: ":status", Value: "200"})
	return b.Bytes()
}

// A server that stops granting flow-control window: once the bodies have
// used the connection's first 64 KiB, no request can be sent whole, and
// those waiting fail (unfinished, flow_stalled), never as throughput.
func TestH2LiarStopsWindowUpdates(t *testing.T) {
	block := okHeaders()
	url := frameServer(t, func() func(fr *http2.Framer, f http2.Frame) bool {
		return func(fr *http2.Framer, f http2.Frame) bool {
			if d, ok := f.(*http2.DataFrame); ok && d.StreamEnded() { // answered, and never a WINDOW_UPDATE
				fr.WriteHeaders(http2.HeadersFrameParam{StreamID: d.StreamID, BlockFragment: block, EndStream: true, EndHeaders: true})
			}
			return true
		}
	})
	body := bytes.Repeat([]byte("y"), 4000)
	res := runLoad(t, url, Config{Protocol: ProtoH2C, Method: "POST", Body: body, Connections: 1, Streams: 4,
		Duration: 300 * time.Millisecond, Timeout: 5 * time.Second})
	if res.Successes > 65535/4000 || res.Errors["unfinished"] == 0 || res.H2.FlowStalled == 0 {
		t.Fatalf("%d successes, errors %v, h2 %+v; want at most %d answered and the rest unfinished, stalled by flow control",
			res.Successes, res.Errors, res.H2, 65535/4000)
	}
	if res.ThroughputRPS*res.DurationSeconds > float64(65535/4000) {
		t.Errorf("throughput %.0f/s: the stalled requests counted", res.ThroughputRPS)
	}
}

// A GOAWAY fails the streams above its last stream as goaway; the engine
// reopens and carries on.
func TestH2GoAwayFailsTheUnansweredStreams(t *testing.T) {
	block := okHeaders()
	var conns atomic.Int64
	url := frameServer(t, func() func(fr *http2.Framer, f http2.Frame) bool {
		conns.Add(1)
		answered := 0
		return func(fr *http2.Framer, f http2.Frame) bool {
			h, ok := f.(*http2.HeadersFrame)
			if !ok {
				return true
			}
			if answered == 20 {
				fr.WriteGoAway(h.StreamID-2, http2.ErrCodeNo, nil)
				return false
			}
			answered++
			fr.WriteHeaders(http2.HeadersFrameParam{StreamID: h.StreamID, BlockFragment: block, EndStream: true, EndHeaders: true})
			return true
		}
	})
	res := runLoad(t, url, Config{Protocol: ProtoH2C, Connections: 1, Streams: 1, Duration: 300 * time.Millisecond})
	if res.Errors["goaway"] == 0 || res.H2.GoAways == 0 || res.Successes+res.ErrorCount() != res.Attempts || conns.Load() < 2 {
		t.Fatalf("%d successes, errors %v, h2 %+v, %d connections; want goaway failures and reconnections", res.Successes, res.Errors, res.H2, conns.Load())
	}
}

// gRPC answers are judged by grpc-status: UNAVAILABLE in the trailers of
// an HTTP 200 is a failure (grpc_unavailable), never throughput; a 200
// without trailers is grpc_no_status.
func TestGRPCLiarUnavailableIn200(t *testing.T) {
	var mu sync.Mutex
	var paths []string
	mode := "unavailable"
	url := h2cServer(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		if len(paths) < 1 {
			paths = append(paths, r.URL.Path+" "+r.Header.Get("Content-Type")+" "+r.Header.Get("Te"))
		}
		m := mode
		mu.Unlock()
		io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/grpc")
		w.Write([]byte{0, 0, 0, 0, 0})
		switch m {
		case "unavailable":
			w.Header().Set(http.TrailerPrefix+"Grpc-Status", "14")
		case "ok":
			w.Header().Set(http.TrailerPrefix+"Grpc-Status", "0")
		}
	})
	call := &GRPCCall{Method: "saas.Users/GetUser", Message: []byte{0x08, 0x01}}
	res := runLoad(t, url, Config{Protocol: ProtoGRPC, GRPC: call, Connections: 1, Streams: 4, Duration: 200 * time.Millisecond})
	if res.Successes != 0 || res.Errors["grpc_unavailable"] == 0 || res.Errors["grpc_unavailable"] != res.Attempts {
		t.Fatalf("%d successes, errors %v in %d attempts; want every call failed as grpc_unavailable", res.Successes, res.Errors, res.Attempts)
	}
	if paths[0] != "/saas.Users/GetUser application/grpc trailers" {
		t.Errorf("request %q, want POST /saas.Users/GetUser with gRPC's headers", paths[0])
	}
	mu.Lock()
	mode = "none"
	mu.Unlock()
	res = runLoad(t, url, Config{Protocol: ProtoGRPC, GRPC: call, Connections: 1, Duration: 100 * time.Millisecond})
	if res.Successes != 0 || res.Errors["grpc_no_status"] != res.Attempts || res.Attempts == 0 {
		t.Errorf("no trailers: %d successes, errors %v", res.Successes, res.Errors)
	}
	mu.Lock()
	mode = "ok"
	mu.Unlock()
	res = runLoad(t, url, Config{Protocol: ProtoGRPC, GRPC: call, Connections: 1, Streams: 4, Duration: 100 * time.Millisecond})
	if res.Successes == 0 || res.ErrorCount() != 0 || res.GRPCMethod != "saas.Users/GetUser" {
		t.Errorf("grpc-status 0: %d successes, errors %v, method %q", res.Successes, res.Errors, res.GRPCMethod)
	}
}

// frameServer answers the client's SETTINGS and hands every other frame
// to the handler newConn makes for each connection; a handler that returns
// false closes the connection.
func frameServer(t *testing.T, newConn func() func(fr *http2.Framer, f http2.Frame) bool) string {
	return rawH2Server(t, func(fr *http2.Framer) {
		handle := newConn()
		fr.WriteSettings()
		for {
			f, err := fr.ReadFrame()
			if err != nil {
				return
			}
			if sf, ok := f.(*http2.SettingsFrame); ok {
				if !sf.IsAck() {
					fr.WriteSettingsAck()
				}
				continue
			}
			if !handle(fr, f) {
				return
			}
		}
	})
}

// answerServer answers each request's HEADERS with answer(fr, stream).
func answerServer(t *testing.T, answer func(fr *http2.Framer, stream uint32)) string {
	return frameServer(t, func() func(fr *http2.Framer, f http2.Frame) bool {
		return func(fr *http2.Framer, f http2.Frame) bool {
			if h, ok := f.(*http2.HeadersFrame); ok {
				answer(fr, h.StreamID)
			}
			return true
		}
	})
}

// The frames of a response may come padded, with a priority, and with
// the header block split over CONTINUATION frames and trailers after the
// DATA: each answer still counts once, by its status.
func TestH2PaddedSplitHeadersAndTrailers(t *testing.T) {
	var head, trailers bytes.Buffer
	enc := hpack.NewEncoder(&head)
	enc.WriteField(hpack.HeaderField{Name: ":status", Value: "201"})
	enc.WriteField(hpack.HeaderField{Name: "content-type", Value: "application/json"})
	enc.WriteField(hpack.HeaderField{Name: "x-long", Value: strings.Repeat("z", 300)})
	hpack.NewEncoder(&trailers).WriteField(hpack.HeaderField{Name: "x-trailer", Value: "1"})
	block, tblock := head.Bytes(), trailers.Bytes()
	url := answerServer(t, func(fr *http2.Framer, id uint32) {
		fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: block[:10], PadLength: 7,
			Priority: http2.PriorityParam{StreamDep: 0, Weight: 15}})
		fr.WriteContinuation(id, false, block[10:100])
		fr.WriteContinuation(id, true, block[100:])
		fr.WriteDataPadded(id, false, []byte(`{"ok":true}`), make([]byte, 20))
		fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: tblock, EndStream: true, EndHeaders: true})
	})
	res := runLoad(t, url, Config{Protocol: ProtoH2C, Connections: 1, Streams: 8, Expect: []int{201}, Duration: 300 * time.Millisecond})
	if res.Successes < 50 || res.ErrorCount() != 0 || res.H2.FirstProtocolError != "" {
		t.Fatalf("%d successes, errors %v, protocol error %q; want every answer a success", res.Successes, res.Errors, res.H2.FirstProtocolError)
	}
}

// A server that breaks the framing fails the requests on the connection,
// saying how, and never counts them as answers: a DATA frame inside a
// header block, a CONTINUATION outside one, padding longer than its frame.
func TestH2LiarBreaksFraming(t *testing.T) {
	block := okHeaders()
	for _, tc := range []struct {
		name, want string
		answer     func(fr *http2.Framer, id uint32)
	}{
		{"data inside a header block", "inside the header block", func(fr *http2.Framer, id uint32) {
			fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: block})
			fr.WriteData(id, true, []byte("x"))
		}},
		{"continuation alone", "outside a header block", func(fr *http2.Framer, id uint32) {
			fr.WriteContinuation(id, true, block)
			fr.WriteData(id, true, []byte("x"))
		}},
		{"padding beyond the frame", "padding longer", func(fr *http2.Framer, id uint32) {
			fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: block, EndHeaders: true})
			fr.WriteRawFrame(http2.FrameData, http2.FlagDataPadded|http2.FlagDataEndStream, id, []byte{9, 'x'})
		}},
	} {
		url := answerServer(t, tc.answer)
		res := runLoad(t, url, Config{Protocol: ProtoH2C, Connections: 1, Streams: 4, Duration: 200 * time.Millisecond})
		if res.Successes != 0 || res.ErrorCount() == 0 || !strings.Contains(res.H2.FirstProtocolError, tc.want) {
			t.Errorf("%s: %d successes, errors %v, protocol error %q; want failures naming %q",
				tc.name, res.Successes, res.Errors, res.H2.FirstProtocolError, tc.want)
		}
	}
}
