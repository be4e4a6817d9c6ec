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

// wireClient is the checks' HTTP client for a stack reached over protocol
// ("" or "http1", "h2", "h2c", "grpc"), over TLS trusting caPEM when it is
// given. It follows no redirect.
func wireClient(protocol string, caPEM []byte, timeout time.Duration) (*http.Client, error) {
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
	msg, err := m.Encode(c.GRPC.Message)
	if err != nil {
		return grpcAnswer{}, err
	}
	frame := make([]byte, 5+len(msg))
	binary.BigEndian.PutUint32(frame[1:5], uint32(len(msg)))
	copy(frame[5:], msg)
	req, err := http.NewRequestWithContext(r.ctx, http.MethodPost, r.base+"/"+m.Name, bytes.NewReader(frame))
	if err != nil {
		return grpcAnswer{}, err
	}
	req.Header.Set("Content-Type", "application/grpc")
	req.Header.Set("TE", "trailers")
	resp, err := r.client.Do(req)
	if err != nil {
		return grpcAnswer{}, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBodyBytes))
	if err != nil {
		return grpcAnswer{}, fmt.Errorf("reading the answer: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return grpcAnswer{status: resp.StatusCode, contentType: resp.Header.Get("Content-Type"), body: body}, nil
	}
	codeText := resp.Trailer.Get("Grpc-Status")
	text := resp.Trailer.Get("Grpc-Message")
	if codeText == "" {
		codeText, text = resp.Header.Get("Grpc-Status"), resp.Header.Get("Grpc-Message") // trailers only
	}
	code, err := strconv.Atoi(codeText)
	if err != nil {
		return grpcAnswer{}, fmt.Errorf("HTTP 200 without a grpc-status (%q): not a gRPC answer", codeText)
	}
	if code != 0 {
		return grpcAnswer{status: HTTPStatusOfGRPC(code), body: []byte(fmt.Sprintf("grpc-status %d %s", code, text))}, nil
	}
	if len(body) < 5 || body[0] != 0 || int(binary.BigEndian.Uint32(body[1:5])) != len(body)-5 {
		return grpcAnswer{}, fmt.Errorf("grpc-status 0 with an answer that is not one uncompressed message (%d bytes)", len(body))
	}
	js, err := m.DecodeJSON(body[5:])
	if err != nil {
		return grpcAnswer{}, err
	}
	// protojson varies its spacing on purpose; the check holds it compact.
	var out bytes.Buffer
	if err := json.Compact(&out, js); err != nil {
		return grpcAnswer{}, err
	}
	return grpcAnswer{status: success, contentType: "application/json", body: out.Bytes()}, nil
}

// grpcSent describes a gRPC check's call in one line.
func grpcSent(c *GRPCCall, maxBytes int) string {
	return "gRPC " + c.Method + " " + truncate(strings.TrimSpace(c.Message), maxBytes)
}
