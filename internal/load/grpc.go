package load

import (
	"encoding/binary"
	"fmt"
	"strings"
)

// GRPCCall is the call of a gRPC run (Config.Protocol "grpc"): a unary
// call, sent as HTTP/2 POST /Method with the message framed as gRPC
// frames it (a flag byte, not compressed, and a 4-byte length). Building
// Message from JSON and a service's descriptors is the caller's (package
// grpcmsg); the engine only sends bytes.
type GRPCCall struct {
	// Method is the full method name, "package.Service/Method".
	Method string
	// Message is the request message in protobuf's wire format.
	Message []byte
	// Messages, when not empty, replaces Message: a pool of request
	// messages (a templated case's variants), sent round-robin in order
	// across all connections, as a request pool is.
	Messages [][]byte
	// Metadata, when not empty, is the call's request metadata per
	// message: Metadata[k] goes with Messages[k] (with Message when there
	// is one set), as HTTP/2 header fields after Config.Headers, which go
	// with every call. Names are lower-cased; CheckGRPCMetadata says which
	// are refused.
	Metadata [][]Header
}

// CheckGRPCMetadata checks one request metadata entry of a gRPC call:
// its name a header name (any case; it is sent lower-cased) and not one
// the engine or the protocol sets itself — a pseudo-header, content-type,
// te, a grpc-* name (gRPC reserves them), or a connection-specific header
// HTTP/2 forbids — and its value a single line.
func CheckGRPCMetadata(name, value string) error {
	lower := strings.ToLower(name)
	switch {
	case strings.HasPrefix(name, ":"):
		return fmt.Errorf("metadata %q is a pseudo-header, which the engine writes itself (:method, :path, :authority, :scheme); remove it", name)
	case lower == "content-type" || lower == "te":
		return fmt.Errorf("metadata %q is set by the engine on every gRPC call (content-type: application/grpc, te: trailers); remove it", name)
	case strings.HasPrefix(lower, "grpc-"):
		return fmt.Errorf("metadata %q: names starting with grpc- are reserved by gRPC; choose another name", name)
	case lower == "host":
		return fmt.Errorf("metadata %q: the engine sends the target's host and port as :authority; remove it", name)
	case h2Hop[lower] || lower == "content-length":
		return fmt.Errorf("metadata %q is a connection-specific header, which HTTP/2 (and so gRPC) does not carry; remove it", name)
	}
	return checkHeader(name, value)
}

// gRPC status codes, as the engine keeps them: a failed call's code is
// counted in the unexpected-status array from grpcStatusBase, and
// reported as grpc_<name>.
const (
	grpcCodes         = 17
	grpcStatusBase    = 1000
	grpcUnknownStatus = 2
)

var grpcCodeNames = [grpcCodes]string{
	"ok", "canceled", "unknown", "invalid_argument", "deadline_exceeded", "not_found",
	"already_exists", "permission_denied", "resource_exhausted", "failed_precondition",
	"aborted", "out_of_range", "unimplemented", "internal", "unavailable", "data_loss",
	"unauthenticated",
}

// grpcKey is the Errors key of a gRPC status code: grpc_unavailable.
func grpcKey(code int) string { return "grpc_" + grpcCodeNames[code] }

// GRPCCodeOf returns the code of a grpc_<name> Errors key, or -1.
func GRPCCodeOf(key string) int {
	name, ok := strings.CutPrefix(key, "grpc_")
	if !ok {
		return -1
	}
	for code, n := range grpcCodeNames {
		if n == name {
			return code
		}
	}
	return -1
}

// encodeGRPC builds the requests of a gRPC run: its one message, or its
// pool of messages, each with its metadata. Each request's header block
// is encoded here, once; requests whose blocks are equal (the same
// metadata and message length) share one.
func encodeGRPC(cfg Config, t target, tlsOn bool) ([]wireRequest, error) {
	call := cfg.GRPC
	service, method, ok := strings.Cut(strings.TrimPrefix(call.Method, "/"), "/")
	if !ok || service == "" || method == "" || strings.Contains(method, "/") {
		return nil, configErrorf("grpc", "method %q is not in the form package.Service/Method", call.Method)
	}
	for _, h := range cfg.Headers {
		if err := CheckGRPCMetadata(h.Name, h.Value); err != nil {
			return nil, configErrorf("header", "%v", err)
		}
	}
	msgs := call.Messages
	if len(msgs) == 0 {
		msgs = [][]byte{call.Message}
	}
	if len(call.Metadata) > 0 && len(call.Metadata) != len(msgs) {
		return nil, configErrorf("grpc", "%d sets of metadata for %d messages; give one set per message", len(call.Metadata), len(msgs))
	}
	for k, md := range call.Metadata {
		for _, h := range md {
			if err := CheckGRPCMetadata(h.Name, h.Value); err != nil {
				return nil, configErrorf("grpc", "metadata of message %d: %v", k+1, err)
			}
		}
	}
	scheme := "http"
	if tlsOn {
		scheme = "https"
	}
	base := append([]Header{
		{Name: "content-type", Value: "application/grpc"},
		{Name: "te", Value: "trailers"},
	}, cfg.Headers...)
	headers := base
	enc := newH2Encoder()
	blocks := map[string][]byte{}
	out := make([]wireRequest, 0, len(msgs))
	for k, msg := range msgs {
		body := make([]byte, 5+len(msg))
		binary.BigEndian.PutUint32(body[1:5], uint32(len(msg)))
		copy(body[5:], msg)
		if len(call.Metadata) > 0 {
			headers = append(headers[:len(base):len(base)], call.Metadata[k]...)
		}
		req, err := enc.encodeH2("POST", "/"+service+"/"+method, t.hostPort, scheme, headers, body)
		if err != nil {
			return nil, configErrorf("grpc", "message %d: %v", k+1, err)
		}
		if b, ok := blocks[string(req.h2block)]; ok {
			req.h2block = b
		} else {
			blocks[string(req.h2block)] = req.h2block
		}
		out = append(out, req)
	}
	return out, nil
}

// grpcOutcome judges a whole gRPC answer on lane c: a success only with
// HTTP 200 and grpc-status 0. Another HTTP status counts as that status;
// a 200 without grpc-status (no trailers) as grpc_no_status; a non-zero
// grpc-status as its code, whatever the HTTP status said.
func (w *worker) grpcOutcome(c *conn) (ok bool, class errorClass, status int) {
	switch g := c.h2.grpc; {
	case c.h2.status != 200:
		if c.h2.status == 0 {
			return false, classOther, 0
		}
		return false, classOther, c.h2.status
	case g < 0:
		return false, classGRPCNoStatus, 0
	case g == 0:
		return true, 0, 0
	case g >= grpcCodes:
		return false, classOther, grpcStatusBase + grpcUnknownStatus
	default:
		return false, classOther, grpcStatusBase + g
	}
}
