package load

import (
	"bytes"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// floodServer is a hostile HTTP/2 server: after the preface it sends its
// SETTINGS, then flood(c) reads and writes what it will.
func floodServer(t *testing.T, flood func(c net.Conn)) string {
	return rawServer(t, func(c net.Conn) {
		preface := make([]byte, len(http2.ClientPreface))
		if _, err := io.ReadFull(c, preface); err != nil {
			return
		}
		http2.NewFramer(c, nil).WriteSettings()
		flood(c)
	})
}

// repeatFrames writes frame over and over, in batches, until total bytes
// have gone or the client closed the connection. The floods of the tests
// are bounded so that the engine without its bounds takes tens of
// megabytes, not gigabytes; bench/h2-flood-rss measures them unbounded.
func repeatFrames(c net.Conn, frame []byte, total int) {
	batch := bytes.Repeat(frame, max(1, (64<<10)/len(frame)))
	for sent := 0; sent < total; sent += len(batch) {
		if _, err := c.Write(batch); err != nil {
			return
		}
	}
}

// frameBytes encodes one frame.
func frameBytes(write func(fr *http2.Framer)) []byte {
	var b bytes.Buffer
	write(http2.NewFramer(&b, nil))
	return b.Bytes()
}

// hugeLiteral starts a header field whose value claims size bytes: a
// literal without indexing, its name "x-big", its value's length, and none
// of its bytes.
func hugeLiteral(size uint64) []byte {
	b := []byte{0x00, 5, 'x', '-', 'b', 'i', 'g'}
	// The value's length as an hpack integer with a 7-bit prefix.
	if size < 127 {
		return append(b, byte(size))
	}
	b = append(b, 127)
	size -= 127
	for size >= 128 {
		b = append(b, byte(size%128)|0x80)
		size /= 128
	}
	return append(b, byte(size))
}

// headerFlood answers each request with a header block that never ends:
// HEADERS with start, then CONTINUATION frames of piece, up to total bytes.
func headerFlood(start, piece []byte, total int) func(c net.Conn) {
	return func(c net.Conn) {
		fr := http2.NewFramer(c, c)
		for {
			f, err := fr.ReadFrame()
			if err != nil {
				return
			}
			if h, ok := f.(*http2.HeadersFrame); ok {
				fr.WriteHeaders(http2.HeadersFrameParam{StreamID: h.StreamID, BlockFragment: start})
				repeatFrames(c, frameBytes(func(fr *http2.Framer) { fr.WriteContinuation(h.StreamID, false, piece) }), total)
				return
			}
		}
	}
}

// A server that never ends a header block: a literal that claims a
// gigabyte and sends it in CONTINUATION frames, a block of many small
// fields, a block of empty CONTINUATION frames. Each is refused at its
// bound (h2MaxHeaderListBytes, h2MaxHeaderBlockBytes): the connection is
// closed and its requests fail as h2_headers_too_large, saying why.
func TestH2LiarContinuationFlood(t *testing.T) {
	var small bytes.Buffer
	enc := hpack.NewEncoder(&small)
	for small.Len() < 16000 {
		enc.WriteField(hpack.HeaderField{Name: "x-many", Value: "v", Sensitive: true}) // never indexed: each a literal
	}
	for _, tc := range []struct {
		name, want   string
		start, piece []byte
	}{
		{"one huge literal", "header field of more than", hugeLiteral(1 << 30), bytes.Repeat([]byte("a"), 16000)},
		{"many small fields", "header list of more than", okHeaders(), small.Bytes()},
		{"empty frames", "header block of more than", okHeaders(), nil},
	} {
		url := floodServer(t, headerFlood(tc.start, tc.piece, 8<<20))
		res := runLoad(t, url, Config{Protocol: ProtoH2C, Connections: 1, Streams: 2, Duration: 300 * time.Millisecond, Timeout: 10 * time.Second})
		if res.Successes != 0 || res.Errors["h2_headers_too_large"] == 0 || !strings.Contains(res.H2.FirstProtocolError, tc.want) {
			t.Errorf("%s: %d successes, errors %v, protocol error %q; want h2_headers_too_large naming %q",
				tc.name, res.Successes, res.Errors, res.H2.FirstProtocolError, tc.want)
		}
	}
}

// A server that floods PING or SETTINGS frames and never reads (not even
// the client's preface SETTINGS): the
// acknowledgements the engine owes it pile up unsent, and past
// h2MaxQueuedControl of them the connection is closed, its requests
// failing as h2_flood.
func TestH2LiarControlFlood(t *testing.T) {
	for _, tc := range []struct {
		name  string
		frame []byte
	}{
		{"ping", frameBytes(func(fr *http2.Framer) { fr.WritePing(false, [8]byte{1}) })},
		{"settings", frameBytes(func(fr *http2.Framer) { fr.WriteSettings() })},
	} {
		url := floodServer(t, func(c net.Conn) { repeatFrames(c, tc.frame, 40<<20) })
		res := runLoad(t, url, Config{Protocol: ProtoH2C, Connections: 1, Streams: 2, Duration: 500 * time.Millisecond, Timeout: 10 * time.Second})
		if res.Successes != 0 || res.Errors["h2_flood"] == 0 || !strings.Contains(res.H2.FirstProtocolError, "control frames") {
			t.Errorf("%s flood: %d successes, errors %v, protocol error %q; want h2_flood",
				tc.name, res.Successes, res.Errors, res.H2.FirstProtocolError)
		}
	}
}
