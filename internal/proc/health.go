package proc

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/stackbench/stackbench/internal/netutil"
)

// healthPollInterval is the pause between two health requests during boot.
const healthPollInterval = time.Millisecond

// healthAttemptTimeout bounds one health request, so a server that accepts
// connections but never answers is retried rather than waited on forever.
const healthAttemptTimeout = 2 * time.Second

// pollHealth requests the health path until it answers 200 and returns
// the time the 200 arrived. It fails when the process exits (done is
// closed), the boot timeout passes, or ctx ends.
func pollHealth(ctx context.Context, s Spec, done <-chan struct{}, spawned time.Time) (time.Time, error) {
	ctx, cancel := context.WithDeadline(ctx, spawned.Add(s.BootTimeout))
	defer cancel()
	scheme := "http"
	if s.HealthCA != nil {
		scheme = "https"
	}
	url := scheme + "://127.0.0.1:" + strconv.Itoa(s.Port) + s.HealthPath
	client, err := healthClient(s)
	if err != nil {
		return time.Time{}, err
	}
	defer client.CloseIdleConnections()
	lastProblem := "no answer yet"
	for {
		select {
		case <-done:
			return time.Time{}, errors.New("the process exited before answering 200 on " + s.HealthPath + " (" + lastProblem + ")")
		default:
		}
		status, at, err := healthOnce(ctx, client, url, s.HealthProtocol == "grpc")
		if status == http.StatusOK {
			return at, nil
		}
		if errors.Is(err, netutil.ErrRedirectRefused) {
			// Not retried: whatever answers at the redirect's end is not
			// the stack, and the stack will not stop redirecting.
			return time.Time{}, fmt.Errorf("the health check failed: %w", err)
		}
		if err != nil {
			lastProblem = "last attempt: " + err.Error()
		} else {
			lastProblem = "last answer: status " + strconv.Itoa(status)
		}
		if ctx.Err() != nil {
			if errors.Is(context.Cause(ctx), context.DeadlineExceeded) && time.Since(spawned) >= s.BootTimeout {
				return time.Time{}, fmt.Errorf("no 200 from %s within the boot timeout of %s (%s); raise boot_timeout if the stack is slow to start", url, s.BootTimeout, lastProblem)
			}
			return time.Time{}, fmt.Errorf("boot of %s interrupted: %w", url, ctx.Err())
		}
		select {
		case <-done:
		case <-ctx.Done():
		case <-time.After(healthPollInterval):
		}
	}
}

// healthClient opens a fresh connection per attempt (no idle connection to
// the stack is left behind to weigh on its first measured window) and
// follows no redirect (healthOnce fails on one). It speaks the stack's
// protocol: HTTP/1.1, or HTTP/2 for h2c, h2 and grpc; over TLS when the
// spec gives a CA.
func healthClient(s Spec) (*http.Client, error) {
	t := &http.Transport{DisableKeepAlives: true}
	if s.HealthCA != nil {
		roots := x509.NewCertPool()
		if !roots.AppendCertsFromPEM(s.HealthCA) {
			return nil, errors.New("the health check's CA holds no PEM certificate")
		}
		t.TLSClientConfig = &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}
	}
	switch s.HealthProtocol {
	case "", "http1":
	case "h2c", "h2", "grpc":
		// HTTP/2 only: over TLS through ALPN, in cleartext with prior
		// knowledge.
		var p http.Protocols
		if s.HealthCA != nil {
			p.SetHTTP2(true)
			t.ForceAttemptHTTP2 = true
		} else {
			p.SetUnencryptedHTTP2(true)
		}
		t.Protocols = &p
	default:
		return nil, fmt.Errorf("health protocol %q is not one of http1, h2c, h2, grpc", s.HealthProtocol)
	}
	return &http.Client{Transport: t, CheckRedirect: netutil.NoRedirects}, nil
}

// grpcEmptyMessage is a gRPC request frame holding an empty message:
// not compressed, length 0.
var grpcEmptyMessage = []byte{0, 0, 0, 0, 0}

// healthOnce sends one GET (a gRPC call when grpc is true) and returns
// its status and when the response head arrived. A gRPC call answers 200
// only with grpc-status 0; another grpc-status is returned as 500 and
// its message in the error. A redirect is an error that wraps
// netutil.ErrRedirectRefused: the stack's own answer must be its 200,
// not another listener's (on this machine or not) at the redirect's end.
func healthOnce(ctx context.Context, client *http.Client, url string, grpc bool) (int, time.Time, error) {
	ctx, cancel := context.WithTimeout(ctx, healthAttemptTimeout)
	defer cancel()
	method, body := http.MethodGet, io.Reader(nil)
	if grpc {
		method, body = http.MethodPost, bytes.NewReader(grpcEmptyMessage)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, body)
	if err != nil {
		return 0, time.Time{}, err
	}
	if grpc {
		req.Header.Set("Content-Type", "application/grpc")
		req.Header.Set("TE", "trailers")
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, time.Time{}, err
	}
	at := time.Now()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	if resp.StatusCode >= 300 && resp.StatusCode < 400 && resp.Header.Get("Location") != "" {
		return resp.StatusCode, at, fmt.Errorf("%w: %s answered %d, a redirect to %s; stackbench follows no redirect in the health poll, so point health: at the path where the stack itself answers 200",
			netutil.ErrRedirectRefused, req.URL.Path, resp.StatusCode, redactedLocation(resp))
	}
	if grpc && resp.StatusCode == http.StatusOK {
		code := resp.Trailer.Get("Grpc-Status")
		if code == "" {
			code = resp.Header.Get("Grpc-Status") // a trailers-only answer
		}
		if code != "0" {
			return http.StatusInternalServerError, at, fmt.Errorf("grpc-status %q: %s", code, resp.Trailer.Get("Grpc-Message")+resp.Header.Get("Grpc-Message"))
		}
	}
	return resp.StatusCode, at, nil
}

// redactedLocation is a redirect's target, its password hidden.
func redactedLocation(resp *http.Response) string {
	u, err := resp.Location()
	if err != nil {
		return strconv.Quote(resp.Header.Get("Location"))
	}
	return u.Redacted()
}
