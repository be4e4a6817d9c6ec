// Package grpcmsg turns a gRPC call written by a person — a method name, a
// request as JSON — into the bytes the load engine sends, and an answer's
// bytes back into JSON, through the service's descriptors: a .proto file
// (compiled here with protocompile, its imports resolved beside it and
// from the well-known types) or a descriptor set (protoc -o, .pb or
// .protoset). Messages are google.golang.org/protobuf's dynamic messages;
// JSON is protobuf's JSON mapping (protojson), so a gRPC answer compares
// with a JSON API's answer of the same contract.
package grpcmsg

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/bufbuild/protocompile"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
)

// Method is one unary method of a service, with its message types.
type Method struct {
	// Name is "package.Service/Method".
	Name string
	Desc protoreflect.MethodDescriptor
}

// Load reads the descriptors in file and finds method,
// "package.Service/Method".
func Load(file, method string) (*Method, error) {
	d, err := Open(file)
	if err != nil {
		return nil, err
	}
	return d.Method(method)
}

// Descriptors are the services of one .proto file (and its imports) or
// descriptor set, read once to look several methods up.
type Descriptors struct {
	file  string
	files *protoregistry.Files
}

// Open reads the descriptors in file: a .proto file, compiled, or a
// descriptor set.
func Open(file string) (*Descriptors, error) {
	files, err := descriptors(file)
	if err != nil {
		return nil, err
	}
	return &Descriptors{file: file, files: files}, nil
}

// Method finds method, "package.Service/Method", a unary method.
func (d *Descriptors) Method(method string) (*Method, error) {
	return find(d.files, d.file, method)
}

// find looks method up in files; where names them in messages.
func find(files *protoregistry.Files, file, method string) (*Method, error) {
	service, name, ok := strings.Cut(strings.TrimPrefix(method, "/"), "/")
	if !ok || service == "" || name == "" {
		return nil, fmt.Errorf("method %q is not in the form package.Service/Method", method)
	}
	d, err := files.FindDescriptorByName(protoreflect.FullName(service))
	if err != nil {
		return nil, fmt.Errorf("%s has no service %q (give the full name, package included)", file, service)
	}
	sd, ok := d.(protoreflect.ServiceDescriptor)
	if !ok {
		return nil, fmt.Errorf("%s: %q is not a service", file, service)
	}
	md := sd.Methods().ByName(protoreflect.Name(name))
	if md == nil {
		return nil, fmt.Errorf("%s: service %s has no method %q", file, service, name)
	}
	if md.IsStreamingClient() || md.IsStreamingServer() {
		return nil, fmt.Errorf("%s: %s/%s streams; only unary methods are loaded", file, service, name)
	}
	return &Method{Name: service + "/" + name, Desc: md}, nil
}

// descriptors reads a descriptor set or compiles a .proto file.
func descriptors(file string) (*protoregistry.Files, error) {
	if strings.HasSuffix(file, ".proto") {
		c := protocompile.Compiler{Resolver: protocompile.WithStandardImports(&protocompile.SourceResolver{
			ImportPaths: []string{filepath.Dir(file)},
		})}
		compiled, err := c.Compile(context.Background(), filepath.Base(file))
		if err != nil {
			return nil, fmt.Errorf("compile %s: %w", file, err)
		}
		files := new(protoregistry.Files)
		for _, f := range compiled {
			if err := registerWithImports(files, f); err != nil {
				return nil, fmt.Errorf("%s: %w", file, err)
			}
		}
		return files, nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var set descriptorpb.FileDescriptorSet
	if err := proto.Unmarshal(b, &set); err != nil {
		return nil, fmt.Errorf("%s is neither a .proto file nor a descriptor set (protoc -o FILE --include_imports): %w", file, err)
	}
	files, err := protodesc.NewFiles(&set)
	if err != nil {
		return nil, fmt.Errorf("%s: %w (was it written with --include_imports?)", file, err)
	}
	return files, nil
}

// registerWithImports registers f after the files it imports.
func registerWithImports(files *protoregistry.Files, f protoreflect.FileDescriptor) error {
	if _, err := files.FindFileByPath(f.Path()); err == nil {
		return nil
	}
	imports := f.Imports()
	for i := range imports.Len() {
		if err := registerWithImports(files, imports.Get(i).FileDescriptor); err != nil {
			return err
		}
	}
	return files.RegisterFile(f)
}

// Encode parses the request message from JSON and returns its wire
// bytes. Unknown fields are errors.
func (m *Method) Encode(jsonMsg string) ([]byte, error) {
	msg := dynamicpb.NewMessage(m.Desc.Input())
	if err := protojson.Unmarshal([]byte(jsonMsg), msg); err != nil {
		return nil, fmt.Errorf("the message is not a %s in protobuf's JSON mapping: %w", m.Desc.Input().FullName(), err)
	}
	return proto.Marshal(msg)
}

// DecodeJSON returns an answer's message as JSON: protobuf's JSON mapping
// with every field present (zero values included, as a JSON API writes
// them), so that it compares field by field with a JSON API's answer.
func (m *Method) DecodeJSON(wire []byte) ([]byte, error) {
	msg := dynamicpb.NewMessage(m.Desc.Output())
	if err := proto.Unmarshal(wire, msg); err != nil {
		return nil, fmt.Errorf("the answer is not a %s: %w", m.Desc.Output().FullName(), err)
	}
	return protojson.MarshalOptions{EmitUnpopulated: true}.Marshal(msg)
}

// DescriptorSet is the method's file and every file it imports, in
// dependency order, as a serialized FileDescriptorSet (what `protoc -o
// FILE --include_imports` writes, and Open reads): the descriptors,
// however they were found, in a form another process can load without
// the .proto file or server reflection.
func (m *Method) DescriptorSet() ([]byte, error) {
	set := &descriptorpb.FileDescriptorSet{}
	seen := map[string]bool{}
	var add func(f protoreflect.FileDescriptor)
	add = func(f protoreflect.FileDescriptor) {
		if seen[f.Path()] {
			return
		}
		seen[f.Path()] = true
		imports := f.Imports()
		for i := range imports.Len() {
			add(imports.Get(i).FileDescriptor)
		}
		set.File = append(set.File, protodesc.ToFileDescriptorProto(f))
	}
	add(m.Desc.ParentFile())
	return proto.Marshal(set)
}
