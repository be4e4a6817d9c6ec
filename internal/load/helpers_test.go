package load

import (
	"bufio"
	"bytes"
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// runLoad runs cfg against url and fails the test on a run error.
func runLoad(t *testing.T, url string, cfg Config) *Result {
	t.Helper()
	cfg.URL = url
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := Run(ctx, cfg)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return res
}

// httpServer starts an httptest server with handler and returns its URL.
func httpServer(t *testing.T, handler http.HandlerFunc) string {
	t.Helper()
	srv := httptest.NewServer(handler)
	t.Cleanup(srv.Close)
	return srv.URL
}

// rawServer accepts connections on loopback and hands each to serve in its
// own goroutine; it is closed, and its goroutines waited for, at cleanup.
func rawServer(t *testing.T, serve func(c net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				serve(c)
			}()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return "http://" + ln.Addr().String() + "/"
}

// fixedResponder answers every request on c with resp, reading requests
// without allocating (a GET without a body: up to the blank line).
func fixedResponder(resp []byte) func(c net.Conn) {
	return func(c net.Conn) {
		r := bufio.NewReaderSize(c, 4096)
		for {
			if err := skipRequestHead(r); err != nil {
				return
			}
			if _, err := c.Write(resp); err != nil {
				return
			}
		}
	}
}

// skipRequestHead reads one request head (no body) from r.
func skipRequestHead(r *bufio.Reader) error {
	for {
		line, err := r.ReadSlice('\n')
		if err != nil {
			return err
		}
		if len(bytes.TrimSpace(line)) == 0 {
			return nil
		}
	}
}
