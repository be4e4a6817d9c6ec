package workload

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/stackbench/stackbench/internal/load/grpcmsg"
	"github.com/stackbench/stackbench/internal/netutil"
)

// GRPCOptions make the checks of a stack that speaks gRPC unary calls:
// each case's gRPC request, its answer turned into JSON through the
// method's descriptors (protobuf's JSON mapping, every field present), so
// that it compares with a JSON stack's answer of the same contract.
type GRPCOptions struct {
	// Method finds a method's descriptors: in the stack's .proto file or
	// descriptor set, or by server reflection.
	Method func(ctx context.Context, name string) (*grpcmsg.Method, error)
}

// HTTPStatusOfGRPC is the HTTP status a gRPC status code stands for when
// a gRPC stack's answer is held against a JSON stack's (docs/load.md,
// "gRPC and HTTP statuses"): the mapping of Google's API design guide
// (google.rpc.Code), which grpc-gateway and Connect use too. OK stands for
// the case's own success status, not here.
func HTTPStatusOfGRPC(code int) int {
	switch code {
	case 1: // CANCELLED
		return 499
	case 3, 9, 11: // INVALID_ARGUMENT, FAILED_PRECONDITION, OUT_OF_RANGE
		return http.StatusBadRequest
	case 4: // DEADLINE_EXCEEDED
		return http.StatusGatewayTimeout
	case 5: // NOT_FOUND
		return http.StatusNotFound
	case 6, 10: // ALREADY_EXISTS, ABORTED
		return http.StatusConflict
	case 7: // PERMISSION_DENIED
		return http.StatusForbidden
	case 8: // RESOURCE_EXHAUSTED
		return http.StatusTooManyRequests
	case 12: // UNIMPLEMENTED
		return http.StatusNotImplemented
	case 14: // UNAVAILABLE
		return http.StatusServiceUnavailable
	case 16: // UNAUTHENTICATED
		return http.StatusUnauthorized
	}
	return http.StatusInternalServerError // UNKNOWN, INTERNAL, DATA_LOSS, any other
}

// WireClient is an HTTP client for a stack reached over protocol ("" or
// "http1", "h2", "h2c", "grpc"), over TLS trusting caPEM only when it is
// given (the run's throwaway CA), HTTP/2 by ALPN over TLS and with prior
// knowledge in cleartext. It follows no redirect (a 307 would carry a
// request's body and headers wherever it points). The parity checks and
// the setup steps use it.
func WireClient(protocol string, caPEM []byte, timeout time.Duration) (*http.Client, error) {
	t := &http.Transport{}
	if caPEM != nil {
		roots := x509.NewCertPool()
		if !roots.AppendCertsFromPEM(caPEM) {
			return nil, errors.New("the stack's CA holds no PEM certificate")
		}
		t.TLSClientConfig = &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}
	}
	switch protocol {
	case "", "http1":
	case "h2", "h2c", "grpc":
		var p http.Protocols
		if caPEM != nil {
			p.SetHTTP2(true)
			t.ForceAttemptHTTP2 = true
		} else {
			p.SetUnencryptedHTTP2(true)
		}
		t.Protocols = &p
	default:
		return nil, fmt.Errorf("protocol %q is not one of http1, h2, h2c, grpc", protocol)
	}
	return &http.Client{Transport: t, Timeout: timeout, CheckRedirect: netutil.NoRedirects}, nil
}

// grpcAnswer is a gRPC call's answer as a check holds it: an HTTP status
// (the case's success status for OK, HTTPStatusOfGRPC otherwise), a
// content type and a body — the message as JSON, or the status message.
type grpcAnswer struct {
	status      int
	contentType string
	body        []byte
}

