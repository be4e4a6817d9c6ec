package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/stackbench/stackbench/internal/load"
)

// listenFixed serves serve on a loopback port for the test.
func listenFixed(t *testing.T, serve func(net.Conn) error) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go accept(ln, serve)
	return ln.Addr().String()
}

// fetchAll fetches url n times at once with client and checks every answer.
func fetchAll(t *testing.T, client *http.Client, url string, n int, wantProto int) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := client.Get(url)
			if err != nil {
				errs <- err
				return
			}
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil || resp.StatusCode != 200 || resp.ProtoMajor != wantProto || !bytes.Equal(body, answer) ||
				resp.Header.Get("Content-Type") != "application/json" {
				errs <- fmt.Errorf("HTTP/%d %d %q (%v)", resp.ProtoMajor, resp.StatusCode, body, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// x/net's HTTP/2 client, with prior knowledge, reads the fixed answers,
// many streams at once on one connection.
func TestFixedH2CAnswersAStandardClient(t *testing.T) {
	ans := jsonH2Answer()
	addr := listenFixed(t, func(c net.Conn) error { return serveH2(c, &ans) })
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http2.Transport{
		AllowHTTP: true,
		DialTLSContext: func(ctx context.Context, network, addr string, _ *tls.Config) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, network, addr)
		},
	}}
	for range 3 {
		fetchAll(t, client, "http://"+addr+"/", 200, 2)
	}
}

// net/http's client reads the HTTP/1.1 answers, in cleartext and over TLS
// with the throwaway certificate.
func TestFixedH1AnswersAStandardClient(t *testing.T) {
	h1 := newH1Answer(answer)
	addr := listenFixed(t, func(c net.Conn) error { return serveH1(c, h1) })
	fetchAll(t, &http.Client{Timeout: 10 * time.Second}, "http://"+addr+"/", 50, 1)

	dir := t.TempDir()
	ca, err := load.WriteThrowawayCA(dir)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := tls.LoadX509KeyPair(ca.CertFile, ca.KeyFile)
	if err != nil {
		t.Fatal(err)
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: []string{"http/1.1"}}
	tlsAddr := listenFixed(t, func(c net.Conn) error { return serveH1(tls.Server(c, cfg), h1) })
	pem, err := os.ReadFile(filepath.Join(dir, "ca.pem"))
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(pem)
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}}}
	fetchAll(t, client, "https://"+tlsAddr+"/", 50, 1)
}

// grpc-go's client gets the fixed saas.User for a unary call, with status
// OK.
func TestFixedGRPCAnswersGRPCGo(t *testing.T) {
	ans := grpcH2Answer()
	addr := listenFixed(t, func(c net.Conn) error { return serveH2(c, &ans) })
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.ForceCodecV2(rawCodec{})))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for range 100 {
		in, out := rawMessage("\x08\x92\x21"), rawMessage(nil)
		if err := conn.Invoke(ctx, "/saas.Users/GetUser", &in, &out); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out, userMessage) {
			t.Fatalf("answer %q, want %q", out, userMessage)
		}
	}
}

// The server keeps to the client's connection window: answers beyond it
// wait for the client's WINDOW_UPDATE, then all come.
func TestFixedH2KeepsToTheConnectionWindow(t *testing.T) {
	ans := jsonH2Answer()
	addr := listenFixed(t, func(c net.Conn) error { return serveH2(c, &ans) })
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Write([]byte(http2.ClientPreface))
	fr := http2.NewFramer(c, c)
	fr.WriteSettings()
	streams := 65535/int(ans.dataBytes) + 20 // 20 answers more than the window holds
	for i := range streams {
		fr.WriteHeaders(http2.HeadersFrameParam{StreamID: uint32(2*i + 1), BlockFragment: []byte{0x82, 0x86, 0x84}, EndStream: true, EndHeaders: true})
	}
	// readData reads frames until want answers' DATA came or the read
	// times out; it returns the answers that came.
	got := 0
	readData := func(want int, wait time.Duration) {
		c.SetReadDeadline(time.Now().Add(wait))
		for got < want {
			f, err := fr.ReadFrame()
			if err != nil {
				return
			}
			if d, ok := f.(*http2.DataFrame); ok && d.StreamEnded() {
				got++
			}
		}
	}
	fits := 65535 / int(ans.dataBytes)
	readData(streams, 300*time.Millisecond)
	if got != fits {
		t.Fatalf("%d answers within a 65,535-byte window, want %d", got, fits)
	}
	fr.WriteWindowUpdate(0, 1<<20)
	readData(streams, 5*time.Second)
	if got != streams {
		t.Fatalf("%d answers after the WINDOW_UPDATE, want %d", got, streams)
	}
}
