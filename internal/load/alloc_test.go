//go:build !race

// The race detector allocates on its own, so this test runs without it.

package load

import (
	"bytes"
	"encoding/binary"
	"net"
	"runtime"
	"strconv"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// The closed loop's hot path allocates nothing per request. The server is
// in this process too and allocates nothing per request either.
func TestClosedLoopAllocatesNothingPerRequest(t *testing.T) {
	allocs, successes := windowAllocations(t, Config{Connections: 8, Duration: time.Second})
	perRequest := float64(allocs) / float64(successes)
	if successes < 1000 || perRequest > 0.01 {
		t.Errorf("%d allocations for %d requests (%.3f per request), want none per request",
			allocs, successes, perRequest)
	}
}

// A pool of 1,000 request variants (a templated case's) is encoded before
// the window: cycling over it allocates nothing per request either (the
// window's own fixed cost is allowed: checkNoAllocationsPerRequest).
func TestRequestPoolAllocatesNothingPerRequest(t *testing.T) {
	pool := make([]Request, 1000)
	for i := range pool {
		pool[i] = Request{Method: "GET", Path: "/articles/bench-" + strconv.Itoa(i),
			Headers: map[string]string{"Authorization": "Token t" + strconv.Itoa(i)}}
	}
	allocs, successes := windowAllocations(t, Config{Connections: 8, Duration: time.Second, Requests: pool})
	checkNoAllocationsPerRequest(t, allocs, successes)
}

// A three-route mix allocates nothing per request either: the route of
// each request is two table reads, and its figures go into per-route
// histograms made before the window.
func TestMixAllocatesNothingPerRequest(t *testing.T) {
	pool := storefrontPool()
	for i := range pool {
		pool[i].Method, pool[i].Body = "GET", "" // the raw server reads heads only
	}
	pool[2].Expect = []int{200}
	allocs, successes := windowAllocations(t, Config{Connections: 8, Duration: time.Second, Mix: storefront, Requests: pool})
	checkNoAllocationsPerRequest(t, allocs, successes)
}

// Over TLS 1.3 the engine's record layer allocates nothing per request.
// The server here is crypto/tls, in this process too: each record it
// reads allocates one 24-byte reader (Conn.readFromUntil's atLeastReader,
// which escapes through an interface), so one allocation per request is
// the server's. (On crypto/tls's record layer the engine had one too.)
func TestTLSClosedLoopAllocatesOnlyTheServersReader(t *testing.T) {
	ca, pem := throwaway(t)
	url := tlsServer(t, ca, nil, fixedResponder(okResponse))
	allocs, successes := urlAllocations(t, url, Config{Connections: 8, Duration: time.Second, CACertPEM: pem})
	const fixedCost = 200
	if successes < 1000 || allocs > uint64(fixedCost+successes+successes/100) {
		t.Errorf("%d allocations for %d requests, want at most %d (the window's fixed cost) plus 1 per request (the server's record read)",
			allocs, successes, fixedCost)
	}
}

// HTTP/2's hot path allocates nothing per request either: a response's
// HEADERS and DATA are parsed in place (not through x/net's Framer, which
// allocates a HeadersFrame for each), and its header block is decoded by
// the connection's hpack decoder, which keeps what it indexed. The server
// here answers from fixed bytes and allocates nothing per request.
func TestH2CClosedLoopAllocatesNothingPerRequest(t *testing.T) {
	url := rawServer(t, fixedH2Responder)
	allocs, successes := urlAllocations(t, url+"/", Config{Protocol: ProtoH2C, Connections: 2, Streams: 16, Duration: time.Second})
	checkNoAllocationsPerRequest(t, allocs, successes)
}

// A flow's steps allocate nothing per request beyond what their captures
// need, over HTTP/1.1 and over HTTP/2 alike: each user renders its step
// (a ${rand} in the path, a captured value in a header) into its own
// buffers, and a header capture (here the content-type, from the HTTP/1.1
// head, or from the HPACK-decoded block, indexed after the first answer)
// is copied into the user's variable. (A body capture's JSON read
// allocates, on either wire.) The servers answer from fixed bytes.
func TestFlowAllocatesNothingPerRequest(t *testing.T) {
	flow := &Flow{Name: "f", Steps: []FlowStep{
		{Name: "a", Path: "/a/${rand:1..9}", Capture: map[string]string{"ct": "header.Content-Type"}},
		{Name: "b", Path: "/b", Headers: map[string]string{"X-CT": "${ct}"}},
	}}
	t.Run("http1", func(t *testing.T) {
		allocs, successes := windowAllocations(t, Config{Connections: 8, Duration: time.Second, Flow: flow})
		checkNoAllocationsPerRequest(t, allocs, successes)
	})
	t.Run("h2c", func(t *testing.T) {
		url := rawServer(t, fixedH2Responder)
		allocs, successes := urlAllocations(t, url+"/", Config{Protocol: ProtoH2C, Connections: 2, Streams: 16, Duration: time.Second, Flow: flow})
		checkNoAllocationsPerRequest(t, allocs, successes)
	})
}

// fixedH2Responder speaks just enough HTTP/2 to answer each request
// (a HEADERS frame that ends its stream) with the same HEADERS (:status
// 200, a content-type the decoder indexes) and DATA, allocating nothing
// per request.
func fixedH2Responder(c net.Conn) {
	var block bytes.Buffer
	enc := hpack.NewEncoder(&block)
	answer := func() []byte {
		block.Reset()
		enc.WriteField(hpack.HeaderField{Name: ":status", Value: "200"})
		enc.WriteField(hpack.HeaderField{Name: "content-type", Value: "application/json"})
		a := appendFrame(nil, http2.FrameHeaders, http2.FlagHeadersEndHeaders, 0, block.Bytes())
		return appendFrame(a, http2.FrameData, http2.FlagDataEndStream, 0, []byte(`{"ok":true}`))
	}
	first, again := answer(), answer() // the second's content-type indexed
	serveFixedH2(c, first, again)
}

// windowAllocations runs cfg against a raw server and counts the
// allocations of the measured window.
func windowAllocations(t *testing.T, cfg Config) (allocs uint64, successes int64) {
	return urlAllocations(t, rawServer(t, fixedResponder(okResponse)), cfg)
}

// urlAllocations runs cfg against url and counts the allocations of the
// measured window.
func urlAllocations(t *testing.T, url string, cfg Config) (allocs uint64, successes int64) {
	var before, after runtime.MemStats
	cfg.Progress = func(e Event) {
		// Counted over the window only: encoding the histograms at the end
		// allocates per distinct latency, not per request.
		switch e.Kind {
		case MeasureStart:
			runtime.ReadMemStats(&before)
		case MeasureEnd:
			runtime.ReadMemStats(&after)
		}
	}
	res := runLoad(t, url, cfg)
	return after.Mallocs - before.Mallocs, res.Successes
}

// A gRPC run with a pool of messages, each with its own metadata (a
// templated case's variants, e.g. a token per user), allocates nothing
// per call either: every request's header block, metadata included, is
// encoded before the window. The server answers from fixed bytes.
func TestGRPCMetadataPoolAllocatesNothingPerRequest(t *testing.T) {
	url := rawServer(t, fixedGRPCResponder)
	call := &GRPCCall{Method: "saas.Users/GetUser"}
	for i := range 1000 {
		call.Messages = append(call.Messages, []byte{8, byte(i % 100)})
		call.Metadata = append(call.Metadata, []Header{{Name: "authorization", Value: "Bearer token-" + strconv.Itoa(i)}})
	}
	allocs, successes := urlAllocations(t, url+"/", Config{Protocol: ProtoGRPC, GRPC: call, Connections: 2, Streams: 16, Duration: time.Second})
	checkNoAllocationsPerRequest(t, allocs, successes)
}

// fixedGRPCResponder answers each gRPC call (a stream its client ends
// with DATA) with the same HEADERS, an empty message and grpc-status 0
// trailers, its fields indexed by the client's decoder after the first
// answer, and a WINDOW_UPDATE for each call's DATA (which the engine
// parses in place); it allocates nothing per call.
func fixedGRPCResponder(c net.Conn) {
	var block bytes.Buffer
	enc := hpack.NewEncoder(&block)
	head := []hpack.HeaderField{{Name: ":status", Value: "200"}, {Name: "content-type", Value: "application/grpc"}}
	trailers := []hpack.HeaderField{{Name: "grpc-status", Value: "0"}}
	answer := func() []byte {
		var a []byte
		for _, fs := range [][]hpack.HeaderField{head, nil, trailers} {
			if fs == nil {
				a = appendFrame(a, http2.FrameData, 0, 0, []byte{0, 0, 0, 0, 0})
				continue
			}
			block.Reset()
			for _, f := range fs {
				enc.WriteField(f)
			}
			flags := http2.FlagHeadersEndHeaders
			if fs[0].Name == "grpc-status" {
				flags |= http2.FlagHeadersEndStream
			}
			a = appendFrame(a, http2.FrameHeaders, flags, 0, block.Bytes())
		}
		return a
	}
	first, again := answer(), answer() // the second's fields indexed
	serveFixedH2(c, first, again)
}

// serveFixedH2 answers each stream the client ends (END_STREAM on its
// HEADERS or DATA) with the frames of first, then of again, their stream
// identifiers patched in; acknowledges the client's SETTINGS and gives
// back at once the connection window its DATA uses. It allocates nothing
// per request.
func serveFixedH2(c net.Conn, first, again []byte) {
	setStreams := func(b []byte, id uint32) {
		for at := 0; at < len(b); at += 9 + (int(b[at])<<16 | int(b[at+1])<<8 | int(b[at+2])) {
			binary.BigEndian.PutUint32(b[at+5:], id)
		}
	}
	in := make([]byte, 1<<16)
	out := appendFrame(nil, http2.FrameSettings, 0, 0, nil)
	var update [4]byte
	start, end, prefaced, sentFirst := 0, 0, false, false
	for {
		n, err := c.Read(in[end:])
		if err != nil {
			return
		}
		end += n
		if !prefaced {
			if end < len(http2.ClientPreface) {
				continue
			}
			start, prefaced = len(http2.ClientPreface), true
		}
		for end-start >= 9 {
			length := int(in[start])<<16 | int(in[start+1])<<8 | int(in[start+2])
			if end-start < 9+length {
				break
			}
			typ, flags := http2.FrameType(in[start+3]), http2.Flags(in[start+4])
			id := binary.BigEndian.Uint32(in[start+5:]) & h2MaxStreamID
			if typ == http2.FrameSettings && flags&http2.FlagSettingsAck == 0 {
				out = appendFrame(out, http2.FrameSettings, http2.FlagSettingsAck, 0, nil)
			}
			if typ == http2.FrameData && length > 0 {
				binary.BigEndian.PutUint32(update[:], uint32(length))
				out = appendFrame(out, http2.FrameWindowUpdate, 0, 0, update[:])
			}
			// END_STREAM is the same bit in HEADERS and DATA.
			if (typ == http2.FrameHeaders || typ == http2.FrameData) && flags&http2.FlagDataEndStream != 0 {
				a := again
				if !sentFirst {
					a, sentFirst = first, true
				}
				setStreams(a, id)
				out = append(out, a...)
			}
			start += 9 + length
		}
		end = copy(in, in[start:end])
		start = 0
		if len(out) > 0 {
			if _, err := c.Write(out); err != nil {
				return
			}
			out = out[:0]
		}
	}
}

// checkNoAllocationsPerRequest fails t unless a window of successes
// (at least 1,000) allocated at most its fixed cost (timers, events: a
// few dozen allocations; a busy host that lets fewer requests through
// must not turn it into a per-request figure) and nothing per request.
func checkNoAllocationsPerRequest(t *testing.T, allocs uint64, successes int64) {
	t.Helper()
	const fixedCost = 200
	if successes < 1000 || allocs > uint64(fixedCost+successes/100) {
		t.Errorf("%d allocations for %d requests, want at most %d (the window's fixed cost) plus none per request",
			allocs, successes, fixedCost)
	}
}