// callGRPC makes the check's gRPC call and turns the answer into what an
// HTTP check holds. success is the status OK stands for.
func (r *runner) callGRPC(c Check, success int) (grpcAnswer, error) {
	m, err := r.opt.GRPC.Method(r.ctx, c.GRPC.Method)
	if err != nil {
		return grpcAnswer{}, fmt.Errorf("the method's descriptors: %w", err)
	}
	a, err := CallGRPC(r.ctx, r.client, r.base, m, c.GRPC.Message, c.GRPC.Metadata)
	switch {
	case err != nil:
		return grpcAnswer{}, err
	case a.HTTPStatus != http.StatusOK:
		return grpcAnswer{status: a.HTTPStatus, contentType: a.Header.Get("Content-Type"), body: a.Body}, nil
	case a.Code != 0:
		return grpcAnswer{status: HTTPStatusOfGRPC(a.Code), body: []byte(fmt.Sprintf("grpc-status %d %s", a.Code, a.Text))}, nil
	}
	return grpcAnswer{status: success, contentType: "application/json", body: a.Body}, nil
}

// GRPCAnswer is the answer to one unary gRPC call.
type GRPCAnswer struct {
	// HTTPStatus is the answer's HTTP status; when it is not 200 the
	// answer is not gRPC's and Body is what came, as it came.
	HTTPStatus int
	// Header is the answer's headers (the call's response metadata).
	Header http.Header
	// Code and Text are the grpc-status and grpc-message (of the
	// trailers, or of the headers in a trailers-only answer).
	Code int
	Text string
	// Body is, for grpc-status 0, the answer's message as compact JSON
	// (protobuf's JSON mapping, every field present).
	Body []byte
}

// CallGRPC makes one unary call of method m at baseURL with message (JSON
// in protobuf's mapping) and request metadata (sent as header fields, as
// the load engine sends them) over client, an HTTP/2 client (WireClient), and
// reads its answer. An answer that is not one (no grpc-status, or an OK
// without one uncompressed message) is an error.
func CallGRPC(ctx context.Context, client *http.Client, baseURL string, m *grpcmsg.Method, message string, metadata []Header) (GRPCAnswer, error) {
	msg, err := m.Encode(message)
	if err != nil {
		return GRPCAnswer{}, err
	}
	frame := make([]byte, 5+len(msg))
	binary.BigEndian.PutUint32(frame[1:5], uint32(len(msg)))
	copy(frame[5:], msg)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, baseURL+"/"+m.Name, bytes.NewReader(frame))
	if err != nil {
		return GRPCAnswer{}, err
	}
	for _, h := range metadata {
		req.Header.Add(h.Name, h.Value)
	}
	req.Header.Set("Content-Type", "application/grpc")
	req.Header.Set("TE", "trailers")
	resp, err := client.Do(req)
	if err != nil {
		return GRPCAnswer{}, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBodyBytes))
	if err != nil {
		return GRPCAnswer{}, fmt.Errorf("reading the answer: %w", err)
	}
	a := GRPCAnswer{HTTPStatus: resp.StatusCode, Header: resp.Header, Body: body}
	if resp.StatusCode != http.StatusOK {
		return a, nil
	}
	codeText := resp.Trailer.Get("Grpc-Status")
	a.Text = resp.Trailer.Get("Grpc-Message")
	if codeText == "" {
		codeText, a.Text = resp.Header.Get("Grpc-Status"), resp.Header.Get("Grpc-Message") // trailers only
	}
	if a.Code, err = strconv.Atoi(codeText); err != nil {
		return GRPCAnswer{}, fmt.Errorf("HTTP 200 without a grpc-status (%q): not a gRPC answer", codeText)
	}
	if a.Code != 0 {
		a.Body = nil
		return a, nil
	}
	if len(body) < 5 || body[0] != 0 || int(binary.BigEndian.Uint32(body[1:5])) != len(body)-5 {
		return GRPCAnswer{}, fmt.Errorf("grpc-status 0 with an answer that is not one uncompressed message (%d bytes)", len(body))
	}
	js, err := m.DecodeJSON(body[5:])
	if err != nil {
		return GRPCAnswer{}, err
	}
	// protojson varies its spacing on purpose; the answer is held compact.
	var out bytes.Buffer
	if err := json.Compact(&out, js); err != nil {
		return GRPCAnswer{}, err
	}
	a.Body = out.Bytes()
	return a, nil
}

// grpcSent describes a gRPC check's call in one line.
func grpcSent(c *GRPCCall, maxBytes int) string {
	return "gRPC " + c.Method + " " + truncate(strings.TrimSpace(c.Message), maxBytes)
}
