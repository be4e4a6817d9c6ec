package load

import (
	"encoding/binary"
	"errors"
	"fmt"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
	"golang.org/x/sys/unix"
)

// HTTP/2 in the event loop. A worker's connections are then its sockets
// (h2sock), and each socket carries Streams lanes: a lane is a conn entry
// that holds one request at a time, as an HTTP/1.1 connection does, so the
// closed and open loops, the timeouts and the accounting are the same code
// over lanes. Lane i rides socket i / Streams.
//
// A request's frames (HEADERS, and DATA for a body) are appended to the
// socket's out buffer as they are (appendFrame); the rarer frames
// (SETTINGS, WINDOW_UPDATE, PING, RST_STREAM) are written there by x/net/
// http2's Framer. The buffer goes to the socket once per turn of the event
// loop (flushDirty), so that the requests of one turn share a write. Frames
// are read into the socket's in buffer; a response's frames (HEADERS,
// CONTINUATION, DATA) are parsed where they lie, with the Framer's checks,
// and the rest are handed whole to the Framer, one at a time. Header
// blocks are decoded with the connection's hpack decoder; requests' header
// blocks are encoded once, before the run, without the dynamic table, so
// that any connection may send them as they are.

// The flow-control windows the engine grants the server, stated in the
// result: the stream window in the SETTINGS it opens with, the connection
// window by a WINDOW_UPDATE right after. Each is topped up when half used.
const (
	h2StreamWindowBytes = 1 << 24 // 16 MiB
	h2ConnWindowBytes   = 1 << 30 // 1 GiB
	// h2DefaultWindow and h2DefaultFrame are HTTP/2's initial values,
	// until the server's SETTINGS say otherwise.
	h2DefaultWindow = 65535
	h2DefaultFrame  = 16384
	// h2InBytes is a socket's read buffer: the largest frame it accepts
	// (the default 16 KiB, which its SETTINGS leave as it is) fits four
	// times over.
	h2InBytes = 64 << 10
	// h2MaxStreamID is the last stream identifier a connection may use.
	h2MaxStreamID = 1<<31 - 1
)

// Socket states.
const (
	sockDown uint8 = iota
	sockDialing
	sockOpen
)

var h2Preface = []byte(http2.ClientPreface)

// h2sock is one HTTP/2 connection of a worker.
type h2sock struct {
	id         int32
	fd         int
	state      uint8
	openedOnce bool
	wantOut    bool
	dirty      bool
	// ready: the server's first SETTINGS came (the predial waits for it).
	ready bool
	// draining: no new stream goes on this connection (GOAWAY, or its
	// stream identifiers ran out); it closes when its last stream ends.
	draining bool
	// gen changes each time the socket closes, so a read loop notices
	// that a frame it handled closed it.
	gen     uint32
	started int64 // when the dial began
	retryAt int64
	tls     *tlsSession

	fr  *http2.Framer
	out sockBuf
	src frameSrc
	in  []byte
	// inStart and inEnd bound the bytes read and not yet parsed.
	inStart, inEnd int
	dec            *hpack.Decoder

	// The header block being decoded: its lane (-1: a stream no lane
	// holds any more), whether it ends the stream, and the fields the
	// engine reads.
	hdrLane int32
	hdrEnd  bool
	// hdrKeep is the lane's parser that keeps the block's fields (a
	// flow's step with captures, its response's head), nil when none.
	hdrKeep *respParser
	// hdrOpen is the stream whose header block awaits CONTINUATION
	// frames, 0 when none.
	hdrOpen   uint32
	hdrStatus int
	hdrGRPC   int
	// hdrBlockBytes counts the open block's frames as sent, hdrListBytes
	// its fields as decoded (h2_limits.go bounds both).
	hdrBlockBytes int
	hdrListBytes  int
	// ctrlQueued counts the control frames queued since the out buffer
	// last went out whole (h2MaxQueuedControl bounds it).
	ctrlQueued int

	// slots maps a stream to its lane: slot (id>>1)&slotMask holds lane+1.
	slots      []int32
	slotMask   uint32
	nextStream uint32
	active     int
	maxStreams uint32 // the server's SETTINGS_MAX_CONCURRENT_STREAMS
	waiting    []int32
	blocked    []int32

	sendWin      int64 // the connection's send window
	peerInitWin  int64 // the server's SETTINGS_INITIAL_WINDOW_SIZE
	peerMaxFrame int
	recvUnacked  int64 // connection-level bytes received since the last WINDOW_UPDATE
}

