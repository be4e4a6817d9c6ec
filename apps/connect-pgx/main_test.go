package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"reflect"
	"strconv"
	"testing"
	"time"

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

func (m *memStore) InsertOrder(context.Context, saas.NewOrder) (saas.Order, error) {
	return saas.Order{}, saas.ErrUnknownUser
}

func newStore() *memStore {
	m := &memStore{}
	for k := int32(1); k <= 30; k++ {
		m.users = append(m.users, saas.User{ID: k, Name: "User " + strconv.Itoa(int(k)), Email: "user" + strconv.Itoa(int(k)) + "@example.com",
			Age: 18 + k, CreatedAt: saas.FormatTime(time.UnixMilli(1_700_000_000_000 + int64(k-1)*1000))})
	}
	return m
}

// start serves store on a free loopback port, over TLS when ca is set.
func start(t *testing.T, store saas.Store, ca *load.ThrowawayCA) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	cert, key := "", ""
	if ca != nil {
		cert, key = ca.CertFile, ca.KeyFile
	}
	go func() { done <- serve(ctx, addr, cert, key, store) }()
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

func grpcCall(t *testing.T, method, message string) *load.GRPCCall {
	t.Helper()
	m, err := grpcmsg.Load("../grpc-pgx/saaspb/saas.proto", method)
	if err != nil {
		t.Fatal(err)
	}
	b, err := m.Encode(message)
	if err != nil {
		t.Fatal(err)
	}
	return &load.GRPCCall{Method: m.Name, Message: b}
}

func run(t *testing.T, cfg load.Config) *load.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := load.Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// One server, three wires: Connect's JSON over HTTP/1.1 answers what the
// JSON API answers; the engine loads it as JSON over HTTP/1.1 and as gRPC
// over h2c, every request a success.
func TestOneServerThreeWires(t *testing.T) {
	store := newStore()
	addr := start(t, store, nil)
	resp, err := http.Post("http://"+addr+"/saas.Users/GetUser", "application/json", bytes.NewReader([]byte(`{"id":7}`)))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var got, want any
	json.Unmarshal(body, &got)
	json.Unmarshal(saas.New(store, saas.StdJSON{}, "s").User(context.Background(), "7").Body, &want)
	if resp.StatusCode != 200 || !reflect.DeepEqual(got, want) {
		t.Errorf("Connect JSON: %d %s, want the JSON API's %v", resp.StatusCode, body, want)
	}

	res := run(t, load.Config{URL: "http://" + addr + "/saas.Users/GetUser", Method: "POST", Body: []byte(`{"id":7}`),
		Headers: []load.Header{{Name: "Content-Type", Value: "application/json"}}, Connections: 2, Duration: 300 * time.Millisecond})
	if res.Successes < 50 || res.ErrorCount() != 0 || res.Protocol != "http1" {
		t.Errorf("JSON over HTTP/1.1: %d successes, errors %v", res.Successes, res.Errors)
	}
	res = run(t, load.Config{URL: "http://" + addr + "/", Protocol: load.ProtoGRPC, GRPC: grpcCall(t, "saas.Users/GetUser", `{"id":7}`),
		Connections: 1, Streams: 8, Duration: 300 * time.Millisecond})
	if res.Successes < 50 || res.ErrorCount() != 0 {
		t.Errorf("gRPC over h2c: %d successes, errors %v", res.Successes, res.Errors)
	}
	res = run(t, load.Config{URL: "http://" + addr + "/", Protocol: load.ProtoGRPC, GRPC: grpcCall(t, "saas.Users/GetUser", `{"id":999}`),
		Connections: 1, Streams: 8, Duration: 200 * time.Millisecond})
	if res.Successes != 0 || res.Errors["grpc_not_found"] != res.Attempts || res.Attempts == 0 {
		t.Errorf("unknown id over gRPC: %d successes, errors %v", res.Successes, res.Errors)
	}
}

// With a certificate, the same calls go over TLS with h2 agreed through
// ALPN, the generator trusting the throwaway CA.
func TestGRPCOverTLS(t *testing.T) {
	ca, err := load.WriteThrowawayCA(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	addr := start(t, newStore(), &ca)
	pem, _ := os.ReadFile(ca.CAFile)
	res := run(t, load.Config{URL: "https://" + addr + "/", Protocol: load.ProtoGRPC, GRPC: grpcCall(t, "saas.Users/GetUser", `{"id":7}`),
		CACertPEM: pem, Connections: 1, Streams: 8, Duration: 300 * time.Millisecond})
	if res.Successes < 50 || res.ErrorCount() != 0 || res.TLS == nil || res.TLS.ALPN != "h2" {
		t.Errorf("gRPC over TLS: %d successes, errors %v, tls %+v", res.Successes, res.Errors, res.TLS)
	}
}
