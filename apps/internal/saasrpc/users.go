// Package saasrpc is the SaaS slice as the saas.Users RPC service, shared
// by the gRPC reference stacks (grpc-pgx with google.golang.org/grpc,
// connect-pgx with connectrpc.com/connect), so that they differ only in
// the library that speaks the wire.
package saasrpc

import (
	"context"
	"errors"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/stackbench/stackbench/apps/grpc-pgx/saaspb"
	"github.com/stackbench/stackbench/apps/internal/saas"
)

// Users implements saas.Users (saaspb.UsersServer) over a Store, with the
// JSON API's validation and errors as gRPC status codes: INVALID_ARGUMENT
// where the JSON API answers 400/422, NOT_FOUND where it answers 404.
type Users struct {
	Store saas.Store
}

func (u *Users) Health(context.Context, *saaspb.HealthRequest) (*saaspb.HealthReply, error) {
	return &saaspb.HealthReply{Status: "ok"}, nil
}

func (u *Users) GetUser(ctx context.Context, in *saaspb.GetUserRequest) (*saaspb.User, error) {
	if in.Id < 1 {
		return nil, status.Error(codes.InvalidArgument, "id must be an integer of at least 1")
	}
	user, err := u.Store.UserByID(ctx, in.Id)
	if errors.Is(err, saas.ErrNotFound) {
		return nil, status.Error(codes.NotFound, "not found")
	}
	if err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	return userMessage(user), nil
}

func (u *Users) ListUsers(ctx context.Context, in *saaspb.ListUsersRequest) (*saaspb.UserPage, error) {
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
	list, err := u.Store.ListUsers(ctx, p.Offset(), p.Limit)
	if err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	out := &saaspb.UserPage{Page: int32(p.Page), Limit: p.Limit, Items: make([]*saaspb.User, len(list))}
	for i, user := range list {
		out.Items[i] = userMessage(user)
	}
	return out, nil
}

func (u *Users) CreateOrder(ctx context.Context, in *saaspb.CreateOrderRequest) (*saaspb.Order, error) {
	amount, ok := saas.AmountText(in.Amount)
	if in.UserId < 1 || !ok || in.Currency != "USD" && in.Currency != "EUR" && in.Currency != "GBP" {
		return nil, status.Error(codes.InvalidArgument, "userId must be at least 1, amount from 0 to below 10^10, currency USD, EUR or GBP")
	}
	o, err := u.Store.InsertOrder(ctx, saas.NewOrder{UserID: in.UserId, Amount: amount, Currency: in.Currency})
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