// appendFrame appends a frame to b: what x/net's Framer writes for
// HEADERS and DATA without padding or priority, without its copy through
// an io.Writer.
func appendFrame(b []byte, typ http2.FrameType, flags http2.Flags, stream uint32, payload []byte) []byte {
	n := len(payload)
	b = append(b, byte(n>>16), byte(n>>8), byte(n), byte(typ), byte(flags),
		byte(stream>>24), byte(stream>>16), byte(stream>>8), byte(stream))
	return append(b, payload...)
}

// sockBuf collects the frames the Framer writes.
type sockBuf struct{ b []byte }

func (s *sockBuf) Write(p []byte) (int, error) {
	s.b = append(s.b, p...)
	return len(p), nil
}

// frameSrc hands the Framer exactly one frame's bytes.
type frameSrc struct {
	b   []byte
	off int
}

func (f *frameSrc) Read(p []byte) (int, error) {
	if f.off >= len(f.b) {
		return 0, errFrameShort
	}
	n := copy(p, f.b[f.off:])
	f.off += n
	return n, nil
}

var errFrameShort = errors.New("frame shorter than its header says")

// h2lane is the HTTP/2 state of a lane's request.
type h2lane struct {
	stream      uint32
	sendWin     int64
	bodySent    int
	recvUnacked int64
	queued      bool // waits for its socket (opening, or at its stream limit)
	stalled     bool // its body waits for the server's flow-control window
	gotHeaders  bool
	status      int
	grpc        int // grpc-status, -1 when none came
}

// h2Counts is what a worker counted of HTTP/2 beyond the requests.
type h2Counts struct {
	flowStalled, goaways, rstReceived int64
	peerMaxStreams                    uint32
	peerInitWin                       int64
}

// newSocks creates a worker's HTTP/2 sockets.
func (w *worker) newSocks(n, streams int) {
	w.socks = make([]h2sock, n)
	size := 4
	for size < 4*streams {
		size <<= 1
	}
	for i := range w.socks {
		s := &w.socks[i]
		s.id, s.fd = int32(i), -1
		s.slots = make([]int32, size)
		s.slotMask = uint32(size - 1)
		s.in = make([]byte, h2InBytes)
		s.waiting = make([]int32, 0, streams)
		s.blocked = make([]int32, 0, streams)
	}
	w.h2.peerMaxStreams = h2MaxStreamID
}

// sockOf is lane i's socket.
func (w *worker) sockOf(i int) *h2sock { return &w.socks[i/w.r.streams] }

// h2begin starts lane i's request: on its socket when it is open and has a
// stream to spare, else queued.
func (w *worker) h2begin(i int, now int64) {
	c := &w.conns[i]
	c.state = connBusy
	c.h2 = h2lane{grpc: -1}
	s := w.sockOf(i)
	s.waiting = append(s.waiting, int32(i))
	c.h2.queued = true
	switch s.state {
	case sockDown:
		if now >= s.retryAt && !s.draining {
			w.dialSock(s, now)
		}
	case sockOpen:
		w.pump(s, now)
	}
}

// pump starts the queued lanes the socket has streams for.
func (w *worker) pump(s *h2sock, now int64) {
	if s.state != sockOpen || s.draining {
		return
	}
	k := 0
	for ; k < len(s.waiting) && uint32(s.active) < s.maxStreams; k++ {
		if s.nextStream > h2MaxStreamID-2 {
			s.draining = true // out of identifiers: reopen when idle
			break
		}
		w.openStream(s, int(s.waiting[k]), now)
	}
	s.waiting = s.waiting[:copy(s.waiting, s.waiting[k:])]
}

// openStream sends lane i's request on a new stream of s.
func (w *worker) openStream(s *h2sock, i int, now int64) {
	c := &w.conns[i]
	id := s.nextStream
	for s.slots[(id>>1)&s.slotMask] != 0 {
		id += 2 // that slot's stream is still open: skip the identifier
	}
	s.nextStream = id + 2
	s.slots[(id>>1)&s.slotMask] = int32(i) + 1
	s.active++
	c.h2.queued = false
	c.h2.stream = id
	c.h2.sendWin = s.peerInitWin
	c.sent = now
	req := c.req
	// A block larger than a frame (a flow's step carrying long captured
	// values) goes on in CONTINUATION frames.
	block := req.h2block
	first := block[:min(len(block), s.peerMaxFrame)]
	var flags http2.Flags
	if len(first) == len(block) {
		flags = http2.FlagHeadersEndHeaders
	}
	if len(req.body) == 0 {
		flags |= http2.FlagHeadersEndStream
	}
	s.out.b = appendFrame(s.out.b, http2.FrameHeaders, flags, id, first)
	for rest := block[len(first):]; len(rest) > 0; {
		n := min(len(rest), s.peerMaxFrame)
		var cf http2.Flags
		if n == len(rest) {
			cf = http2.FlagHeadersEndHeaders
		}
		s.out.b = appendFrame(s.out.b, http2.FrameContinuation, cf, id, rest[:n])
		rest = rest[n:]
	}
	if len(req.body) > 0 {
		w.sendBody(s, i)
	}
	w.markDirty(s)
}

