package main

import (
	"crypto/tls"
	"net"
	"net/http"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/h2c"
	"google.golang.org/grpc"
	"google.golang.org/grpc/mem"

	"github.com/stackbench/stackbench/internal/load"
)

// serveStd serves every wire asked for with net/http, x/net/http2 and
// grpc-go (-std).
func serveStd(a addrs) error {
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(answer)
	})
	done := make(chan error)
	if a.http != "" {
		go func() { done <- http.ListenAndServe(a.http, handler) }()
	}
	if a.tls != "" {
		ca, err := load.WriteThrowawayCA(a.tlsDir)
		if err != nil {
			return err
		}
		srv := &http.Server{Addr: a.tls, Handler: handler}
		srv.TLSNextProto = map[string]func(*http.Server, *tls.Conn, http.Handler){} // HTTP/1.1 only
		go func() { done <- srv.ListenAndServeTLS(ca.CertFile, ca.KeyFile) }()
	}
	if a.h2c != "" {
		srv := &http.Server{Addr: a.h2c, Handler: h2c.NewHandler(handler, &http2.Server{})}
		go func() { done <- srv.ListenAndServe() }()
	}
	if a.grpc != "" {
		ln, err := net.Listen("tcp", a.grpc)
		if err != nil {
			return err
		}
		srv := grpc.NewServer(grpc.ForceServerCodecV2(rawCodec{}), grpc.UnknownServiceHandler(fixedCall))
		go func() { done <- srv.Serve(ln) }()
	}
	return <-done
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
