package main

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// The fixed server's HTTP/2: it answers every stream the client ends
// (END_STREAM on its HEADERS or its last DATA) with the same frames,
// encoded once, their stream identifier patched in. It decodes no header
// block (every request gets the one answer), so it keeps no HPACK state:
// its own blocks use no dynamic table and each starts with a table size
// update to 0, which is right whatever table size the client's SETTINGS
// asked for. What it reads in one read it answers in one write.

// The windows the server grants: the largest stream window in its SETTINGS,
// and the connection window raised to the same by a WINDOW_UPDATE, topped up
// when half is used.
const (
	h2MaxWindow = 1<<31 - 1
	h2FrameMax  = 16384 // SETTINGS_MAX_FRAME_SIZE, left at its default
	h2ReadBytes = 64 << 10
	// h2MaxStreams is the server's SETTINGS_MAX_CONCURRENT_STREAMS, above
	// any generator's streams in the comparison.
	h2MaxStreams = 1000
)

// h2Answer is one stream's answer: its frames, and where in them the stream
// identifiers go.
type h2Answer struct {
	frames    []byte
	idAt      []int
	dataBytes int64 // the DATA payload, what flow control counts
}

// newH2Answer encodes a response of head fields, body (one DATA frame) and,
// if any, trailer fields.
func newH2Answer(head []hpack.HeaderField, body []byte, trailers []hpack.HeaderField) h2Answer {
	var a h2Answer
	frame := func(typ http2.FrameType, flags http2.Flags, payload []byte) {
		n := len(payload)
		a.frames = append(a.frames, byte(n>>16), byte(n>>8), byte(n), byte(typ), byte(flags))
		a.idAt = append(a.idAt, len(a.frames))
		a.frames = append(a.frames, 0, 0, 0, 0)
		a.frames = append(a.frames, payload...)
	}
	end := http2.FlagDataEndStream
	if len(trailers) > 0 {
		end = 0
	}
	frame(http2.FrameHeaders, http2.FlagHeadersEndHeaders, headerBlock(head))
	frame(http2.FrameData, end, body)
	a.dataBytes = int64(len(body))
	if len(trailers) > 0 {
		frame(http2.FrameHeaders, http2.FlagHeadersEndHeaders|http2.FlagHeadersEndStream, headerBlock(trailers))
	}
	return a
}

// headerBlock encodes fields without the dynamic table, after a table size
// update to 0.
func headerBlock(fields []hpack.HeaderField) []byte {
	var buf bytes.Buffer
	enc := hpack.NewEncoder(&buf)
	enc.SetMaxDynamicTableSizeLimit(0) // its first block starts with the update to 0
	for _, f := range fields {
		enc.WriteField(f)
	}
	return buf.Bytes()
}

// append appends the answer on stream id to b.
func (a *h2Answer) append(b []byte, id uint32) []byte {
	n := len(b)
	b = append(b, a.frames...)
	for _, at := range a.idAt {
		binary.BigEndian.PutUint32(b[n+at:], id)
	}
	return b
}

// h2Conn is one client connection.
type h2Conn struct {
	c      net.Conn
	answer *h2Answer
	in     []byte
	out    []byte
	// sendWin is the connection's window for the server's DATA; peerInit is
	// the client's SETTINGS_INITIAL_WINDOW_SIZE, each stream's window.
	sendWin, peerInit int64
	// waiting are the streams whose answer waits for the connection window.
	waiting []uint32
	// recvUnacked is the DATA received since the last connection WINDOW_UPDATE.
	recvUnacked int64
	// contStream is the stream whose header block awaits CONTINUATION, and
	// contEnds whether that block ends it.
	contStream uint32
	contEnds   bool
}

var errGoAway = errors.New("the client sent GOAWAY")

// serveH2 serves one connection until the client closes it.
func serveH2(c net.Conn, answer *h2Answer) error {
	h := &h2Conn{c: c, answer: answer, in: make([]byte, h2ReadBytes), sendWin: 65535, peerInit: 65535}
	if _, err := io.ReadFull(c, h.in[:len(http2.ClientPreface)]); err != nil {
		return err
	}
	if string(h.in[:len(http2.ClientPreface)]) != http2.ClientPreface {
		return errors.New("not an HTTP/2 client preface (this port speaks HTTP/2 with prior knowledge)")
	}
	// The header table stays at its default: the client may index its
	// fields as it likes, the server reads none of them.
	h.out = appendFrameHead(h.out, 12, http2.FrameSettings, 0, 0)
	h.out = appendSetting(h.out, http2.SettingMaxConcurrentStreams, h2MaxStreams)
	h.out = appendSetting(h.out, http2.SettingInitialWindowSize, h2MaxWindow)
	h.out = appendWindowUpdate(h.out, 0, h2MaxWindow-65535)
	start, end := 0, 0
	for {
		n, err := c.Read(h.in[end:])
		if n == 0 && err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
		end += n
		for end-start >= 9 {
			b := h.in[start:end]
			length := int(b[0])<<16 | int(b[1])<<8 | int(b[2])
			if length > h2FrameMax {
				return fmt.Errorf("a frame of %d bytes, above SETTINGS_MAX_FRAME_SIZE (%d)", length, h2FrameMax)
			}
			if len(b) < 9+length {
				break
			}
			if err := h.frame(http2.FrameType(b[3]), http2.Flags(b[4]), binary.BigEndian.Uint32(b[5:9])&(1<<31-1), b[9:9+length]); err != nil {
				return err
			}
			start += 9 + length
		}
		if start == end {
			start, end = 0, 0
		} else if end == len(h.in) {
			end = copy(h.in, h.in[start:end])
			start = 0
		}
		if len(h.out) > 0 {
			if _, err := c.Write(h.out); err != nil {
				return err
			}
			h.out = h.out[:0]
		}
	}
}

