//go:build ignore

// gen writes saas.pb.go from saas.proto without protoc: the .proto is
// compiled with protocompile and handed to protoc-gen-go (from
// google.golang.org/protobuf, the module's own version) as protoc would.
//
//	cd apps/grpc-pgx/saaspb && go run gen.go
package main

import (
	"bytes"
	"context"
	"log"
	"os"
	"os/exec"

	"github.com/bufbuild/protocompile"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/pluginpb"
)

func main() {
	c := protocompile.Compiler{Resolver: protocompile.WithStandardImports(&protocompile.SourceResolver{})}
	files, err := c.Compile(context.Background(), "saas.proto")
	if err != nil {
		log.Fatal(err)
	}
	req := &pluginpb.CodeGeneratorRequest{
		FileToGenerate: []string{"saas.proto"},
		Parameter:      proto.String("paths=source_relative"),
		ProtoFile:      []*descriptorpb.FileDescriptorProto{protodesc.ToFileDescriptorProto(files[0])},
	}
	in, err := proto.Marshal(req)
	if err != nil {
		log.Fatal(err)
	}
	cmd := exec.Command("go", "run", "google.golang.org/protobuf/cmd/protoc-gen-go")
	cmd.Stdin, cmd.Stderr = bytes.NewReader(in), os.Stderr
	out, err := cmd.Output()
	if err != nil {
		log.Fatal(err)
	}
	var resp pluginpb.CodeGeneratorResponse
	if err := proto.Unmarshal(out, &resp); err != nil {
		log.Fatal(err)
	}
	if resp.Error != nil {
		log.Fatal(*resp.Error)
	}
	for _, f := range resp.File {
		if err := os.WriteFile(f.GetName(), []byte(f.GetContent()), 0o644); err != nil {
			log.Fatal(err)
		}
	}
}
