package saas

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"
)

// NetHTTPHandler routes the SaaS-slice workload with net/http's ServeMux
// (Go 1.22 method and wildcard patterns). Every net/http-based reference
// server uses it, so that they differ only in the layer their step compares.
func NetHTTPHandler(a *App) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) {
		writeResponse(w, a.Health())
	})
	mux.HandleFunc("POST /echo", func(w http.ResponseWriter, r *http.Request) {
		if body, ok := readBody(w, r); ok {
			writeResponse(w, a.Echo(body))
		}
	})
	mux.HandleFunc("GET /me", func(w http.ResponseWriter, r *http.Request) {
		writeResponse(w, a.Me(r.Context(), r.Header.Get("Authorization")))
	})
	mux.HandleFunc("GET /users/{id}", func(w http.ResponseWriter, r *http.Request) {
		writeResponse(w, a.User(r.Context(), r.PathValue("id")))
	})
	mux.HandleFunc("GET /users", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		writeResponse(w, a.ListUsers(r.Context(), q.Get("page"), q.Get("limit")))
	})
	mux.HandleFunc("POST /orders", func(w http.ResponseWriter, r *http.Request) {
		if body, ok := readBody(w, r); ok {
			writeResponse(w, a.CreateOrder(r.Context(), body))
		}
	})
	mux.HandleFunc("GET /cpu", func(w http.ResponseWriter, r *http.Request) {
		writeResponse(w, a.CPU(r.URL.Query().Get("n")))
	})
	return mux
}

// NetHTTPMicroHandler routes the micro workload (and /health, so the
// harness's default health path works) with net/http's ServeMux.
func NetHTTPMicroHandler(a *App) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) {
		writeResponse(w, a.Health())
	})
	mux.HandleFunc("GET /users/{id}", func(w http.ResponseWriter, r *http.Request) {
		writeResponse(w, a.MicroUser(r.PathValue("id")))
	})
	mux.HandleFunc("POST /users", func(w http.ResponseWriter, r *http.Request) {
		if body, ok := readBody(w, r); ok {
			writeResponse(w, a.MicroCreate(body))
		}
	})
	return mux
}

func writeResponse(w http.ResponseWriter, resp Response) {
	w.Header().Set("Content-Type", ContentType)
	w.WriteHeader(resp.Status)
	w.Write(resp.Body)
}

// readBody reads at most MaxBodyBytes of the request body; on failure it
// answers 413 or 400 itself and returns false.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	if err == nil {
		return body, true
	}
	status := http.StatusBadRequest
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		status = http.StatusRequestEntityTooLarge
	}
	writeResponse(w, Response{status, bodyBadJSON})
	return nil, false
}

// shutdownTimeout bounds the graceful shutdown after SIGTERM.
const shutdownTimeout = 5 * time.Second

// ServeHTTP serves h on addr until ctx is cancelled (SIGTERM), then shuts
// down gracefully: it stops accepting, lets requests in flight finish for up
// to 5 s, and returns nil. When STACKBENCH_CPUPROFILE names a file, the
// server's CPU profile is written to it (see WithCPUProfile). With
// SAAS_BURN_US set, each request first burns that much CPU (see BurnEnv).
// Go's net/http/pprof is served under /debug/pprof/ (withPprof). The
// wire follows the harness: TLS (HTTP/1.1 and HTTP/2 through ALPN) when
// TLS_CERT_FILE and TLS_KEY_FILE name a certificate and its key, and
// HTTP/2 in cleartext with prior knowledge beside HTTP/1.1 when
// STACKBENCH_PROTOCOL is h2c (see wireFromEnv).
func ServeHTTP(ctx context.Context, addr string, h http.Handler) error {
	burn, err := burnFromEnv(os.Getenv)
	if err != nil {
		return err
	}
	h = withPprof(withBurn(h, burn))
	w, err := wireFromEnv(os.Getenv)
	if err != nil {
		return err
	}
	return WithCPUProfile(os.Getenv(CPUProfileEnv), func() error { return serveHTTP(ctx, addr, h, w) })
}

// wire is how a net/http reference server is reached.
type wire struct {
	certFile, keyFile string // both set: TLS
	h2c               bool   // HTTP/2 in cleartext beside HTTP/1.1
}

// wireFromEnv reads TLS_CERT_FILE, TLS_KEY_FILE and STACKBENCH_PROTOCOL
// (http1, h2, h2c or grpc, as the stack's protocol: says; this server
// speaks no gRPC).
func wireFromEnv(getenv func(string) string) (wire, error) {
	w := wire{certFile: getenv("TLS_CERT_FILE"), keyFile: getenv("TLS_KEY_FILE")}
	if (w.certFile == "") != (w.keyFile == "") {
		return w, fmt.Errorf("TLS_CERT_FILE and TLS_KEY_FILE go together: set both for TLS, or neither")
	}
	switch p := getenv("STACKBENCH_PROTOCOL"); p {
	case "", "http1", "h2":
	case "h2c":
		w.h2c = true
	default:
		return w, fmt.Errorf("STACKBENCH_PROTOCOL=%q: this server speaks http1, h2 (with TLS) and h2c", p)
	}
	return w, nil
}

func serveHTTP(ctx context.Context, addr string, h http.Handler, w wire) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listen on %s (is another server on that port?): %w", addr, err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	if w.h2c {
		srv.Protocols = new(http.Protocols)
		srv.Protocols.SetHTTP1(true)
		srv.Protocols.SetUnencryptedHTTP2(true)
	}
	done := make(chan error, 1)
	if w.certFile != "" {
		go func() { done <- srv.ServeTLS(ln, w.certFile, w.keyFile) }()
	} else {
		go func() { done <- srv.Serve(ln) }()
	}
	select {
	case err := <-done:
		return fmt.Errorf("serve on %s: %w", addr, err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("graceful shutdown: %w", err)
	}
	return nil
}
