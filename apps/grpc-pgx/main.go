// Command grpc-pgx is the SaaS slice served over gRPC (google.golang.org/grpc,
// unary calls of saas.Users in saaspb/saas.proto) over the same pgx v5 pool
// and queries as nethttp-pgx, so that a step from nethttp-pgx to grpc-pgx
// changes the wire and nothing else. It listens on $HOST:$PORT (HOST
// 127.0.0.1 when unset), in cleartext HTTP/2, or over TLS when
// TLS_CERT_FILE and TLS_KEY_FILE name a certificate and its key. The health
// check for the harness is saas.Users/Health. SIGTERM or SIGINT stops it
// gracefully.
//
// Build: go build -o bin/server .
package main

import (
	"context"
	"crypto/tls"
	"net"
	"os"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/reflection"

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
		return serve(ctx, cfg.Addr, os.Getenv("TLS_CERT_FILE"), os.Getenv("TLS_KEY_FILE"), store)
	})
}

// serve answers saas.Users on addr until ctx ends.
func serve(ctx context.Context, addr, certFile, keyFile string, store saas.Store) error {
	var opts []grpc.ServerOption
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