// sendBody sends what the flow-control windows allow of lane i's body.
func (w *worker) sendBody(s *h2sock, i int) {
	c := &w.conns[i]
	body := c.req.body
	for c.h2.bodySent < len(body) {
		n := int(min(int64(len(body)-c.h2.bodySent), s.sendWin, c.h2.sendWin, int64(s.peerMaxFrame)))
		if n <= 0 {
			if !c.h2.stalled {
				c.h2.stalled = true
				s.blocked = append(s.blocked, int32(i))
			}
			return
		}
		end := c.h2.bodySent + n
		var flags http2.Flags
		if end == len(body) {
			flags = http2.FlagDataEndStream
		}
		s.out.b = appendFrame(s.out.b, http2.FrameData, flags, c.h2.stream, body[c.h2.bodySent:end])
		c.h2.bodySent = end
		s.sendWin -= int64(n)
		c.h2.sendWin -= int64(n)
	}
	c.h2.stalled = false
}

// unblock retries the bodies that waited for a window.
func (w *worker) unblock(s *h2sock) {
	k := 0
	for _, l := range s.blocked {
		c := &w.conns[l]
		if c.state != connBusy || c.h2.queued || !c.h2.stalled {
			continue // ended meanwhile
		}
		c.h2.stalled = false
		w.sendBody(s, int(l))
		if c.h2.stalled {
			s.blocked[k] = l
			k++
		}
	}
	s.blocked = s.blocked[:k]
	w.markDirty(s)
}

func (w *worker) markDirty(s *h2sock) {
	if !s.dirty && len(s.out.b) > 0 {
		s.dirty = true
		w.dirty = append(w.dirty, s.id)
	}
}

// flushDirty writes the frames of this turn of the loop.
func (w *worker) flushDirty(now int64) {
	for _, id := range w.dirty {
		s := &w.socks[id]
		s.dirty = false
		if s.state == sockOpen {
			w.flushSock(s, now)
		}
	}
	w.dirty = w.dirty[:0]
}

// flushSock sends what the socket takes of its frames; the rest waits for
// it to be writable.
func (w *worker) flushSock(s *h2sock, now int64) {
	var errno unix.Errno
	pending := false
	if s.tls != nil {
		if len(s.out.b) > 0 {
			_, errno = s.tls.write(s.out.b)
			s.out.b = s.out.b[:0]
		} else {
			errno = s.tls.fd.flush()
		}
		pending = s.tls.fd.pending()
	} else {
		for len(s.out.b) > 0 {
			n, e := rawWrite(s.fd, s.out.b)
			if n > 0 {
				s.out.b = s.out.b[:copy(s.out.b, s.out.b[n:])]
			}
			if e != 0 {
				errno = e
				break
			}
		}
		pending = len(s.out.b) > 0
	}
	if errno != 0 && errno != unix.EAGAIN {
		w.failSock(s, classify(errno), now)
		return
	}
	if !pending {
		s.ctrlQueued = 0 // the server read all it was owed
	}
	w.setSockOut(s, pending)
}

func (w *worker) setSockOut(s *h2sock, want bool) {
	if s.wantOut != want {
		w.poll.setOut(s.fd, s.id, want)
		s.wantOut = want
	}
}

// dialSock opens socket s without blocking.
func (w *worker) dialSock(s *h2sock, now int64) {
	fd, err := newSocket(w.family)
	if err != nil {
		w.failOpenSock(s, classify(err), now)
		return
	}
	s.fd = fd
	s.started = now
	err = unix.Connect(fd, w.sa)
	if err != nil && err != unix.EINPROGRESS {
		w.closeSock(s)
		w.failOpenSock(s, classify(err), now)
		return
	}
	s.state = sockDialing
	s.wantOut = true
	if err := w.poll.add(fd, s.id); err != nil {
		w.closeSock(s)
		w.failOpenSock(s, classOther, now)
	}
}

// failOpenSock fails the lanes waiting for a socket that could not be
// opened and holds the socket back for retryBackoff.
func (w *worker) failOpenSock(s *h2sock, class errorClass, now int64) {
	s.retryAt = now + int64(retryBackoff)
	for _, l := range s.waiting {
		c := &w.conns[l]
		c.h2.queued = false
		c.state = connDown
		c.retryAt = s.retryAt
		w.finish(int(l), now, false, class, 0)
	}
	s.waiting = s.waiting[:0]
}

