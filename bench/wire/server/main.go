// Command server is the wire benchmark's target: one process that answers
// every request with the same small answer, over each wire the benchmark
// compares, so that generators are held against one another on the same
// server:
//
//   - -http ADDR: HTTP/1.1 in cleartext (net/http), a JSON object;
//   - -tls ADDR: the same over TLS, with a throwaway certificate written to
//     -tlsdir (its ca.pem is what the generators trust);
//   - -h2c ADDR: the same over HTTP/2 in cleartext (prior knowledge);
//   - -grpc ADDR: gRPC (google.golang.org/grpc), every unary call answered
//     with one fixed saas.User message, whatever the method.
//
// It listens on loopback only.
//
//	go run ./bench/wire/server -http 127.0.0.1:18090 -tls 127.0.0.1:18091 -tlsdir /tmp/x -h2c 127.0.0.1:18092 -grpc 127.0.0.1:18093
package main

import (
	"crypto/tls"
	"flag"
	"log"
	"net"
	"net/http"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/h2c"
	"google.golang.org/grpc"
	"google.golang.org/grpc/mem"

	"github.com/stackbench/stackbench/internal/load"
)

// answer is the JSON every HTTP request gets.
var answer = []byte(`{"id":4242,"name":"User 4242","email":"user4242@example.com","age":42,"createdAt":"2023-11-14T23:24:01.000Z"}`)

// userMessage is saas.User{id: 4242, name: "User 4242", ...} in protobuf's
// wire format, the answer to every gRPC call.
var userMessage = []byte("\x08\x92\x21\x12\x09User 4242\x1a\x14user4242@example.com\x20\x2a\x2a\x182023-11-14T23:24:01.000Z")

func main() {
	httpAddr := flag.String("http", "", "HTTP/1.1 cleartext listen address")
	tlsAddr := flag.String("tls", "", "HTTP/1.1 over TLS listen address (needs -tlsdir)")
	tlsDir := flag.String("tlsdir", "", "directory for the throwaway CA and the server's certificate")
	h2cAddr := flag.String("h2c", "", "HTTP/2 cleartext listen address")
	grpcAddr := flag.String("grpc", "", "gRPC listen address")
	flag.Parse()

	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(answer)
	})
	done := make(chan error)
	if *httpAddr != "" {
		go func() { done <- http.ListenAndServe(*httpAddr, handler) }()
	}
	if *tlsAddr != "" {
		ca, err := load.WriteThrowawayCA(*tlsDir)
		if err != nil {
			log.Fatal(err)
		}
		srv := &http.Server{Addr: *tlsAddr, Handler: handler}
		srv.TLSNextProto = map[string]func(*http.Server, *tls.Conn, http.Handler){} // HTTP/1.1 only
		go func() { done <- srv.ListenAndServeTLS(ca.CertFile, ca.KeyFile) }()
	}
	if *h2cAddr != "" {
		srv := &http.Server{Addr: *h2cAddr, Handler: h2c.NewHandler(handler, &http2.Server{})}
		go func() { done <- srv.ListenAndServe() }()
	}
	if *grpcAddr != "" {
		ln, err := net.Listen("tcp", *grpcAddr)
		if err != nil {
			log.Fatal(err)
		}
		srv := grpc.NewServer(grpc.ForceServerCodecV2(rawCodec{}), grpc.UnknownServiceHandler(fixedCall))
		go func() { done <- srv.Serve(ln) }()
	}
	log.Fatal(<-done)
}

// fixedCall answers any unary call with userMessage.
func fixedCall(_ any, stream grpc.ServerStream) error {
	var in rawMessage
	if err := stream.RecvMsg(&in); err != nil {
		return err
	}
	out := rawMessage(userMessage)
	return stream.SendMsg(&out)
}

// rawMessage is a message kept as its wire bytes.
type rawMessage []byte

// rawCodec passes messages through as bytes: the server decodes nothing.
type rawCodec struct{}

func (rawCodec) Marshal(v any) (mem.BufferSlice, error) {
	return mem.BufferSlice{mem.SliceBuffer(*v.(*rawMessage))}, nil
}

func (rawCodec) Unmarshal(data mem.BufferSlice, v any) error {
	*v.(*rawMessage) = data.Materialize()
	return nil
}

func (rawCodec) Name() string { return "proto" }
