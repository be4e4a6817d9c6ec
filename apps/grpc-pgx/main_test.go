package main

import (
	"context"
	"encoding/json"
	"net"
	"reflect"
	"sort"
	"strconv"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/stackbench/stackbench/apps/grpc-pgx/saaspb"
	"github.com/stackbench/stackbench/apps/internal/saas"
	"github.com/stackbench/stackbench/internal/load"
	"github.com/stackbench/stackbench/internal/load/grpcmsg"
)

// memStore is a Store over a few users in memory.
type memStore struct{ users []saas.User }

func (m *memStore) UserByID(_ context.Context, id int32) (saas.User, error) {
	for _, u := range m.users {
		if u.ID == id {
			return u, nil
		}
	}
	return saas.User{}, saas.ErrNotFound
}

func (m *memStore) ListUsers(_ context.Context, offset int64, limit int32) ([]saas.User, error) {
	out := []saas.User{}
	for i := offset; i < int64(len(m.users)) && len(out) < int(limit); i++ {
		out = append(out, m.users[i])
	}
	return out, nil
}

func (m *memStore) InsertOrder(_ context.Context, o saas.NewOrder) (saas.Order, error) {
	if _, err := m.UserByID(context.Background(), o.UserID); err != nil {
		return saas.Order{}, saas.ErrUnknownUser
	}
	return saas.Order{ID: 200001, UserID: o.UserID, Amount: o.Amount, Currency: o.Currency, CreatedAt: "2026-12-02T00:00:00.000Z"}, nil
}

func newStore() *memStore {
	m := &memStore{}
	for k := int32(1); k <= 30; k++ {
		m.users = append(m.users, saas.User{ID: k, Name: "User " + strconv.Itoa(int(k)), Email: "user" + strconv.Itoa(int(k)) + "@example.com",
			Age: 18 + k, CreatedAt: saas.FormatTime(time.UnixMilli(1_700_000_000_000 + int64(k-1)*1000))})
	}
	return m
}

// start serves store over gRPC on a free loopback port.
func start(t *testing.T, store saas.Store) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serve(ctx, addr, "", "", "", store) }()
	t.Cleanup(func() { cancel(); <-done })
	for range 100 {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	return addr
}

// The gRPC answers, as JSON through protojson, equal the JSON API's bodies
// for the same store: the two stacks keep one contract.
func TestAnswersMatchTheJSONAPI(t *testing.T) {
	store := newStore()
	addr := start(t, store)
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	app := saas.New(store, saas.StdJSON{}, "secret")
	ctx := context.Background()
	cases := []struct {
		method   string
		in, out  proto.Message
		jsonBody []byte
	}{
		{"GetUser", &saaspb.GetUserRequest{Id: 7}, &saaspb.User{}, app.User(ctx, "7").Body},
		{"ListUsers", &saaspb.ListUsersRequest{Page: 2, Limit: 5}, &saaspb.UserPage{}, app.ListUsers(ctx, "2", "5").Body},
		{"ListUsers", &saaspb.ListUsersRequest{}, &saaspb.UserPage{}, app.ListUsers(ctx, "", "").Body},
		{"Health", &saaspb.HealthRequest{}, &saaspb.HealthReply{}, app.Health().Body},
		{"CreateOrder", &saaspb.CreateOrderRequest{UserId: 3, Amount: 19.99, Currency: "USD"}, &saaspb.Order{},
			app.CreateOrder(ctx, []byte(`{"userId":3,"amount":19.99,"currency":"USD"}`)).Body},
	}
	for _, c := range cases {
		if err := conn.Invoke(ctx, "/saas.Users/"+c.method, c.in, c.out); err != nil {
			t.Fatalf("%s: %v", c.method, err)
		}
		got, _ := protojson.MarshalOptions{EmitUnpopulated: true}.Marshal(c.out)
		var a, b any
		json.Unmarshal(got, &a)
		json.Unmarshal(c.jsonBody, &b)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: gRPC %s, JSON %s", c.method, got, c.jsonBody)
		}
	}
	for _, c := range []struct {
		method  string
		in, out proto.Message
		code    codes.Code
	}{
		{"GetUser", &saaspb.GetUserRequest{Id: 999}, &saaspb.User{}, codes.NotFound},
		{"GetUser", &saaspb.GetUserRequest{Id: 0}, &saaspb.User{}, codes.InvalidArgument},
		{"ListUsers", &saaspb.ListUsersRequest{Limit: 101}, &saaspb.UserPage{}, codes.InvalidArgument},
		{"CreateOrder", &saaspb.CreateOrderRequest{UserId: 999, Amount: 1, Currency: "USD"}, &saaspb.Order{}, codes.NotFound},
		{"CreateOrder", &saaspb.CreateOrderRequest{UserId: 1, Amount: 1, Currency: "XXX"}, &saaspb.Order{}, codes.InvalidArgument},
	} {
		if err := conn.Invoke(ctx, "/saas.Users/"+c.method, c.in, c.out); status.Code(err) != c.code {
			t.Errorf("%s %v: %v, want %v", c.method, c.in, err, c.code)
		}
	}
}

// The stack answers server reflection: its method is found without the
// .proto.
func TestReflection(t *testing.T) {
	addr := start(t, newStore())
	m, err := grpcmsg.Reflect(context.Background(), addr, false, nil, "saas.Users/ListUsers")
	if err != nil {
		t.Fatal(err)
	}
	if b, err := m.Encode(`{"page": 2, "limit": 5}`); err != nil || len(b) != 4 {
		t.Errorf("encoded % x, %v", b, err)
	}
}

// stackbench's engine loads the stack from its .proto: every call
// succeeds; an unknown id fails as grpc_not_found, never as throughput.
func TestLoadedByTheEngine(t *testing.T) {
	addr := start(t, newStore())
	m, err := loadMethod("saas.Users/GetUser", `{"id": 7}`)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := load.Run(ctx, load.Config{URL: "http://" + addr + "/", Protocol: load.ProtoGRPC, GRPC: m,
		Connections: 1, Streams: 8, Duration: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if res.Successes < 50 || res.ErrorCount() != 0 {
		t.Errorf("%d successes, errors %v", res.Successes, res.Errors)
	}
	m, _ = loadMethod("saas.Users/GetUser", `{"id": 999}`)
	res, err = load.Run(ctx, load.Config{URL: "http://" + addr + "/", Protocol: load.ProtoGRPC, GRPC: m,
		Connections: 1, Streams: 8, Duration: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	keys := make([]string, 0, len(res.Errors))
	for k, n := range res.Errors {
		if n > 0 {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	if res.Successes != 0 || !reflect.DeepEqual(keys, []string{"grpc_not_found"}) {
		t.Errorf("unknown id: %d successes, errors %v", res.Successes, res.Errors)
	}
}
