package plan

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDocsExamples loads the YAML examples of docs/config.md, so that the
// manual cannot drift from the parser.
func TestDocsExamples(t *testing.T) {
	data, err := os.ReadFile("../../docs/config.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(string(data), -1)
	if len(blocks) < 2 {
		t.Fatalf("found %d yaml examples in docs/config.md, want the full example and the custom workload", len(blocks))
	}
	for i, b := range blocks {
		example := b[1]
		if !strings.Contains(example, "stacks:") {
			example += validStacks // the custom workload example shows the workload only
		}
		dir := t.TempDir()
		for _, d := range []string{"apps/nethttp-pgx", "apps/chi-pgx", "apps/a", "apps/b"} {
			if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		path := filepath.Join(dir, "stackbench.yaml")
		if err := os.WriteFile(path, []byte(example), 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := LoadEnv(path, noEnv)
		if err != nil {
			t.Errorf("example %d of docs/config.md: %v", i+1, err)
			continue
		}
		if _, err := f.Resolve(Overrides{}); err != nil {
			t.Errorf("example %d of docs/config.md resolves with %v", i+1, err)
		}
	}
}

func TestAliasesAndSecretFromEnv(t *testing.T) {
	f, err := LoadEnv(writeConfig(t, `jwt_secret: ${SECRET}
protocol:
  gate: off
  spread: true
stacks:
  - name: a
    dir: apps/a
    start: ./s
    env: &common {GOMAXPROCS: "2"}
  - name: b
    dir: apps/b
    start: ./s
    env: *common
`), func(k string) string {
		if k == "SECRET" {
			return "from-env"
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	if f.JWTSecret != "from-env" || f.Stacks[1].Env["GOMAXPROCS"] != "2" {
		t.Errorf("secret %q, env of b %v", f.JWTSecret, f.Stacks[1].Env)
	}
	p, err := f.Resolve(Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Protocol.Gate.Mode != GateOff || !p.Protocol.Spread || p.JWTSecret != "from-env" {
		t.Errorf("protocol %+v", p.Protocol)
	}
	me, _ := f.Workload.Case("me")
	if !strings.Contains(me.Header[0].Value, "Bearer ") || me.Header[0].Value == "Bearer " {
		t.Errorf("me header %v", me.Header)
	}
}