// frame handles one frame from the client.
func (h *h2Conn) frame(typ http2.FrameType, flags http2.Flags, id uint32, p []byte) error {
	if h.contStream != 0 && (typ != http2.FrameContinuation || id != h.contStream) {
		return fmt.Errorf("a %v frame inside the header block of stream %d", typ, h.contStream)
	}
	switch typ {
	case http2.FrameData:
		h.recvUnacked += int64(len(p))
		if h.recvUnacked >= h2MaxWindow/2 {
			h.out = appendWindowUpdate(h.out, 0, uint32(h.recvUnacked))
			h.recvUnacked = 0
		}
		if flags&http2.FlagDataEndStream != 0 {
			return h.respond(id)
		}
	case http2.FrameHeaders:
		if flags&http2.FlagHeadersEndHeaders == 0 {
			h.contStream, h.contEnds = id, flags&http2.FlagHeadersEndStream != 0
			return nil
		}
		if flags&http2.FlagHeadersEndStream != 0 {
			return h.respond(id)
		}
	case http2.FrameContinuation:
		if id != h.contStream {
			return fmt.Errorf("a CONTINUATION frame on stream %d outside a header block", id)
		}
		if flags&http2.FlagContinuationEndHeaders != 0 {
			h.contStream = 0
			if h.contEnds {
				return h.respond(id)
			}
		}
	case http2.FrameSettings:
		if flags&http2.FlagSettingsAck != 0 {
			return nil
		}
		for ; len(p) >= 6; p = p[6:] {
			if http2.SettingID(binary.BigEndian.Uint16(p)) == http2.SettingInitialWindowSize {
				h.peerInit = int64(binary.BigEndian.Uint32(p[2:]))
			}
		}
		h.out = appendFrameHead(h.out, 0, http2.FrameSettings, http2.FlagSettingsAck, 0)
	case http2.FramePing:
		if flags&http2.FlagPingAck == 0 {
			h.out = appendFrameHead(h.out, len(p), http2.FramePing, http2.FlagPingAck, 0)
			h.out = append(h.out, p...)
		}
	case http2.FrameWindowUpdate:
		if id == 0 && len(p) == 4 {
			h.sendWin += int64(binary.BigEndian.Uint32(p) & (1<<31 - 1))
			return h.release()
		}
	case http2.FrameGoAway:
		return errGoAway
	}
	return nil // PRIORITY, RST_STREAM (an answer is written as soon as its stream ends), stream WINDOW_UPDATE
}

// respond answers stream id, or queues it behind the connection's window.
func (h *h2Conn) respond(id uint32) error {
	if h.answer.dataBytes > h.peerInit {
		return fmt.Errorf("the client's stream window (%d bytes) is smaller than one answer's DATA (%d bytes)", h.peerInit, h.answer.dataBytes)
	}
	if len(h.waiting) > 0 || h.sendWin < h.answer.dataBytes {
		h.waiting = append(h.waiting, id)
		return nil
	}
	h.sendWin -= h.answer.dataBytes
	h.out = h.answer.append(h.out, id)
	return nil
}

// release answers the streams that waited for the connection's window.
func (h *h2Conn) release() error {
	k := 0
	for ; k < len(h.waiting) && h.sendWin >= h.answer.dataBytes; k++ {
		h.sendWin -= h.answer.dataBytes
		h.out = h.answer.append(h.out, h.waiting[k])
	}
	h.waiting = h.waiting[:copy(h.waiting, h.waiting[k:])]
	return nil
}

func appendFrameHead(b []byte, length int, typ http2.FrameType, flags http2.Flags, id uint32) []byte {
	return append(b, byte(length>>16), byte(length>>8), byte(length), byte(typ), byte(flags),
		byte(id>>24), byte(id>>16), byte(id>>8), byte(id))
}

func appendSetting(b []byte, id http2.SettingID, v uint32) []byte {
	return append(b, byte(id>>8), byte(id), byte(v>>24), byte(v>>16), byte(v>>8), byte(v))
}

func appendWindowUpdate(b []byte, id, inc uint32) []byte {
	b = appendFrameHead(b, 4, http2.FrameWindowUpdate, 0, id)
	return append(b, byte(inc>>24), byte(inc>>16), byte(inc>>8), byte(inc))
}
