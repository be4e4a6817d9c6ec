package cli

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/stackbench/stackbench/internal/plan"
)

// FuzzOpenAPIImport: an OpenAPI document is data. Whatever it holds, the
// importer neither panics nor writes YAML of its own into the starter:
// the starter is one YAML document whose stacks are init's one stack, and
// whose cases are the importer's, names and paths read back as written.
func FuzzOpenAPIImport(f *testing.F) {
	f.Add([]byte(hostileOpenAPI))
	f.Add([]byte(`openapi: 3.0.3
info: {title: pets, version: "1"}
paths:
  /pets/{petId}:
    get:
      operationId: getPet
      parameters:
        - {name: petId, in: path, required: true, schema: {type: string, example: "a b#c"}}
        - {name: "q:x", in: query, required: true, schema: {type: integer}}
      responses: {"200": {description: ok}}
`))
	f.Add([]byte(`{"openapi":"3.0.3","info":{"title":"t","version":"1"},"paths":{"/a":{"get":{"operationId":"true","responses":{"200":{"description":"ok"}}}}}}`))
	dir := f.TempDir()
	path := filepath.Join(dir, "api.yaml")
	f.Fuzz(func(t *testing.T, doc []byte) {
		if err := os.WriteFile(path, doc, 0o600); err != nil {
			t.Fatal(err)
		}
		cases, err := openAPICases(context.Background(), path)
		if err != nil {
			return
		}
		starter, err := plan.AppStarter(plan.StarterApp{Name: "app", Stacks: plan.AppStacks(plan.StarterBuild{}), Cases: cases})
		if err != nil {
			t.Fatal(err)
		}
		dec := yaml.NewDecoder(bytes.NewReader([]byte(starter)))
		var file struct {
			Workload struct {
				Cases []struct{ Name, Path string }
			}
			Stacks []struct{ Name string }
		}
		if err := dec.Decode(&file); err != nil {
			t.Fatalf("the starter is not YAML: %v\n%s", err, starter)
		}
		var more yaml.Node
		if err := dec.Decode(&more); !errors.Is(err, io.EOF) {
			t.Fatalf("the starter holds a second document (%v):\n%s", err, starter)
		}
		if len(file.Stacks) != 1 || file.Stacks[0].Name != "app" {
			t.Fatalf("stacks %+v, want init's app alone:\n%s", file.Stacks, starter)
		}
		if len(file.Workload.Cases) != len(cases) {
			t.Fatalf("%d cases read back, %d imported:\n%s", len(file.Workload.Cases), len(cases), starter)
		}
		for i, c := range cases {
			if got := file.Workload.Cases[i]; got.Name != c.Name || got.Path != c.Path {
				t.Fatalf("case %d read back as %q %q, imported as %q %q", i, got.Name, got.Path, c.Name, c.Path)
			}
		}
	})
}