// onSockDialed completes a connect: the TLS handshake if any, then the
// connection preface, SETTINGS and the connection window.
func (w *worker) onSockDialed(s *h2sock, now int64) {
	if err := w.dialed(s.fd, &s.openedOnce, now); err != nil {
		w.closeSock(s)
		w.failOpenSock(s, classify(err), now)
		return
	}
	w.setSockOut(s, false)
	if w.r.tlsConfig != nil {
		ok, class := w.handshake(s.fd, &s.tls, now)
		if ok && s.tls.conn.ConnectionState().NegotiatedProtocol != "h2" {
			w.tlsFailures++
			w.r.noteTLSError(errors.New("the server did not agree to HTTP/2 through ALPN (it offered no h2); load it as HTTP/1.1 (without --h2)"))
			ok, class = false, classTLS
		}
		if !ok {
			w.closeSock(s)
			w.failOpenSock(s, class, nanotime())
			return
		}
		now = nanotime()
	}
	s.startSession()
	w.pump(s, now)
	w.markDirty(s)
}

// startSession makes s an open connection whose server has said nothing
// yet: a fresh framer and hpack table, HTTP/2's initial values, and the
// preface, the engine's SETTINGS and its connection window queued.
func (s *h2sock) startSession() {
	s.state = sockOpen
	s.ready = false
	s.out.b = append(s.out.b[:0], h2Preface...)
	s.src = frameSrc{}
	s.fr = http2.NewFramer(&s.out, &s.src)
	s.fr.SetReuseFrames()
	s.dec = hpack.NewDecoder(4096, s.onField) // a new connection's table starts empty
	s.dec.SetMaxStringLength(h2MaxHeaderListBytes)
	s.ctrlQueued = 0
	s.inStart, s.inEnd = 0, 0
	s.hdrOpen = 0
	s.nextStream, s.active = 1, 0
	s.maxStreams = h2MaxStreamID
	s.sendWin, s.peerInitWin, s.peerMaxFrame = h2DefaultWindow, h2DefaultWindow, h2DefaultFrame
	s.recvUnacked = 0
	s.fr.WriteSettings(
		http2.Setting{ID: http2.SettingEnablePush, Val: 0},
		http2.Setting{ID: http2.SettingInitialWindowSize, Val: h2StreamWindowBytes},
		http2.Setting{ID: http2.SettingMaxHeaderListSize, Val: h2MaxHeaderListBytes},
	)
	s.fr.WriteWindowUpdate(0, h2ConnWindowBytes-h2DefaultWindow)
}

// onField reads the fields of the header block being decoded.
func (s *h2sock) onField(f hpack.HeaderField) {
	s.hdrListBytes += int(f.Size())
	if k := s.hdrKeep; k != nil && f.Name != "" && f.Name[0] != ':' && s.hdrListBytes <= h2MaxHeaderListBytes {
		// Kept as an HTTP/1.1 head's lines, which the captures read.
		k.kept = append(k.kept, f.Name...)
		k.kept = append(k.kept, ": "...)
		k.kept = append(k.kept, f.Value...)
		k.kept = append(k.kept, "\r\n"...)
	}
	switch f.Name {
	case ":status":
		s.hdrStatus = atoi3(f.Value)
	case "grpc-status":
		s.hdrGRPC = atoiSmall(f.Value)
	}
}

// atoi3 reads a three-digit status, 0 when it is not one.
func atoi3(v string) int {
	if len(v) != 3 {
		return 0
	}
	n := 0
	for i := range 3 {
		if v[i] < '0' || v[i] > '9' {
			return 0
		}
		n = n*10 + int(v[i]-'0')
	}
	return n
}

// atoiSmall reads a small decimal number, grpcUnknownStatus when it is not
// one.
func atoiSmall(v string) int {
	if len(v) == 0 || len(v) > 3 {
		return grpcUnknownStatus
	}
	n := 0
	for i := range len(v) {
		if v[i] < '0' || v[i] > '9' {
			return grpcUnknownStatus
		}
		n = n*10 + int(v[i]-'0')
	}
	return n
}

// onSockEvent handles readiness of socket s.
func (w *worker) onSockEvent(s *h2sock, events uint32, now int64) {
	switch s.state {
	case sockDialing:
		w.onSockDialed(s, now)
	case sockOpen:
		if events&evOut != 0 {
			w.flushSock(s, now)
			if s.state != sockOpen {
				return
			}
		}
		if events&(evIn|evErr) != 0 {
			w.readSock(s, now)
		}
	}
}

