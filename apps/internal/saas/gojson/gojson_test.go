package gojson_test

import (
	"bytes"
	"testing"

	"github.com/stackbench/stackbench/apps/internal/saas"
	"github.com/stackbench/stackbench/apps/internal/saas/gojson"
)

// TestBodiesMatchStdJSON sends the same inputs through an App on each codec:
// every status and body must be byte-identical, valid or not, since a JSON
// step may change speed and nothing else.
func TestBodiesMatchStdJSON(t *testing.T) {
	std := saas.New(nil, saas.StdJSON{}, "s")
	goccy := saas.New(nil, gojson.Codec{}, "s")
	echoBodies := []string{
		`{"name":"Jane Doe","email":"jane@example.com","age":30,"tags":["a","b"]}`,
		`{"name":"<b>&amp;</b>","email":"a@b.co","age":30.0,"tags":[]}`,
		`{"name":"line\u2028sep\u2029para","email":"a@b.co","age":0,"tags":["\u0000\u001f\t"]}`,
		`{"name":"é 日本 😀 \ud800","email":"a@b.co","age":150,"tags":["x"],"extra":{"k":[1,2]}}`,
		"{\"name\":\"bad \xff\xfe utf8\",\"email\":\"a@b.co\",\"age\":1,\"tags\":[]}",
		`{"NAME":"Case","Email":"a@b.co","AGE":1,"Tags":[]}`,
		`{"name":"dup","name":"last","email":"a@b.co","age":1,"tags":[]}`,
		`{"name":"n","email":"a@b.co","age":1e2,"tags":[]}`,
		`{"name":"n","email":"a@b.co","age":151,"tags":[]}`,
		`{"name":"n","email":"a@b.co","age":"1","tags":[]}`,
		`{"name":"n","email":"a@b.co","age":1,"tags":[null]}`,
		`{"name":null,"email":"a@b.co","age":1,"tags":[]}`,
		`{"name":"n","email":"a@b.co","age":1,"tags":[]} trailing`,
		`{"name":"n","email":"a@b.co","age":1,"tags":[]`,
		`[]`, `null`, `""`, `{}`, ``, `{"name":1}`,
	}
	for _, body := range echoBodies {
		same(t, "echo "+body, std.Echo([]byte(body)), goccy.Echo([]byte(body)))
	}
	for _, id := range []string{"42", "a\"b", "<script>", "\u2028", "\xff"} {
		same(t, "micro user "+id, std.MicroUser(id), goccy.MicroUser(id))
	}
	for _, body := range []string{`{"a":1,"b":[true,null,"<x>"]}`, `{ "z" : 1 , "a" : 2 }`, `nope`, ``, ` `, `{} {}`, "{\"s\":\"\u2028\"}", `{"a":1`} {
		same(t, "micro create "+body, std.MicroCreate([]byte(body)), goccy.MicroCreate([]byte(body)))
	}
	for _, n := range []string{"1", "15000", "0", "x"} {
		same(t, "cpu "+n, std.CPU(n), goccy.CPU(n))
	}
}

func same(t *testing.T, what string, want, got saas.Response) {
	t.Helper()
	if want.Status != got.Status || !bytes.Equal(want.Body, got.Body) {
		t.Errorf("%s:\n  encoding/json: %d %q\n  go-json:       %d %q", what, want.Status, want.Body, got.Status, got.Body)
	}
}
