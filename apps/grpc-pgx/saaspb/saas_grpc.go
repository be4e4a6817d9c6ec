package saaspb

import (
	"context"

	"google.golang.org/grpc"
)

// UsersServer is the server side of saas.Users. (protoc-gen-go-grpc would
// write this file; it is written by hand so that the reference stack needs
// no protoc, and is the same shape.)
type UsersServer interface {
	Health(context.Context, *HealthRequest) (*HealthReply, error)
	GetUser(context.Context, *GetUserRequest) (*User, error)
	ListUsers(context.Context, *ListUsersRequest) (*UserPage, error)
	CreateOrder(context.Context, *CreateOrderRequest) (*Order, error)
}

// RegisterUsersServer registers srv as saas.Users on s.
func RegisterUsersServer(s grpc.ServiceRegistrar, srv UsersServer) {
	s.RegisterService(&usersServiceDesc, srv)
}

// unary adapts one method of UsersServer to grpc's handler shape.
func unary[Req any, Resp any](name string, call func(UsersServer, context.Context, *Req) (*Resp, error)) grpc.MethodDesc {
	return grpc.MethodDesc{
		MethodName: name,
		Handler: func(srv any, ctx context.Context, dec func(any) error, icpt grpc.UnaryServerInterceptor) (any, error) {
			in := new(Req)
			if err := dec(in); err != nil {
				return nil, err
			}
			if icpt == nil {
				return call(srv.(UsersServer), ctx, in)
			}
			info := &grpc.UnaryServerInfo{Server: srv, FullMethod: "/saas.Users/" + name}
			return icpt(ctx, in, info, func(ctx context.Context, req any) (any, error) {
				return call(srv.(UsersServer), ctx, req.(*Req))
			})
		},
	}
}

var usersServiceDesc = grpc.ServiceDesc{
	ServiceName: "saas.Users",
	HandlerType: (*UsersServer)(nil),
	Methods: []grpc.MethodDesc{
		unary("Health", UsersServer.Health),
		unary("GetUser", UsersServer.GetUser),
		unary("ListUsers", UsersServer.ListUsers),
		unary("CreateOrder", UsersServer.CreateOrder),
	},
	Metadata: "saas.proto",
}