// readSock reads and handles the frames that have come.
func (w *worker) readSock(s *h2sock, now int64) {
	gen := s.gen
	for {
		if s.inStart > 0 && (s.inEnd == len(s.in) || s.inStart == s.inEnd) {
			s.inEnd = copy(s.in, s.in[s.inStart:s.inEnd])
			s.inStart = 0
		}
		var n int
		var errno unix.Errno
		space := len(s.in) - s.inEnd
		if s.tls != nil {
			n, errno = s.tls.readInto(s.in[s.inEnd:])
		} else {
			n, errno = rawRead(s.fd, s.in[s.inEnd:])
		}
		switch {
		case errno == unix.EAGAIN:
			return
		case errno != 0:
			w.failSock(s, classify(errno), now)
			return
		case n == 0:
			w.failSock(s, classClosed, now)
			return
		}
		s.inEnd += n
		if !w.handleFrames(s, now) || s.gen != gen {
			return
		}
		if n < space && (s.tls == nil || s.tls.drained()) {
			// The read drained the socket: back to the loop, whose
			// writes go out now and whose poller reports the socket again
			// if more has come meanwhile (it is level-triggered). A read
			// until EAGAIN costs one more system call per wake-up and
			// finds nothing most of the time (measured: reads per request
			// 0.9 → 0.4 against net/http's server, epoll waits alike).
			// crypto/tls may hold decrypted bytes the socket no longer
			// has, so on its record layer TLS reads on until it would
			// block.
			return
		}
	}
}

// handleFrames handles the whole frames in the read buffer; false when the
// socket was closed. DATA, HEADERS and CONTINUATION, a response's frames,
// and WINDOW_UPDATE are parsed here, in place, with the checks x/net's Framer makes of them
// (readFrame); the rest go to the Framer.
func (w *worker) handleFrames(s *h2sock, now int64) bool {
	gen := s.gen
	for s.inEnd-s.inStart >= 9 {
		b := s.in[s.inStart:s.inEnd]
		length := int(b[0])<<16 | int(b[1])<<8 | int(b[2])
		if length > h2DefaultFrame {
			// The engine's SETTINGS leave SETTINGS_MAX_FRAME_SIZE at its default.
			w.protocolError(s, "a frame larger than the SETTINGS allow", now)
			return false
		}
		size := 9 + length
		if len(b) < size {
			break
		}
		typ, flags := http2.FrameType(b[3]), http2.Flags(b[4])
		id := binary.BigEndian.Uint32(b[5:9]) & h2MaxStreamID
		s.inStart += size
		if s.hdrOpen != 0 && (typ != http2.FrameContinuation || id != s.hdrOpen) {
			w.protocolError(s, fmt.Sprintf("a %v frame on stream %d inside the header block of stream %d (only CONTINUATION may follow it)", typ, id, s.hdrOpen), now)
			return false
		}
		switch typ {
		case http2.FrameData:
			w.onData(s, id, flags, b[9:size], now)
		case http2.FrameHeaders:
			w.onHeaders(s, id, flags, b[9:size], now)
		case http2.FrameContinuation:
			if s.hdrOpen == 0 {
				w.protocolError(s, fmt.Sprintf("a CONTINUATION frame on stream %d outside a header block", id), now)
				return false
			}
			w.onHeaderBlock(s, flags, b[9:size], now)
		case http2.FrameWindowUpdate:
			// In place too: a server may send one per request (x/net's
			// Framer would allocate a WindowUpdateFrame for each).
			if length != 4 {
				w.protocolError(s, fmt.Sprintf("a WINDOW_UPDATE frame of %d bytes, not 4", length), now)
				return false
			}
			inc := binary.BigEndian.Uint32(b[9:13]) & h2MaxStreamID
			if inc == 0 && id == 0 {
				w.protocolError(s, "a WINDOW_UPDATE of 0 on the connection", now)
				return false
			}
			w.onWindowUpdate(s, id, inc) // 0 on a stream adds nothing: skipped, as x/net's stream error was
		default:
			s.src.b, s.src.off = b[:size], 0
			f, err := s.fr.ReadFrame()
			if err != nil {
				var se http2.StreamError
				if errors.As(err, &se) {
					continue // a stream the server got wrong: its lane times out
				}
				w.protocolError(s, err.Error(), now)
				return false
			}
			w.onFrame(s, f, now)
		}
		if s.gen != gen {
			return false
		}
	}
	if s.inStart == s.inEnd {
		s.inStart, s.inEnd = 0, 0
	}
	return true
}

// unpad strips a padded frame's pad length and padding from its payload;
// ok false when the padding is longer than the payload.
func unpad(flags http2.Flags, p []byte) (_ []byte, ok bool) {
	if flags&http2.FlagDataPadded == 0 { // PADDED is the same bit in HEADERS
		return p, true
	}
	if len(p) == 0 || int(p[0]) > len(p)-1 {
		return nil, false
	}
	return p[1 : len(p)-int(p[0])], true
}

// protocolError closes a connection the server broke the protocol on.
func (w *worker) protocolError(s *h2sock, what string, now int64) {
	w.r.noteProtocolError(what)
	w.failSock(s, classOther, now)
}

