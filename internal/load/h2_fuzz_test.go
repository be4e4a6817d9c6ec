package load

import (
	"bytes"
	"context"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// fuzzH2Worker is a worker of an HTTP/2 run that never dials: its one
// socket is put open by hand before each input (h2feed).
func fuzzH2Worker(t testing.TB) *worker {
	r, err := prepare(context.Background(), Config{URL: "http://127.0.0.1:9/", Protocol: ProtoH2C,
		Connections: 1, Streams: 4, Duration: time.Hour, Timeout: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, w := range r.workers {
			w.close()
		}
	})
	r.schedule()
	return r.workers[0]
}

// h2feed opens w's socket without a descriptor, starts a request on each
// of its lanes, and hands it the server's bytes in reads of chunk bytes,
// as readSock does; it stops where the engine closed the connection. New
// requests are not started (the run is stopped), so nothing dials.
func h2feed(w *worker, data []byte, chunk int) {
	s := &w.socks[0]
	now := nanotime()
	w.r.stop.Store(true)
	if s.state != sockDown {
		w.failSock(s, classClosed, now)
	}
	w.r.stop.Store(false)
	s.draining, s.retryAt = false, 0
	s.startSession()
	for i := range w.conns {
		if w.conns[i].state != connBusy {
			w.begin(i, now, now)
		}
	}
	w.r.stop.Store(true)
	gen := s.gen
	for len(data) > 0 && s.gen == gen {
		if s.inStart > 0 && (s.inEnd == len(s.in) || s.inStart == s.inEnd) {
			s.inEnd = copy(s.in, s.in[s.inStart:s.inEnd])
			s.inStart = 0
		}
		n := copy(s.in[s.inEnd:], data[:min(chunk, len(data))])
		if n == 0 {
			break // a frame larger than the buffer: handleFrames refused it
		}
		data = data[n:]
		s.inEnd += n
		if !w.handleFrames(s, now) {
			break
		}
	}
	w.dirty, s.dirty = w.dirty[:0], false
}

// h2Seeds are whole server answers: SETTINGS, then responses to streams
// 1 and 3, split and padded, with trailers, a PING, a WINDOW_UPDATE, a
// reset, a GOAWAY.
func h2Seeds() [][]byte {
	var head, trailers bytes.Buffer
	enc := hpack.NewEncoder(&head)
	enc.WriteField(hpack.HeaderField{Name: ":status", Value: "200"})
	enc.WriteField(hpack.HeaderField{Name: "content-type", Value: "application/json"})
	hpack.NewEncoder(&trailers).WriteField(hpack.HeaderField{Name: "grpc-status", Value: "0"})
	frames := func(write func(fr *http2.Framer)) []byte {
		var b bytes.Buffer
		fr := http2.NewFramer(&b, nil)
		fr.WriteSettings(http2.Setting{ID: http2.SettingMaxConcurrentStreams, Val: 100})
		write(fr)
		return b.Bytes()
	}
	return [][]byte{
		frames(func(fr *http2.Framer) {
			fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: head.Bytes(), EndHeaders: true})
			fr.WriteData(1, true, []byte(`{"ok":true}`))
			fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 3, BlockFragment: head.Bytes(), EndStream: true, EndHeaders: true})
		}),
		frames(func(fr *http2.Framer) {
			b := head.Bytes()
			fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: b[:3], PadLength: 4, Priority: http2.PriorityParam{Weight: 7}})
			fr.WriteContinuation(1, true, b[3:])
			fr.WriteDataPadded(1, false, []byte("x"), make([]byte, 9))
			fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: trailers.Bytes(), EndStream: true, EndHeaders: true})
			fr.WritePing(false, [8]byte{1, 2})
			fr.WriteWindowUpdate(0, 1000)
			fr.WriteRSTStream(3, http2.ErrCodeCancel)
			fr.WriteGoAway(1, http2.ErrCodeNo, nil)
		}),
		frames(func(fr *http2.Framer) {
			fr.WriteHeaders(http2.HeadersFrameParam{StreamID: 1, BlockFragment: []byte{0x00, 5, 'x', '-', 'b', 'i', 'g', 0x7f, 0xff, 0xff, 0x03}})
		}),
	}
}

// FuzzH2Frames: whatever a server sends, the HTTP/2 reader neither panics
// nor holds more than its bounds allow: a read buffer of h2InBytes, a
// header block's decoding bounded by h2MaxHeaderListBytes, control frames
// owed at most h2MaxQueuedControl of them; its lanes and streams agree.
func FuzzH2Frames(f *testing.F) {
	for _, s := range h2Seeds() {
		f.Add(s, uint16(9))
		f.Add(s, uint16(h2InBytes-1))
	}
	w := fuzzH2Worker(f)
	f.Fuzz(func(t *testing.T, data []byte, chunk uint16) {
		h2feed(w, data, max(1, int(chunk)))
		s := &w.socks[0]
		busy := 0
		for i := range w.conns {
			if w.conns[i].state == connBusy {
				busy++
			}
		}
		// What the engine owes: the preface, its SETTINGS and window,
		// one request per lane, and the control frames it queued (PING
		// acknowledgements are the largest, 17 bytes).
		owed := len(h2Preface) + 64 + len(w.conns)*1024 + (h2MaxQueuedControl+1)*17
		switch {
		case s.active < 0 || s.active > len(w.conns) || s.active > busy:
			t.Fatalf("%d active streams with %d lanes busy of %d", s.active, busy, len(w.conns))
		case len(s.out.b) > owed:
			t.Fatalf("%d bytes queued for the server, more than the %d the bounds allow", len(s.out.b), owed)
		case s.inStart > s.inEnd || s.inEnd > len(s.in):
			t.Fatalf("read buffer bounds %d..%d of %d", s.inStart, s.inEnd, len(s.in))
		case s.state == sockOpen && s.hdrListBytes > h2MaxHeaderListBytes:
			t.Fatalf("a header list of %d bytes decoded on an open connection", s.hdrListBytes)
		}
	})
}
