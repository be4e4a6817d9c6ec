package grpcmsg

import (
	"context"
	"net"
	"strings"
	"testing"

	"google.golang.org/grpc"
	testgrpc "google.golang.org/grpc/interop/grpc_testing"
	"google.golang.org/grpc/reflection"
)

// A server that registers reflection gives the method's descriptors; one
// that does not gets a message that says to give --proto.
func TestReflect(t *testing.T) {
	for _, withReflection := range []bool{true, false} {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		s := grpc.NewServer()
		testgrpc.RegisterTestServiceServer(s, &testgrpc.UnimplementedTestServiceServer{})
		if withReflection {
			reflection.Register(s)
		}
		go s.Serve(ln)
		m, err := Reflect(context.Background(), ln.Addr().String(), false, nil, "grpc.testing.TestService/UnaryCall")
		s.Stop()
		if !withReflection {
			if err == nil || !strings.Contains(err.Error(), "--proto") {
				t.Errorf("without reflection: %v, want an error that points to --proto", err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if wire, err := m.Encode(`{"responseSize": 3}`); err != nil || len(wire) != 2 {
			t.Errorf("encoded % x, %v; want the response_size field", wire, err)
		}
	}
}
