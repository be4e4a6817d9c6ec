// Command grpc-pgx is the SaaS slice served over gRPC (google.golang.org/grpc,
// unary calls of saas.Users in saaspb/saas.proto) over the same pgx v5 pool
// and queries as nethttp-pgx, so that a step from nethttp-pgx to grpc-pgx
// changes the wire and nothing else. It listens on $HOST:$PORT (HOST
// 127.0.0.1 when unset), in cleartext HTTP/2, or over TLS when
// TLS_CERT_FILE and TLS_KEY_FILE name a certificate and its key. The health
// check for the harness is saas.Users/Health. With REQUIRE_TOKEN set,
// every other call must carry the request metadata "authorization: Bearer
// $REQUIRE_TOKEN" and is answered UNAUTHENTICATED without it (an
// authenticated API, as the SaaS slice's /me is). SIGTERM or SIGINT stops
// it gracefully.
//
// Build: go build -o bin/server .
package main

import (
	"context"
	"crypto/tls"
	"net"
	"os"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/reflection"
	"google.golang.org/grpc/status"

	"github.com/stackbench/stackbench/apps/grpc-pgx/saaspb"
	"github.com/stackbench/stackbench/apps/internal/saas"
	"github.com/stackbench/stackbench/apps/internal/saasrpc"
)

func main() {
	saas.Main("grpc-pgx", func(ctx context.Context, cfg saas.Config) error {
		store, err := saas.OpenPgx(ctx, cfg.DatabaseURL)
		if err != nil {
			return err
		}
		defer store.Close()
		return serve(ctx, cfg.Addr, os.Getenv("TLS_CERT_FILE"), os.Getenv("TLS_KEY_FILE"), os.Getenv("REQUIRE_TOKEN"), store)
	})
}

// serve answers saas.Users on addr until ctx ends.
func serve(ctx context.Context, addr, certFile, keyFile, token string, store saas.Store) error {
	var opts []grpc.ServerOption
	if token != "" {
		opts = append(opts, grpc.UnaryInterceptor(requireToken(token)))
	}
	if certFile != "" || keyFile != "" {
		cert, err := tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			return err
		}
		opts = append(opts, grpc.Creds(credentials.NewTLS(&tls.Config{Certificates: []tls.Certificate{cert}})))
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	s := grpc.NewServer(opts...)
	saaspb.RegisterUsersServer(s, &saasrpc.Users{Store: store})
	reflection.Register(s) // stackbench load --grpc ... --reflect needs no .proto
	go func() {
		<-ctx.Done()
		s.GracefulStop()
	}()
	return s.Serve(ln)
}

// requireToken answers UNAUTHENTICATED to a call other than Health that
// does not carry "authorization: Bearer token".
func requireToken(token string) grpc.UnaryServerInterceptor {
	want := "Bearer " + token
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		if info.FullMethod != "/saas.Users/Health" {
			if md, _ := metadata.FromIncomingContext(ctx); len(md.Get("authorization")) != 1 || md.Get("authorization")[0] != want {
				return nil, status.Error(codes.Unauthenticated, "this call needs authorization: Bearer <token>")
			}
		}
		return handler(ctx, req)
	}
}
