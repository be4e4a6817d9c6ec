package grpcmsg

import (
	"os"

	"google.golang.org/protobuf/reflect/protoreflect"
)

func protoValue(v any) protoreflect.Value { return protoreflect.ValueOf(v) }

func writeFile(path string, b []byte) error { return os.WriteFile(path, b, 0o644) }