// laneOf is the lane of stream id on s, -1 when none holds it.
func (w *worker) laneOf(s *h2sock, id uint32) int32 {
	l := s.slots[(id>>1)&s.slotMask] - 1
	if l >= 0 && w.conns[l].h2.stream == id && w.conns[l].state == connBusy && !w.conns[l].h2.queued {
		return l
	}
	return -1
}

// onWindowUpdate raises the send window of the connection (id 0) or of
// stream id by inc.
func (w *worker) onWindowUpdate(s *h2sock, id, inc uint32) {
	if id == 0 {
		s.sendWin += int64(inc)
	} else if l := w.laneOf(s, id); l >= 0 {
		w.conns[l].h2.sendWin += int64(inc)
	}
	if len(s.blocked) > 0 {
		w.unblock(s)
	}
}

// onFrame handles one frame.
func (w *worker) onFrame(s *h2sock, f http2.Frame, now int64) {
	switch f := f.(type) {
	case *http2.SettingsFrame:
		if f.IsAck() {
			return
		}
		f.ForeachSetting(func(st http2.Setting) error {
			switch st.ID {
			case http2.SettingMaxConcurrentStreams:
				s.maxStreams = st.Val
				w.h2.peerMaxStreams = min(w.h2.peerMaxStreams, st.Val)
			case http2.SettingInitialWindowSize:
				delta := int64(st.Val) - s.peerInitWin
				s.peerInitWin = int64(st.Val)
				w.h2.peerInitWin = s.peerInitWin
				w.eachActive(s, func(c *conn) { c.h2.sendWin += delta })
			case http2.SettingMaxFrameSize:
				s.peerMaxFrame = int(st.Val)
			}
			return nil
		})
		s.fr.WriteSettingsAck()
		if !w.queuedControl(s, now) {
			return
		}
		s.ready = true
		w.unblock(s)
		w.pump(s, now)
		w.markDirty(s)
	case *http2.PingFrame:
		if !f.IsAck() {
			s.fr.WritePing(true, f.Data)
			if w.queuedControl(s, now) {
				w.markDirty(s)
			}
		}
	case *http2.RSTStreamFrame:
		w.h2.rstReceived++
		if l := w.laneOf(s, f.StreamID); l >= 0 {
			w.endStream(s, int(l), now, false, classRSTStream, 0)
		}
	case *http2.GoAwayFrame:
		w.onGoAway(s, f.LastStreamID, now)
	case *http2.PushPromiseFrame:
		w.protocolError(s, "a PUSH_PROMISE although push was turned off", now)
	}
}

// onData consumes a DATA frame (its payload p, padding included) and tops
// up the windows it used.
func (w *worker) onData(s *h2sock, id uint32, flags http2.Flags, p []byte, now int64) {
	if id == 0 {
		w.protocolError(s, "a DATA frame on stream 0", now)
		return
	}
	payload, ok := unpad(flags, p)
	if !ok {
		w.protocolError(s, "a DATA frame's padding longer than the frame", now)
		return
	}
	size := int64(len(p)) // flow control counts the padding too
	s.recvUnacked += size
	if s.recvUnacked >= h2ConnWindowBytes/2 {
		s.fr.WriteWindowUpdate(0, uint32(s.recvUnacked))
		s.recvUnacked = 0
		if !w.queuedControl(s, now) {
			return
		}
		w.markDirty(s)
	}
	l := w.laneOf(s, id)
	if l < 0 {
		return // a stream already ended (timed out): only the connection's window counts
	}
	c := &w.conns[l]
	if c.parser.keep {
		c.parser.keepBytes(payload)
	}
	if flags&http2.FlagDataEndStream != 0 {
		w.completeStream(s, int(l), now)
		return
	}
	c.h2.recvUnacked += size
	if c.h2.recvUnacked >= h2StreamWindowBytes/2 {
		s.fr.WriteWindowUpdate(id, uint32(c.h2.recvUnacked))
		c.h2.recvUnacked = 0
		if w.queuedControl(s, now) {
			w.markDirty(s)
		}
	}
}

