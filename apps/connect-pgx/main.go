// Command connect-pgx is the SaaS slice served by connectrpc.com/connect
// (saas.Users of apps/grpc-pgx/saaspb/saas.proto, the same implementation
// as grpc-pgx: apps/internal/saasrpc) over the same pgx v5 pool and queries
// as nethttp-pgx. Connect speaks three protocols on one handler: gRPC (over
// HTTP/2), gRPC-Web, and its own (unary calls as POST with a JSON or
// protobuf body, over HTTP/1.1 or HTTP/2). It listens on $HOST:$PORT
// (HOST 127.0.0.1 when unset) with HTTP/1.1 and HTTP/2 in cleartext (h2c,
// prior knowledge), or over TLS (HTTP/1.1 and h2 through ALPN) when
// TLS_CERT_FILE and TLS_KEY_FILE name a certificate and its key. SIGTERM
// or SIGINT stops it gracefully.
//
// Build: go build -o bin/server .
package main

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"

	"connectrpc.com/connect"
	"google.golang.org/grpc/status"

	"github.com/stackbench/stackbench/apps/internal/saas"
	"github.com/stackbench/stackbench/apps/internal/saasrpc"
)

func main() {
	saas.Main("connect-pgx", func(ctx context.Context, cfg saas.Config) error {
		store, err := saas.OpenPgx(ctx, cfg.DatabaseURL)
		if err != nil {
			return err
		}
		defer store.Close()
		return serve(ctx, cfg.Addr, os.Getenv("TLS_CERT_FILE"), os.Getenv("TLS_KEY_FILE"), store)
	})
}

// handler routes saas.Users's procedures to their Connect handlers.
func handler(store saas.Store) http.Handler {
	u := &saasrpc.Users{Store: store}
	mux := http.NewServeMux()
	mux.Handle("/saas.Users/Health", connect.NewUnaryHandler("/saas.Users/Health", unary(u.Health)))
	mux.Handle("/saas.Users/GetUser", connect.NewUnaryHandler("/saas.Users/GetUser", unary(u.GetUser)))
	mux.Handle("/saas.Users/ListUsers", connect.NewUnaryHandler("/saas.Users/ListUsers", unary(u.ListUsers)))
	mux.Handle("/saas.Users/CreateOrder", connect.NewUnaryHandler("/saas.Users/CreateOrder", unary(u.CreateOrder)))
	return mux
}

// unary adapts a saasrpc method to Connect, its gRPC status error to a
// Connect error of the same code (the two share gRPC's code numbers).
func unary[Req, Resp any](f func(context.Context, *Req) (*Resp, error)) func(context.Context, *connect.Request[Req]) (*connect.Response[Resp], error) {
	return func(ctx context.Context, r *connect.Request[Req]) (*connect.Response[Resp], error) {
		out, err := f(ctx, r.Msg)
		if err != nil {
			st := status.Convert(err)
			return nil, connect.NewError(connect.Code(st.Code()), errors.New(st.Message()))
		}
		return connect.NewResponse(out), nil
	}
}

// serve answers on addr until ctx ends.
func serve(ctx context.Context, addr, certFile, keyFile string, store saas.Store) error {
	protocols := new(http.Protocols)
	protocols.SetHTTP1(true)
	tlsOn := certFile != "" || keyFile != ""
	if tlsOn {
		protocols.SetHTTP2(true)
	} else {
		protocols.SetUnencryptedHTTP2(true)
	}
	srv := &http.Server{Handler: handler(store), Protocols: protocols}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	go func() {
		<-ctx.Done()
		srv.Shutdown(context.Background())
	}()
	if tlsOn {
		err = srv.ServeTLS(ln, certFile, keyFile)
	} else {
		err = srv.Serve(ln)
	}
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}
