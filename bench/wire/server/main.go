// Command server is the wire benchmark's target: one process that answers
// every request with the same small answer, over each wire the benchmark
// compares, so that generators are held against one another on the same
// server:
//
//   - -http ADDR: HTTP/1.1 in cleartext, a JSON object;
//   - -tls ADDR: the same over TLS, with a throwaway certificate written to
//     -tlsdir (its ca.pem is what the generators trust);
//   - -h2c ADDR: the same over HTTP/2 in cleartext (prior knowledge);
//   - -grpc ADDR: gRPC, every unary call answered with one fixed saas.User
//     message, whatever the method.
//
// By default the answers are written by a fixed-response server on raw
// frames (h1.go, h2.go): it parses only what it must to find where each
// request ends, and answers everything one read brought with one write, so
// that it costs a small part of what a generator does per request and the
// generator, not the server, sets the pace. -std serves the same answers
// with net/http, x/net/http2 and google.golang.org/grpc instead, the
// server of the comparisons before 2026-12-03, which held every generator
// back (see docs/results.md, "bench/wire").
//
// It listens on loopback only.
//
//	go run ./bench/wire/server -http 127.0.0.1:18090 -tls 127.0.0.1:18091 -tlsdir /tmp/x -h2c 127.0.0.1:18092 -grpc 127.0.0.1:18093
package main

import (
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"os"
	"syscall"

	"golang.org/x/net/http2/hpack"

	"github.com/stackbench/stackbench/internal/load"
)

// answer is the JSON every HTTP request gets.
var answer = []byte(`{"id":4242,"name":"User 4242","email":"user4242@example.com","age":42,"createdAt":"2023-11-14T23:24:01.000Z"}`)

// userMessage is saas.User{id: 4242, name: "User 4242", ...} in protobuf's
// wire format, the answer to every gRPC call.
var userMessage = []byte("\x08\x92\x21\x12\x09User 4242\x1a\x14user4242@example.com\x20\x2a\x2a\x182023-11-14T23:24:01.000Z")

type addrs struct{ http, tls, tlsDir, h2c, grpc string }

func main() {
	var a addrs
	flag.StringVar(&a.http, "http", "", "HTTP/1.1 cleartext listen address")
	flag.StringVar(&a.tls, "tls", "", "HTTP/1.1 over TLS listen address (needs -tlsdir)")
	flag.StringVar(&a.tlsDir, "tlsdir", "", "directory for the throwaway CA and the server's certificate")
	flag.StringVar(&a.h2c, "h2c", "", "HTTP/2 cleartext listen address")
	flag.StringVar(&a.grpc, "grpc", "", "gRPC listen address")
	std := flag.Bool("std", false, "serve with net/http, x/net/http2 and grpc-go instead of the fixed-response server")
	flag.Parse()
	if a.tls != "" && a.tlsDir == "" {
		fmt.Fprintln(os.Stderr, "server: -tls needs -tlsdir DIR, where the throwaway CA and certificate go")
		os.Exit(2)
	}
	if *std {
		log.Fatal(serveStd(a))
	}
	log.Fatal(serveFixed(a))
}

// serveFixed serves every wire asked for with the fixed-response server.
func serveFixed(a addrs) error {
	done := make(chan error)
	h1, h2, grpcAnswer := newH1Answer(answer), jsonH2Answer(), grpcH2Answer()
	listen := func(addr string, serve func(net.Conn) error) {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			log.Fatal(err)
		}
		go func() { done <- accept(ln, serve) }()
	}
	if a.http != "" {
		listen(a.http, func(c net.Conn) error { return serveH1(c, h1) })
	}
	if a.tls != "" {
		ca, err := load.WriteThrowawayCA(a.tlsDir)
		if err != nil {
			return err
		}
		cert, err := tls.LoadX509KeyPair(ca.CertFile, ca.KeyFile)
		if err != nil {
			return err
		}
		cfg := &tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: []string{"http/1.1"}}
		listen(a.tls, func(c net.Conn) error { return serveH1(tls.Server(c, cfg), h1) })
	}
	if a.h2c != "" {
		listen(a.h2c, func(c net.Conn) error { return serveH2(c, &h2) })
	}
	if a.grpc != "" {
		listen(a.grpc, func(c net.Conn) error { return serveH2(c, &grpcAnswer) })
	}
	return <-done
}

// jsonH2Answer is answer over HTTP/2.
func jsonH2Answer() h2Answer {
	return newH2Answer([]hpack.HeaderField{
		{Name: ":status", Value: "200"},
		{Name: "content-type", Value: "application/json"},
		{Name: "content-length", Value: fmt.Sprint(len(answer))},
	}, answer, nil)
}

// grpcH2Answer is a gRPC call's answer: userMessage, uncompressed, then the
// status OK in trailers.
func grpcH2Answer() h2Answer {
	body := append([]byte{0, 0, 0, 0, byte(len(userMessage))}, userMessage...)
	return newH2Answer([]hpack.HeaderField{
		{Name: ":status", Value: "200"},
		{Name: "content-type", Value: "application/grpc"},
	}, body, []hpack.HeaderField{{Name: "grpc-status", Value: "0"}})
}

// accept serves each connection of ln on its own goroutine; a connection
// the client broke is logged and closed. A reset is not logged: a timed
// generator (ghz) may end its run by resetting connections with requests
// on them.
func accept(ln net.Listener, serve func(net.Conn) error) error {
	for {
		c, err := ln.Accept()
		if err != nil {
			return err
		}
		go func() {
			defer c.Close()
			if err := serve(c); err != nil && err != errGoAway && !errors.Is(err, syscall.ECONNRESET) && !errors.Is(err, syscall.EPIPE) {
				log.Printf("%v: %v", c.RemoteAddr(), err)
			}
		}()
	}
}
