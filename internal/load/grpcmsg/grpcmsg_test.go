package grpcmsg

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
)

func TestEncodeFromProtoAndDecodeAsJSON(t *testing.T) {
	m, err := Load("testdata/saas.proto", "saas.Users/GetUser")
	if err != nil {
		t.Fatal(err)
	}
	wire, err := m.Encode(`{"id": 4242}`)
	if err != nil {
		t.Fatal(err)
	}
	if want := []byte{0x08, 0x92, 0x21}; !reflect.DeepEqual(wire, want) {
		t.Errorf("encoded % x, want % x (field 1, varint 4242)", wire, want)
	}
	// An answer comes back as JSON with every field, zero values included,
	// under the JSON names (createdAt), as a JSON API writes them.
	user := dynamicpb.NewMessage(m.Desc.Output())
	fields := user.Descriptor().Fields()
	user.Set(fields.ByName("id"), protoValue(int32(4242)))
	user.Set(fields.ByName("name"), protoValue("User 4242"))
	user.Set(fields.ByName("created_at"), protoValue("2023-11-14T23:24:01.000Z"))
	b, _ := proto.Marshal(user)
	out, err := m.DecodeJSON(b)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	json.Unmarshal(out, &got)
	want := map[string]any{"id": 4242.0, "name": "User 4242", "email": "", "age": 0.0, "createdAt": "2023-11-14T23:24:01.000Z", "admin": false}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("decoded %s, want %v", out, want)
	}
}

// The same method from a descriptor set (protoc -o --include_imports).
func TestLoadFromDescriptorSet(t *testing.T) {
	m, err := Load("testdata/saas.proto", "saas.Users/Health")
	if err != nil {
		t.Fatal(err)
	}
	set := &descriptorpb.FileDescriptorSet{}
	file := m.Desc.ParentFile()
	for i := range file.Imports().Len() {
		set.File = append(set.File, protodesc.ToFileDescriptorProto(file.Imports().Get(i).FileDescriptor))
	}
	set.File = append(set.File, protodesc.ToFileDescriptorProto(file))
	b, _ := proto.Marshal(set)
	path := t.TempDir() + "/saas.protoset"
	if err := writeFile(path, b); err != nil {
		t.Fatal(err)
	}
	m2, err := Load(path, "saas.Users/Health")
	if err != nil {
		t.Fatal(err)
	}
	if wire, err := m2.Encode(`{}`); err != nil || len(wire) != 0 {
		t.Errorf("empty message: % x, %v", wire, err)
	}
}

func TestLoadErrorsSayWhatToDo(t *testing.T) {
	cases := []struct{ file, method, json, want string }{
		{"testdata/saas.proto", "Users/GetUser", "", "no service"},
		{"testdata/saas.proto", "saas.Users/Nope", "", "no method"},
		{"testdata/saas.proto", "saas.Users", "", "package.Service/Method"},
		{"testdata/missing.proto", "saas.Users/GetUser", "", "missing.proto"},
		{"testdata/saas.proto", "saas.Users/GetUser", `{"idd": 1}`, "saas.GetUserRequest"},
	}
	for _, c := range cases {
		m, err := Load(c.file, c.method)
		if err == nil {
			_, err = m.Encode(c.json)
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s %s: %v, want an error mentioning %q", c.file, c.method, c.json, err, c.want)
		}
	}
}

// A method's DescriptorSet, written to a file, is read back by Open as a
// descriptor set with the same method, its imports included (saas.proto
// imports google/protobuf/empty.proto): it encodes a message as the
// .proto's method does.
func TestDescriptorSetRoundTrips(t *testing.T) {
	m, err := Load("testdata/saas.proto", "saas.Users/GetUser")
	if err != nil {
		t.Fatal(err)
	}
	b, err := m.DescriptorSet()
	if err != nil {
		t.Fatal(err)
	}
	path := t.TempDir() + "/sent.pb"
	if err := writeFile(path, b); err != nil {
		t.Fatal(err)
	}
	d, err := Open(path)
	if err != nil {
		t.Fatalf("Open the set: %v", err)
	}
	back, err := d.Method("saas.Users/GetUser")
	if err != nil {
		t.Fatal(err)
	}
	want, _ := m.Encode(`{"id": 4242}`)
	got, err := back.Encode(`{"id": 4242}`)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("encoded % x (%v) through the set; want % x", got, err, want)
	}
	if back.Desc.FullName() != m.Desc.FullName() || back.Desc.Output().Fields().Len() != m.Desc.Output().Fields().Len() {
		t.Errorf("the set's method %s with %d output fields; want %s with %d", back.Desc.FullName(), back.Desc.Output().Fields().Len(), m.Desc.FullName(), m.Desc.Output().Fields().Len())
	}
	var set descriptorpb.FileDescriptorSet
	proto.Unmarshal(b, &set)
	if n := len(set.File); n < 2 {
		t.Errorf("the set holds %d files; want saas.proto and its imports", n)
	}
}
