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
	"errors"
	"net"
	"os"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/status"

	"github.com/stackbench/stackbench/apps/grpc-pgx/saaspb"
	"github.com/stackbench/stackbench/apps/internal/saas"
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
	saaspb.RegisterUsersServer(s, &users{store: store})
	go func() {
		<-ctx.Done()
		s.GracefulStop()
	}()
	return s.Serve(ln)
}

// users implements saas.Users over a Store.
type users struct {
	store saas.Store
}

func (u *users) Health(context.Context, *saaspb.HealthRequest) (*saaspb.HealthReply, error) {
	return &saaspb.HealthReply{Status: "ok"}, nil
}

func (u *users) GetUser(ctx context.Context, in *saaspb.GetUserRequest) (*saaspb.User, error) {
	if in.Id < 1 {
		return nil, status.Error(codes.InvalidArgument, "id must be an integer of at least 1")
	}
	user, err := u.store.UserByID(ctx, in.Id)
	if errors.Is(err, saas.ErrNotFound) {
		return nil, status.Error(codes.NotFound, "not found")
	}
	if err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	return userMessage(user), nil
}

func (u *users) ListUsers(ctx context.Context, in *saaspb.ListUsersRequest) (*saaspb.UserPage, error) {
	p := saas.Paging{Page: int64(in.Page), Limit: in.Limit}
	if p.Page == 0 {
		p.Page = 1
	}
	if p.Limit == 0 {
		p.Limit = saas.DefaultLimit
	}
	if p.Page < 1 || p.Limit < 1 || p.Limit > saas.MaxLimit {
		return nil, status.Errorf(codes.InvalidArgument, "page must be at least 1 and limit from 1 to %d", saas.MaxLimit)
	}
	list, err := u.store.ListUsers(ctx, p.Offset(), p.Limit)
	if err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	out := &saaspb.UserPage{Page: int32(p.Page), Limit: p.Limit, Items: make([]*saaspb.User, len(list))}
	for i, user := range list {
		out.Items[i] = userMessage(user)
	}
	return out, nil
}

func (u *users) CreateOrder(ctx context.Context, in *saaspb.CreateOrderRequest) (*saaspb.Order, error) {
	amount, ok := saas.AmountText(in.Amount)
	if in.UserId < 1 || !ok || in.Currency != "USD" && in.Currency != "EUR" && in.Currency != "GBP" {
		return nil, status.Error(codes.InvalidArgument, "userId must be at least 1, amount from 0 to below 10^10, currency USD, EUR or GBP")
	}
	o, err := u.store.InsertOrder(ctx, saas.NewOrder{UserID: in.UserId, Amount: amount, Currency: in.Currency})
	if errors.Is(err, saas.ErrUnknownUser) {
		return nil, status.Error(codes.NotFound, "unknown user")
	}
	if err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	return &saaspb.Order{Id: o.ID, UserId: o.UserID, Amount: o.Amount, Currency: o.Currency, CreatedAt: o.CreatedAt}, nil
}

func userMessage(u saas.User) *saaspb.User {
	return &saaspb.User{Id: u.ID, Name: u.Name, Email: u.Email, Age: u.Age, CreatedAt: u.CreatedAt}
}
