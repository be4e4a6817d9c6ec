package cli

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// hostileOpenAPI is a document whose strings try to write YAML of their
// own into the starter: a parameter name that ends the case list, adds a
// stack whose start command runs, and ends the document ("...") so that
// the real stacks are never read; a path example that ends the document.
const hostileOpenAPI = `openapi: 3.0.3
info: {title: evil, version: "1"}
paths:
  /items:
    get:
      operationId: listItems
      parameters:
        - name: "q\nstacks:\n  - name: evil\n    dir: .\n    start: touch pwned\n...\n"
          in: query
          required: true
          schema: {type: string}
      responses: {"200": {description: ok}}
  /things/{id}:
    get:
      operationId: getThing
      parameters:
        - {name: id, in: path, required: true, schema: {type: string, example: "7\n...\n"}}
      responses: {"200": {description: ok}}
`

// An OpenAPI document is data: what init writes from it is one YAML
// document whose stacks are init's own, and the document's strings come
// back as the very strings they were (a path), or on one comment line
// (a parameter name). plan on the file, its placeholders filled, shows
// the app's stack and no other.
func TestInitFromHostileOpenAPI(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "api.yaml"), []byte(hostileOpenAPI), 0o644)
	if code, _, errOut := runMain(t, dir, nil, "init", "--openapi", "api.yaml"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	path := filepath.Join(dir, "stackbench.yaml")
	data, _ := os.ReadFile(path)

	dec := yaml.NewDecoder(bytes.NewReader(data))
	var file struct {
		Workload struct {
			Cases []struct{ Name, Path string }
		}
		Stacks []struct{ Name, Start string }
	}
	if err := dec.Decode(&file); err != nil {
		t.Fatalf("the starter is not YAML: %v\n%s", err, data)
	}
	var more yaml.Node
	if err := dec.Decode(&more); !errors.Is(err, io.EOF) {
		t.Errorf("the starter holds a second document (%v):\n%s", err, data)
	}
	if len(file.Stacks) != 1 || file.Stacks[0].Name != "app" || strings.Contains(string(data), "pwned\n") {
		t.Errorf("stacks %+v; want init's one stack, app, and no line of the document's\n%s", file.Stacks, data)
	}
	// The document's values are percent-encoded into the request line.
	want := []string{"/items?q%0Astacks%3A%0A++-+name%3A+evil%0A++++dir%3A+.%0A++++start%3A+touch+pwned%0A...%0A=${TODO_q_stacks_name_evil_dir_start_touch_pwned_}", "/things/7%0A...%0A"}
	if len(file.Workload.Cases) != 2 || file.Workload.Cases[0].Path != want[0] || file.Workload.Cases[1].Path != want[1] {
		t.Errorf("cases %+v; want listItems and getThing, their paths %q", file.Workload.Cases, want)
	}

	// Fill the placeholder as a user would, and ask plan.
	filled := regexp.MustCompile(`\$\{TODO_\w+\}`).ReplaceAll(data, []byte("1"))
	os.WriteFile(path, filled, 0o644)
	code, out, errOut := runMain(t, dir, nil, "plan")
	if code != 0 || !strings.Contains(out, "app") || strings.Contains(out+errOut, "evil") {
		t.Errorf("plan: exit %d, want the app's stack and no other:\n%s%s\nfile:\n%s", code, out, errOut, filled)
	}
}

// An OpenAPI document's external $ref (another file, a URL) is not
// followed: the importer reads the one document it is given.
func TestOpenAPIExternalRefsAreNotFollowed(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "other.yaml"), []byte("p: {name: id, in: query, required: true, schema: {type: string, example: leaked}}\n"), 0o644)
	doc := `openapi: 3.0.3
info: {title: refs, version: "1"}
paths:
  /a:
    get:
      parameters:
        - $ref: "other.yaml#/p"
      responses: {"200": {description: ok}}
`
	os.WriteFile(filepath.Join(dir, "api.yaml"), []byte(doc), 0o644)
	cases, err := openAPICases(context.Background(), filepath.Join(dir, "api.yaml"))
	if err == nil || !strings.Contains(err.Error(), "other.yaml") {
		t.Errorf("cases %+v, error %v; want the external $ref refused, named", cases, err)
	}
}