// onHeaders starts a header block: a response's head, or its trailers.
func (w *worker) onHeaders(s *h2sock, id uint32, flags http2.Flags, p []byte, now int64) {
	if id == 0 {
		w.protocolError(s, "a HEADERS frame on stream 0", now)
		return
	}
	p, ok := unpad(flags, p)
	if ok && flags&http2.FlagHeadersPriority != 0 {
		ok = len(p) >= 5
		p = p[min(5, len(p)):]
	}
	if !ok {
		// The block cannot be decoded, and the connection's hpack table
		// with it: the connection cannot go on.
		w.protocolError(s, fmt.Sprintf("a HEADERS frame on stream %d shorter than its padding and priority", id), now)
		return
	}
	s.hdrLane = w.laneOf(s, id)
	s.hdrEnd = flags&http2.FlagHeadersEndStream != 0
	s.hdrKeep = nil
	if l := s.hdrLane; l >= 0 && w.conns[l].parser.keep && !w.conns[l].h2.gotHeaders {
		s.hdrKeep = &w.conns[l].parser
		s.hdrKeep.kept = s.hdrKeep.kept[:0] // an interim response's fields go
	}
	s.hdrStatus, s.hdrGRPC = 0, -1
	s.hdrBlockBytes, s.hdrListBytes = 0, 0
	s.hdrOpen = id
	w.onHeaderBlock(s, flags, p, now)
}

// onHeaderBlock decodes a fragment of the open header block (from HEADERS
// or CONTINUATION) and acts on the block when flags end it.
func (w *worker) onHeaderBlock(s *h2sock, flags http2.Flags, frag []byte, now int64) {
	if !w.headerFragment(s, frag, now) {
		return
	}
	if flags&http2.FlagHeadersEndHeaders == 0 {
		return
	}
	s.hdrOpen = 0
	if err := s.dec.Close(); err != nil {
		w.protocolError(s, "hpack: "+err.Error(), now)
		return
	}
	w.endHeaders(s, now)
}

// endHeaders acts on a whole header block: the response's head, or its
// trailers.
func (w *worker) endHeaders(s *h2sock, now int64) {
	l := s.hdrLane
	if l < 0 {
		return
	}
	c := &w.conns[l]
	if !c.h2.gotHeaders {
		if s.hdrStatus >= 100 && s.hdrStatus < 200 && !s.hdrEnd {
			return // an interim response: the real one follows
		}
		c.h2.gotHeaders = true
		c.h2.status = s.hdrStatus
		if s.hdrKeep != nil {
			s.hdrKeep.headLen = len(s.hdrKeep.kept)
		}
	}
	if s.hdrGRPC >= 0 {
		c.h2.grpc = s.hdrGRPC
	}
	if s.hdrEnd {
		w.completeStream(s, int(l), now)
	}
}

// completeStream counts a whole response on lane i.
func (w *worker) completeStream(s *h2sock, i int, now int64) {
	c := &w.conns[i]
	if w.r.grpc {
		ok, class, status := w.grpcOutcome(c)
		w.endStream(s, i, now, ok, class, status)
		return
	}
	if c.h2.status == 0 {
		w.endStream(s, i, now, false, classOther, 0)
		return
	}
	ok, class, status := c.req.success[c.h2.status], classOther, c.h2.status
	if ok && c.parser.keep && !c.flow.capture(&w.r.flow.steps[c.flow.step], &c.parser) {
		ok, class, status = false, classCapture, 0
	}
	w.endStream(s, i, now, ok, class, status)
}

// endStream frees lane i's stream and moves the lane on. A stream the
// server has not ended (a timeout) is reset first.
func (w *worker) endStream(s *h2sock, i int, now int64, ok bool, class errorClass, status int) {
	w.releaseStream(s, i)
	w.conns[i].state = connIdle
	w.finish(i, now, ok, class, status)
	w.afterStream(s, now)
	w.next(i, now)
}

// releaseStream frees lane i's stream slot.
func (w *worker) releaseStream(s *h2sock, i int) {
	c := &w.conns[i]
	s.slots[(c.h2.stream>>1)&s.slotMask] = 0
	s.active--
	if s.hdrOpen != 0 && s.hdrOpen == c.h2.stream {
		// Its header block's last frames, if they come, are nobody's.
		s.hdrLane, s.hdrKeep = -1, nil
	}
}

// afterStream reopens a draining socket whose last stream ended, or
// starts a queued lane.
func (w *worker) afterStream(s *h2sock, now int64) {
	if s.draining && s.active == 0 {
		w.closeSock(s)
		if len(s.waiting) > 0 {
			w.dialSock(s, now)
		}
		return
	}
	w.pump(s, now)
}

// h2timeout fails lane i, past its timeout: its stream is reset.
func (w *worker) h2timeout(i int, now int64) {
	c := &w.conns[i]
	s := w.sockOf(i)
	if c.h2.stalled {
		w.h2.flowStalled++
	}
	if c.h2.queued {
		s.dequeue(int32(i))
		c.state = connIdle
		w.finish(i, now, false, classTimeout, 0)
		w.next(i, now)
		return
	}
	if s.state == sockOpen {
		s.fr.WriteRSTStream(c.h2.stream, http2.ErrCodeCancel)
		if !w.queuedControl(s, now) {
			return // the connection closed, and lane i's request failed with it
		}
		w.markDirty(s)
	}
	w.endStream(s, i, now, false, classTimeout, 0)
}

