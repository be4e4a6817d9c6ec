package load

import (
	"bytes"
	"errors"
)

// maxHeadBytes bounds a response's status line and headers.
const maxHeadBytes = 64 << 10

// errProtocol is a response that is not valid HTTP/1.x as far as the
// parser needs to read it; the connection is closed and the attempt counts
// in the "other" class.
var errProtocol = errors.New("malformed HTTP response")

// Parser states. The head (status line and headers) is parsed as one block;
// the body is consumed as a stream without keeping it.
const (
	stHead = iota
	stBody
	stUntilClose
	stChunkSize
	stChunkExt
	stChunkSizeLF
	stChunkData
	stChunkDataCR
	stChunkDataLF
	stTrailerLineStart
	stTrailerLine
	stTrailerLineLF
	stTrailerEndLF
	stDone
)

// respParser reads one HTTP/1.1 response incrementally from the bytes of a
// connection, without allocating once its head buffer has grown to the size
// of the largest head that spanned two reads. It keeps only what the load
// engine needs: the status, whether the connection must close, and where
// the response ends.
type respParser struct {
	state     uint8
	noBody    bool // the request was HEAD: the response has no body
	close     bool // the server will close the connection after this response
	status    int
	remain    int64 // body or chunk bytes still to read
	chunkSize int64
	digits    int
	head      []byte // partial head kept across reads
	// keep (a flow's step with captures) keeps the response: its head
	// (kept[:headLen], status line and headers) and its body's bytes after
	// it, up to maxKeptBytes (truncated says more came).
	keep      bool
	truncated bool
	headLen   int
	kept      []byte
}

// maxKeptBytes bounds the response a flow's step keeps for its captures.
const maxKeptBytes = 1 << 20

// keepBytes adds body bytes to a kept response.
func (p *respParser) keepBytes(b []byte) {
	if !p.keep {
		return
	}
	if len(p.kept)+len(b) > maxKeptBytes {
		p.truncated = true
		return
	}
	p.kept = append(p.kept, b...)
}

// reset prepares the parser for the response to a new request.
func (p *respParser) reset(head bool) {
	p.state = stHead
	p.noBody = head
	p.close = false
	p.status = 0
	p.remain = 0
	p.head = p.head[:0]
	p.kept, p.headLen, p.truncated = p.kept[:0], 0, false
}

// feed consumes bytes of the response from b. It returns how many bytes it
// used and whether the response is complete; bytes after the end of the
// response are not used.
func (p *respParser) feed(b []byte) (int, bool, error) {
	n := 0
	for {
		switch p.state {
		case stDone:
			return n, true, nil
		case stHead:
			used, done, err := p.feedHead(b[n:])
			n += used
			if err != nil || !done {
				return n, false, err
			}
			continue // the body, or the next head after an interim 1xx
		}
		if n >= len(b) {
			return n, false, nil
		}
		switch p.state {
		case stBody, stChunkData:
			take := int64(len(b) - n)
			if take < p.remain {
				p.remain -= take
				p.keepBytes(b[n:])
				return len(b), false, nil
			}
			p.keepBytes(b[n : n+int(p.remain)])
			n += int(p.remain)
			p.remain = 0
			if p.state == stBody {
				p.state = stDone
			} else {
				p.state = stChunkDataCR
			}
		case stUntilClose:
			p.keepBytes(b[n:])
			return len(b), false, nil
		default:
			if err := p.chunkByte(b[n]); err != nil {
				return n, false, err
			}
			n++
		}
	}
}

// feedEOF tells the parser the connection was closed by the server. It
// reports whether that completed the response (a body delimited by close).
func (p *respParser) feedEOF() bool {
	if p.state == stUntilClose {
		p.state = stDone
		return true
	}
	return p.state == stDone
}

var crlfcrlf = []byte("\r\n\r\n")

// feedHead looks for the end of the head in b (joined to what an earlier
// read left) and parses it when found.
func (p *respParser) feedHead(b []byte) (int, bool, error) {
	if len(p.head) == 0 {
		i := bytes.Index(b, crlfcrlf)
		if i < 0 {
			if len(b) > maxHeadBytes {
				return len(b), false, errProtocol
			}
			p.head = append(p.head, b...)
			return len(b), false, nil
		}
		return i + 4, true, p.parseHead(b[:i+2])
	}
	// The head spans reads: search the joint region only.
	old := len(p.head)
	from := old - 3
	if from < 0 {
		from = 0
	}
	p.head = append(p.head, b...)
	i := bytes.Index(p.head[from:], crlfcrlf)
	if i < 0 {
		if len(p.head) > maxHeadBytes {
			return len(b), false, errProtocol
		}
		return len(b), false, nil
	}
	end := from + i + 4
	err := p.parseHead(p.head[:end-2])
	p.head = p.head[:0]
	return end - old, true, err
}

