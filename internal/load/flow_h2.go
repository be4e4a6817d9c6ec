package load

import (
	"strings"
)

// A flow's step over HTTP/2 is rendered per request, like its HTTP/1.1
// head: its path, header values and body hold what the user captured.
// Its header block is written here straight into the user's buffer,
// without hpack's dynamic table (as encode_h2.go's blocks are) and
// without Huffman coding: every field is a static-table reference or a
// literal "without indexing", so any connection may carry it and
// nothing is allocated once the buffer has grown.

// HPACK static-table indices (RFC 7541, Appendix A) the blocks use.
const (
	hpAuthority     = 1
	hpMethodGET     = 2
	hpMethodPOST    = 3
	hpPath          = 4
	hpSchemeHTTP    = 6
	hpSchemeHTTPS   = 7
	hpContentLength = 28
	hpUserAgent     = 58
)

// h2FieldName is the name a flow's header goes by over HTTP/2 ("" when
// it does not go as a field): lower case, as HTTP/2 requires; TE only
// when it is "trailers", the one value HTTP/2 allows.
func h2FieldName(name string, value []tpart) string {
	lower := strings.ToLower(name)
	switch {
	case lower == "te":
		if len(value) == 1 && value[0].kind == tLiteral && value[0].text == "trailers" {
			return lower
		}
		return ""
	case h2Hop[lower] || lower == "content-length":
		return ""
	}
	return lower
}

// renderH2 builds the user's request for step s as an HTTP/2 header
// block and body in its buffers. A Host header, if the step has one,
// becomes :authority, as in encodeH2.
func (f *flowState) renderH2(s *compiledStep, authority string, https bool) {
	f.body = f.appendParts(f.body[:0], s.body)
	b := f.block[:0]
	switch s.method {
	case "GET":
		b = append(b, 0x80|hpMethodGET)
	case "POST":
		b = append(b, 0x80|hpMethodPOST)
	default:
		b = hpackLiteralIndexed(b, hpMethodGET, s.method)
	}
	if https {
		b = append(b, 0x80|hpSchemeHTTPS)
	} else {
		b = append(b, 0x80|hpSchemeHTTP)
	}
	if s.host >= 0 {
		b = hpackIndexedName(b, hpAuthority)
		b = f.appendValue(b, s.headers[s.host].value)
	} else {
		b = hpackLiteralIndexed(b, hpAuthority, authority)
	}
	b = hpackIndexedName(b, hpPath)
	b = f.appendValue(b, s.path)
	for _, h := range s.headers {
		if h.h2name == "" {
			continue
		}
		b = append(b, 0) // literal without indexing, new name
		b = hpackString(b, h.h2name)
		b = f.appendValue(b, h.value)
	}
	if !s.ownUA {
		b = hpackLiteralIndexed(b, hpUserAgent, "stackbench")
	}
	if len(f.body) > 0 || s.method == "POST" || s.method == "PUT" || s.method == "PATCH" {
		b = hpackIndexedName(b, hpContentLength)
		var digits [20]byte
		n := len(digits)
		for v := len(f.body); ; v /= 10 {
			n--
			digits[n] = byte('0' + v%10)
			if v < 10 {
				break
			}
		}
		b = hpackInt(b, 0, 7, uint64(len(digits)-n))
		b = append(b, digits[n:]...)
	}
	f.block = b
	f.wire = wireRequest{h2block: b, body: f.body, head: s.head, success: &s.success}
}

// appendValue appends parts, rendered, as an HPACK string literal: the
// length comes first, so the value is rendered after a placeholder and
// moved when its length needs more than one byte.
func (f *flowState) appendValue(b []byte, parts []tpart) []byte {
	at := len(b)
	b = append(b, 0)
	b = f.appendParts(b, parts)
	n := len(b) - at - 1
	if n < 127 {
		b[at] = byte(n)
		return b
	}
	// A longer value: its length takes more bytes.
	var lenBuf [10]byte
	l := hpackInt(lenBuf[:0], 0, 7, uint64(n))
	extra := len(l) - 1
	b = append(b, lenBuf[:extra]...) // grow by the extra bytes
	copy(b[at+len(l):], b[at+1:at+1+n])
	copy(b[at:], l)
	return b
}

// hpackInt appends v with an n-bit prefix, the first byte's other bits
// being mask (RFC 7541, 5.1).
func hpackInt(b []byte, mask byte, n uint, v uint64) []byte {
	limit := uint64(1)<<n - 1
	if v < limit {
		return append(b, mask|byte(v))
	}
	b = append(b, mask|byte(limit))
	v -= limit
	for v >= 128 {
		b = append(b, byte(v&127|128))
		v >>= 7
	}
	return append(b, byte(v))
}

// hpackString appends s as a string literal without Huffman coding.
func hpackString(b []byte, s string) []byte {
	b = hpackInt(b, 0, 7, uint64(len(s)))
	return append(b, s...)
}

// hpackIndexedName starts a literal field without indexing whose name is
// the static table's entry idx; its value follows.
func hpackIndexedName(b []byte, idx uint64) []byte { return hpackInt(b, 0, 4, idx) }

// hpackLiteralIndexed appends a literal field without indexing: name from
// the static table, value v.
func hpackLiteralIndexed(b []byte, idx uint64, v string) []byte {
	return hpackString(hpackIndexedName(b, idx), v)
}
