package grpcmsg

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	rpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/types/descriptorpb"
)

// Reflect asks the server at addr (host:port) for method's descriptors
// through gRPC server reflection (grpc.reflection.v1), once, before the
// run: in cleartext, or over TLS trusting caPEM (the system's roots when
// empty) when useTLS.
func Reflect(ctx context.Context, addr string, useTLS bool, caPEM []byte, method string) (*Method, error) {
	service, _, ok := strings.Cut(strings.TrimPrefix(method, "/"), "/")
	if !ok {
		return nil, fmt.Errorf("method %q is not in the form package.Service/Method", method)
	}
	creds := insecure.NewCredentials()
	if useTLS {
		conf := &tls.Config{MinVersion: tls.VersionTLS12}
		if len(caPEM) > 0 {
			conf.RootCAs = x509.NewCertPool()
			conf.RootCAs.AppendCertsFromPEM(caPEM)
		}
		creds = credentials.NewTLS(conf)
	}
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(creds))
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	stream, err := rpb.NewServerReflectionClient(conn).ServerReflectionInfo(ctx)
	if err != nil {
		return nil, fmt.Errorf("server reflection at %s: %w (does the server register grpc.reflection? else give --proto)", addr, err)
	}
	if err := stream.Send(&rpb.ServerReflectionRequest{MessageRequest: &rpb.ServerReflectionRequest_FileContainingSymbol{FileContainingSymbol: service}}); err != nil {
		return nil, fmt.Errorf("server reflection at %s: %w", addr, err)
	}
	resp, err := stream.Recv()
	if err != nil {
		return nil, fmt.Errorf("server reflection at %s: %w (does the server register grpc.reflection? else give --proto)", addr, err)
	}
	stream.CloseSend()
	if e := resp.GetErrorResponse(); e != nil {
		return nil, fmt.Errorf("server reflection at %s: %s has no service %q: %s", addr, addr, service, e.ErrorMessage)
	}
	set := &descriptorpb.FileDescriptorSet{}
	for _, b := range resp.GetFileDescriptorResponse().GetFileDescriptorProto() {
		fd := &descriptorpb.FileDescriptorProto{}
		if err := proto.Unmarshal(b, fd); err != nil {
			return nil, fmt.Errorf("server reflection at %s: a file descriptor does not parse: %w", addr, err)
		}
		set.File = append(set.File, fd)
	}
	files, err := protodesc.NewFiles(set)
	if err != nil {
		return nil, fmt.Errorf("server reflection at %s: %w", addr, err)
	}
	return find(files, "server reflection at "+addr, method)
}