func (s *h2sock) dequeue(l int32) {
	for k, q := range s.waiting {
		if q == l {
			s.waiting = append(s.waiting[:k], s.waiting[k+1:]...)
			return
		}
	}
}

// onGoAway stops new streams on s; the streams the server will not answer
// (above lastID) fail as goaway.
func (w *worker) onGoAway(s *h2sock, lastID uint32, now int64) {
	w.h2.goaways++
	s.draining = true
	first := int(s.id) * w.r.streams
	for i := first; i < first+w.r.streams; i++ {
		c := &w.conns[i]
		if c.state == connBusy && !c.h2.queued && c.h2.stream > lastID {
			w.releaseStream(s, i)
			c.state = connIdle
			w.finish(i, now, false, classGoAway, 0)
			w.next(i, now) // queued behind the reopening
		}
	}
	if s.active == 0 {
		w.afterStream(s, now)
	}
}

// eachActive calls fn for each lane with an open stream on s.
func (w *worker) eachActive(s *h2sock, fn func(c *conn)) {
	first := int(s.id) * w.r.streams
	for i := first; i < first+w.r.streams; i++ {
		if c := &w.conns[i]; c.state == connBusy && !c.h2.queued {
			fn(c)
		}
	}
}

// failSock closes s after a connection-level failure: each lane with a
// request on it (sent or queued) fails in class, then moves on.
func (w *worker) failSock(s *h2sock, class errorClass, now int64) {
	w.closeSock(s)
	first := int(s.id) * w.r.streams
	failed := w.scratch[:0]
	for i := first; i < first+w.r.streams; i++ {
		if c := &w.conns[i]; c.state == connBusy {
			if c.h2.stalled {
				w.h2.flowStalled++
			}
			c.state = connIdle
			failed = append(failed, int32(i))
		}
	}
	s.waiting = s.waiting[:0]
	s.blocked = s.blocked[:0]
	for _, l := range failed {
		w.finish(int(l), now, false, class, 0)
	}
	for _, l := range failed {
		w.next(int(l), now)
	}
	w.scratch = failed[:0]
}

// closeSock closes the socket and forgets its streams.
func (w *worker) closeSock(s *h2sock) {
	if s.fd >= 0 {
		unix.Close(s.fd)
		s.fd = -1
	}
	s.tls = nil
	s.state = sockDown
	s.wantOut = false
	s.draining = false
	s.gen++
	s.out.b = s.out.b[:0]
	s.ctrlQueued = 0
	s.active = 0
	clear(s.slots)
	s.blocked = s.blocked[:0]
}

// h2predial opens every socket before the run starts and waits (until
// deadline) for each server's SETTINGS, so that the first requests know
// its stream limit.
func (w *worker) h2predial(deadline int64) {
	now := nanotime()
	for i := range w.socks {
		w.dialSock(&w.socks[i], now)
	}
	for !w.r.stop.Load() {
		w.flushDirty(now)
		waiting := 0
		for i := range w.socks {
			if s := &w.socks[i]; s.state == sockDialing || s.state == sockOpen && !s.ready {
				waiting++
			}
		}
		now = nanotime()
		if waiting == 0 || now >= deadline {
			break
		}
		n, errno := w.poll.wait(10, false)
		if errno != 0 && errno != unix.EINTR {
			break
		}
		for k := range max(n, 0) {
			if id, events, timer := w.poll.event(k); !timer && id >= 0 {
				w.onSockEvent(&w.socks[id], events, nanotime())
			}
		}
	}
	for i := range w.socks {
		s := &w.socks[i]
		if s.state == sockDialing {
			w.closeSock(s)
		}
		s.retryAt = 0
	}
}

// scanSocks closes sockets whose connect has outlasted the timeout.
func (w *worker) scanSocks(now int64) {
	timeout := int64(w.r.cfg.Timeout)
	for i := range w.socks {
		s := &w.socks[i]
		switch {
		case s.state == sockDialing && now-s.started >= timeout:
			w.closeSock(s)
			w.failOpenSock(s, classTimeout, now)
		case s.state == sockDown && s.retryAt != 0 && now >= s.retryAt:
			s.retryAt = 0
			if len(s.waiting) > 0 {
				w.dialSock(s, now)
			}
		}
	}
}

// readInto reads decrypted bytes into p (see read).
func (s *tlsSession) readInto(p []byte) (int, unix.Errno) { return s.read(p) }

// noteProtocolError keeps the first HTTP/2 protocol error for the result.
func (r *run) noteProtocolError(what string) {
	r.tlsNotes.mu.Lock()
	if r.protocolErr == "" {
		r.protocolErr = what
	}
	r.tlsNotes.mu.Unlock()
}
