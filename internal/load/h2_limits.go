package load

import (
	"errors"
	"fmt"

	"golang.org/x/net/http2/hpack"
)

// What a hostile server can make an HTTP/2 connection hold, bounded. A
// server's answers are data: whatever it sends, the engine's memory per
// connection stays within these, and a server that goes past one loses the
// connection, its requests failing in a class of their own.
const (
	// h2MaxHeaderListBytes bounds a decoded header block (a response's
	// head, or its trailers) as HTTP/2 measures it: each field's name and
	// value plus 32 bytes. It is HTTP/1.1's head bound (maxHeadBytes), and
	// the engine states it in its SETTINGS (SETTINGS_MAX_HEADER_LIST_SIZE).
	// hpack keeps no more than one string of it at a time:
	// SetMaxStringLength refuses a longer literal as soon as its length
	// is read, before its bytes come.
	h2MaxHeaderListBytes = maxHeadBytes
	// h2MaxHeaderBlockBytes bounds the frames of one header block as sent
	// (HEADERS and its CONTINUATIONs, 9 bytes of frame header each), so
	// that a flood of empty CONTINUATION frames, or of hpack's table-size
	// updates that decode to nothing, ends too.
	h2MaxHeaderBlockBytes = 4 * h2MaxHeaderListBytes
	// h2MaxQueuedControl bounds the frames the engine owes a server that
	// does not read them (acknowledgements of its PING and SETTINGS,
	// WINDOW_UPDATE, RST_STREAM): past it the connection is closed, as
	// x/net's server does with the same number (maxQueuedControlFrames).
	h2MaxQueuedControl = 10000
)

// limitError closes a connection whose server went past one of the bounds
// above: its requests fail in class, and the first such cause is kept as
// the result's protocol error.
func (w *worker) limitError(s *h2sock, class errorClass, what string, now int64) {
	w.r.noteProtocolError(what)
	w.failSock(s, class, now)
}

// queuedControl counts a control frame the engine just queued on s; false
// when the server has left more than h2MaxQueuedControl of them unread, and
// the connection was closed for it.
func (w *worker) queuedControl(s *h2sock, now int64) bool {
	s.ctrlQueued++
	if s.ctrlQueued <= h2MaxQueuedControl {
		return true
	}
	w.limitError(s, classH2Flood, fmt.Sprintf("more than %d control frames (PING and SETTINGS acknowledgements, WINDOW_UPDATE, RST_STREAM) queued for a server that does not read them", h2MaxQueuedControl), now)
	return false
}

// headerFragment counts a header-block frame of payload frag on s and
// decodes it; false when the block went past a bound or did not decode,
// and the connection was closed for it.
func (w *worker) headerFragment(s *h2sock, frag []byte, now int64) bool {
	s.hdrBlockBytes += 9 + len(frag)
	if s.hdrBlockBytes > h2MaxHeaderBlockBytes {
		w.limitError(s, classH2HeadersTooLarge, fmt.Sprintf("a header block of more than %d bytes of frames on stream %d", h2MaxHeaderBlockBytes, s.hdrOpen), now)
		return false
	}
	_, err := s.dec.Write(frag)
	switch {
	case errors.Is(err, hpack.ErrStringLength):
		w.limitError(s, classH2HeadersTooLarge, fmt.Sprintf("a header field of more than %d bytes on stream %d", h2MaxHeaderListBytes, s.hdrOpen), now)
		return false
	case err != nil:
		w.protocolError(s, "hpack: "+err.Error(), now)
		return false
	case s.hdrListBytes > h2MaxHeaderListBytes:
		w.limitError(s, classH2HeadersTooLarge, fmt.Sprintf("a header list of more than %d bytes on stream %d", h2MaxHeaderListBytes, s.hdrOpen), now)
		return false
	}
	return true
}