// parseHead parses the status line and headers in h, which ends with the
// CRLF of its last line, and sets the body state.
func (p *respParser) parseHead(h []byte) error {
	// "HTTP/1.1 200 OK\r\n": the version's minor digit and the status code.
	if len(h) < 14 || string(h[:7]) != "HTTP/1." || h[8] != ' ' ||
		!isDigit(h[9]) || !isDigit(h[10]) || !isDigit(h[11]) ||
		(h[12] != ' ' && h[12] != '\r') {
		return errProtocol
	}
	http10 := h[7] == '0'
	if !http10 && h[7] != '1' {
		return errProtocol
	}
	p.status = int(h[9]-'0')*100 + int(h[10]-'0')*10 + int(h[11]-'0')
	if p.status < 100 {
		return errProtocol
	}
	eol := bytes.IndexByte(h, '\n')
	if eol < 0 || h[eol-1] != '\r' {
		return errProtocol
	}
	contentLength := int64(-1)
	chunked, closeConn, keepAlive := false, false, false
	for rest := h[eol+1:]; len(rest) > 0; {
		eol = bytes.IndexByte(rest, '\n')
		if eol < 1 || rest[eol-1] != '\r' {
			return errProtocol
		}
		line := rest[:eol-1]
		rest = rest[eol+1:]
		colon := bytes.IndexByte(line, ':')
		if colon <= 0 {
			return errProtocol
		}
		name, value := line[:colon], trimSpace(line[colon+1:])
		switch {
		case equalFold(name, "content-length"):
			v, ok := parseDecimal(value)
			if !ok || (contentLength >= 0 && v != contentLength) {
				return errProtocol
			}
			contentLength = v
		case equalFold(name, "transfer-encoding"):
			chunked = hasSuffixFold(value, "chunked")
		case equalFold(name, "connection"):
			closeConn = closeConn || hasTokenFold(value, "close")
			keepAlive = keepAlive || hasTokenFold(value, "keep-alive")
		}
	}
	p.close = closeConn || (http10 && !keepAlive)
	if p.keep {
		p.kept = append(p.kept[:0], h...)
		p.headLen = len(h)
	}
	switch {
	case p.status >= 100 && p.status < 200 && p.status != 101:
		// Interim response: another head follows on the same request.
		p.state = stHead
		p.status = 0
		p.close = false
	case p.status == 101:
		// Switching protocols: the connection no longer speaks HTTP/1.1.
		p.state = stDone
		p.close = true
	case p.noBody || p.status == 204 || p.status == 304:
		p.state = stDone
	case chunked:
		p.state = stChunkSize
		p.chunkSize, p.digits = 0, 0
	case contentLength >= 0:
		p.remain = contentLength
		p.state = stBody
		if contentLength == 0 {
			p.state = stDone
		}
	default:
		p.state = stUntilClose
		p.close = true
	}
	return nil
}

// chunkByte advances the chunked-body state machine by one byte.
func (p *respParser) chunkByte(c byte) error {
	switch p.state {
	case stChunkSize:
		switch {
		case hexVal(c) >= 0:
			if p.digits >= 15 {
				return errProtocol
			}
			p.chunkSize = p.chunkSize<<4 | int64(hexVal(c))
			p.digits++
		case p.digits > 0 && (c == ';' || c == ' ' || c == '\t'):
			p.state = stChunkExt
		case p.digits > 0 && c == '\r':
			p.state = stChunkSizeLF
		default:
			return errProtocol
		}
	case stChunkExt:
		if c == '\r' {
			p.state = stChunkSizeLF
		}
	case stChunkSizeLF:
		if c != '\n' {
			return errProtocol
		}
		if p.chunkSize == 0 {
			p.state = stTrailerLineStart
		} else {
			p.remain = p.chunkSize
			p.state = stChunkData
		}
	case stChunkDataCR:
		if c != '\r' {
			return errProtocol
		}
		p.state = stChunkDataLF
	case stChunkDataLF:
		if c != '\n' {
			return errProtocol
		}
		p.state = stChunkSize
		p.chunkSize, p.digits = 0, 0
	case stTrailerLineStart:
		if c == '\r' {
			p.state = stTrailerEndLF
		} else {
			p.state = stTrailerLine
		}
	case stTrailerLine:
		if c == '\r' {
			p.state = stTrailerLineLF
		}
	case stTrailerLineLF:
		if c != '\n' {
			return errProtocol
		}
		p.state = stTrailerLineStart
	case stTrailerEndLF:
		if c != '\n' {
			return errProtocol
		}
		p.state = stDone
	}
	return nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func hexVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

func parseDecimal(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var v int64
	for _, c := range b {
		if !isDigit(c) {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	return v, true
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}

// equalFold compares b with the lower-case ASCII string s, ignoring case.
func equalFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range len(b) {
		c := b[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != s[i] {
			return false
		}
	}
	return true
}

func hasSuffixFold(b []byte, s string) bool {
	return len(b) >= len(s) && equalFold(b[len(b)-len(s):], s)
}

// hasTokenFold reports whether the comma-separated list b holds token s.
func hasTokenFold(b []byte, s string) bool {
	for len(b) > 0 {
		i := bytes.IndexByte(b, ',')
		tok := b
		if i >= 0 {
			tok, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		if equalFold(trimSpace(tok), s) {
			return true
		}
	}
	return false
}
