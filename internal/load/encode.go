package load

import (
	"strconv"
	"strings"
)

// wireRequest is a request encoded once, before the run, into the bytes
// that go on the wire.
type wireRequest struct {
	bytes []byte
	head  bool // a HEAD request: its response has no body
	// success says which statuses count as success for this request (the
	// run's, or the request's own Expect); route is its route in a mix.
	success *[1000]bool
	route   int32
	// HTTP/2: the header block (hpack, no dynamic table) and the body.
	h2block []byte
	body    []byte
}

// encodeRequests builds the wire requests: the pool when there is one,
// otherwise the single request described by cfg.
func encodeRequests(cfg Config, t target, tlsOn bool) ([]wireRequest, error) {
	if cfg.Protocol == ProtoGRPC {
		return encodeGRPC(cfg, t, tlsOn)
	}
	if cfg.Protocol != ProtoHTTP1 {
		return encodeH2Requests(cfg, t, tlsOn)
	}
	if len(cfg.Requests) == 0 {
		if !isToken(cfg.Method) {
			return nil, configErrorf("method", "%q is not a valid HTTP method", cfg.Method)
		}
		for _, h := range cfg.Headers {
			if err := checkHeader(h.Name, h.Value); err != nil {
				return nil, configErrorf("header", "%v", err)
			}
		}
		return []wireRequest{encode(cfg.Method, t.url.RequestURI(), t.hostPort, cfg.Headers, cfg.Body)}, nil
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
		headers := make([]Header, 0, len(r.Headers)+len(cfg.Headers))
		headers = append(headers, cfg.Headers...)
		for name, value := range r.Headers {
			headers = append(headers, Header{Name: name, Value: value})
		}
		out = append(out, encode(method, t.poolPath(r.Path), t.hostPort, headers, []byte(r.Body)))
	}
	return out, nil
}

// encode writes one HTTP/1.1 request.
func encode(method, path, host string, headers []Header, body []byte) wireRequest {
	var b strings.Builder
	b.WriteString(method + " " + path + " HTTP/1.1\r\n")
	has := func(name string) bool {
		for _, h := range headers {
			if strings.EqualFold(h.Name, name) {
				return true
			}
		}
		return false
	}
	if !has("Host") {
		b.WriteString("Host: " + host + "\r\n")
	}
	if !has("User-Agent") {
		b.WriteString("User-Agent: stackbench\r\n")
	}
	for _, h := range headers {
		if strings.EqualFold(h.Name, "Content-Length") {
			continue // always computed from the body
		}
		b.WriteString(h.Name + ": " + h.Value + "\r\n")
	}
	if len(body) > 0 || method == "POST" || method == "PUT" || method == "PATCH" {
		b.WriteString("Content-Length: " + strconv.Itoa(len(body)) + "\r\n")
	}
	b.WriteString("\r\n")
	b.Write(body)
	return wireRequest{bytes: []byte(b.String()), head: method == "HEAD"}
}
