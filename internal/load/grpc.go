package load

import (
	"encoding/binary"
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
// pool of messages.
func encodeGRPC(cfg Config, t target, tlsOn bool) ([]wireRequest, error) {
	call := cfg.GRPC
	service, method, ok := strings.Cut(strings.TrimPrefix(call.Method, "/"), "/")
	if !ok || service == "" || method == "" || strings.Contains(method, "/") {
		return nil, configErrorf("grpc", "method %q is not in the form package.Service/Method", call.Method)
	}
	for _, h := range cfg.Headers {
		if err := checkHeader(h.Name, h.Value); err != nil {
			return nil, configErrorf("header", "%v", err)
		}
	}
	scheme := "http"
	if tlsOn {
		scheme = "https"
	}
	headers := append([]Header{
		{Name: "content-type", Value: "application/grpc"},
		{Name: "te", Value: "trailers"},
	}, cfg.Headers...)
	msgs := call.Messages
	if len(msgs) == 0 {
		msgs = [][]byte{call.Message}
	}
	enc := newH2Encoder()
	out := make([]wireRequest, 0, len(msgs))
	for _, msg := range msgs {
		body := make([]byte, 5+len(msg))
		binary.BigEndian.PutUint32(body[1:5], uint32(len(msg)))
		copy(body[5:], msg)
		req, err := enc.encodeH2("POST", "/"+service+"/"+method, t.hostPort, scheme, headers, body)
		if err != nil {
			return nil, err
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
