package load

import (
	"bytes"
	"strconv"
	"strings"

	"golang.org/x/net/http2/hpack"
)

// h2Hop are the connection-specific headers HTTP/2 forbids; Host becomes
// :authority.
var h2Hop = map[string]bool{
	"connection": true, "keep-alive": true, "proxy-connection": true,
	"transfer-encoding": true, "upgrade": true, "host": true, "te": true,
}

// h2Encoder encodes header blocks that use no dynamic table: every field is
// a static-table reference or a literal never added to the table, so a
// block encoded once may be sent on any connection, any number of times.
type h2Encoder struct {
	buf bytes.Buffer
	enc *hpack.Encoder
}

func newH2Encoder() *h2Encoder {
	e := &h2Encoder{}
	e.enc = hpack.NewEncoder(&e.buf)
	e.enc.SetMaxDynamicTableSizeLimit(0)
	// The first field carries the table-size update to 0; a block that
	// declared it would tell each connection's decoder once per block,
	// which is legal but noise, so it is written here and thrown away.
	e.enc.WriteField(hpack.HeaderField{Name: ":method", Value: "GET"})
	e.buf.Reset()
	return e
}

// block encodes fields and returns a copy of the block.
func (e *h2Encoder) block(fields []hpack.HeaderField) []byte {
	e.buf.Reset()
	for _, f := range fields {
		e.enc.WriteField(f)
	}
	return bytes.Clone(e.buf.Bytes())
}

// encodeH2 builds an HTTP/2 request: its header block and its body.
func (e *h2Encoder) encodeH2(method, path, authority, scheme string, headers []Header, body []byte) (wireRequest, error) {
	fields := []hpack.HeaderField{
		{Name: ":method", Value: method},
		{Name: ":scheme", Value: scheme},
		{Name: ":authority", Value: authority},
		{Name: ":path", Value: path},
	}
	hasUA := false
	for _, h := range headers {
		name := strings.ToLower(h.Name)
		switch {
		case name == "host":
			fields[2].Value = h.Value
			continue
		case name == "te" && h.Value == "trailers":
		case h2Hop[name] || name == "content-length":
			continue // connection-specific, or computed from the body
		}
		hasUA = hasUA || name == "user-agent"
		fields = append(fields, hpack.HeaderField{Name: name, Value: h.Value})
	}
	if !hasUA {
		fields = append(fields, hpack.HeaderField{Name: "user-agent", Value: "stackbench"})
	}
	if len(body) > 0 || method == "POST" || method == "PUT" || method == "PATCH" {
		fields = append(fields, hpack.HeaderField{Name: "content-length", Value: strconv.Itoa(len(body))})
	}
	block := e.block(fields)
	if len(block) > h2DefaultFrame {
		return wireRequest{}, configErrorf("headers", "the request's header block is %d bytes encoded; HTTP/2 requests here are limited to one frame (%d bytes)", len(block), h2DefaultFrame)
	}
	return wireRequest{h2block: block, body: body, head: method == "HEAD"}, nil
}

// encodeH2Requests is encodeRequests for HTTP/2.
func encodeH2Requests(cfg Config, t target, tlsOn bool) ([]wireRequest, error) {
	scheme := "http"
	if tlsOn {
		scheme = "https"
	}
	e := newH2Encoder()
	if len(cfg.Requests) == 0 {
		if !isToken(cfg.Method) {
			return nil, configErrorf("method", "%q is not a valid HTTP method", cfg.Method)
		}
		for _, h := range cfg.Headers {
			if err := checkHeader(h.Name, h.Value); err != nil {
				return nil, configErrorf("header", "%v", err)
			}
		}
		req, err := e.encodeH2(cfg.Method, t.url.RequestURI(), t.hostPort, scheme, cfg.Headers, cfg.Body)
		return []wireRequest{req}, err
	}
	out := make([]wireRequest, 0, len(cfg.Requests))
	for i, r := range cfg.Requests {
		if err := checkRequest(r); err != nil {
			return nil, configErrorf("requests["+strconv.Itoa(i)+"]", "%v", err)
		}
		method := r.Method
		if method == "" {
			method = "GET"
		}
		headers := append([]Header(nil), cfg.Headers...)
		for name, value := range r.Headers {
			headers = append(headers, Header{Name: name, Value: value})
		}
		req, err := e.encodeH2(method, t.poolPath(r.Path), t.hostPort, scheme, headers, []byte(r.Body))
		if err != nil {
			return nil, err
		}
		out = append(out, req)
	}
	return out, nil
}
