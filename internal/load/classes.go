package load

import (
	"errors"
	"strconv"

	"golang.org/x/sys/unix"
)

// errorClass is a kind of failed request other than an unexpected status.
type errorClass uint8

// The error classes, in the order they are reported: the transport
// classes, then unfinished (sent, and still unanswered when the drain
// ended), which classify never returns. These six are always in a
// Result's Errors. The protocol classes after them appear only when they
// happened: tls (a handshake that failed: an untrusted certificate, no
// common version, no agreement on h2; or a record after it that did: one
// that failed to decrypt, an alert other than close_notify), rst_stream (the server reset the
// request's HTTP/2 stream), goaway (the server's GOAWAY said it would not
// answer the stream), grpc_no_status (a gRPC answer without a grpc-status),
// capture (a flow's step answered as expected, but a value it captures was
// not in the answer).
const (
	classTimeout errorClass = iota
	classReset
	classRefused
	classClosed
	classOther
	classUnfinished
	classTLS
	classRSTStream
	classGoAway
	classGRPCNoStatus
	classCapture
	numClasses
)

// alwaysReported is the number of classes a Result always lists.
const alwaysReported = int(classUnfinished) + 1

var classNames = [numClasses]string{"timeout", "reset", "refused", "closed", "other", "unfinished", "tls", "rst_stream", "goaway", "grpc_no_status", "capture"}

// classify maps a socket error to its class.
func classify(err error) errorClass {
	var errno unix.Errno
	if !errors.As(err, &errno) {
		return classOther
	}
	switch errno {
	case unix.ECONNREFUSED:
		return classRefused
	case unix.ECONNRESET:
		return classReset
	case unix.EPIPE:
		return classClosed
	case unix.ETIMEDOUT:
		return classTimeout
	case errnoTLS:
		return classTLS
	}
	return classOther
}

// statusKey is the Errors key of an unexpected status: an HTTP status, or
// from grpcStatusBase on a gRPC status.
func statusKey(code int) string {
	if code >= grpcStatusBase {
		return grpcKey(code - grpcStatusBase)
	}
	return "status_" + strconv.Itoa(code)
}
