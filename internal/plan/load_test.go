package plan

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeConfig writes a comparison file into a temporary directory that also
// holds the stack directories apps/a and apps/b, and returns its path.
func writeConfig(t *testing.T, content string) string {
	t.Helper()
	dir := t.TempDir()
	for _, d := range []string{"apps/a", "apps/b"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "apps", "file.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "stackbench.yaml")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func noEnv(string) string { return "" }

// loadProblems loads content and returns its problems as "line:col: msg".
func loadProblems(t *testing.T, content string) []string {
	t.Helper()
	path := writeConfig(t, content)
	_, err := LoadEnv(path, noEnv)
	var ce *ConfigError
	if !errors.As(err, &ce) {
		t.Fatalf("want a *ConfigError, got %v", err)
	}
	var out []string
	for _, p := range ce.Problems {
		if p.File == "" || !strings.HasSuffix(p.File, "stackbench.yaml") {
			t.Errorf("problem without the file name: %+v", p)
		}
		out = append(out, strings.TrimPrefix(p.String(), p.File+":"))
	}
	return out
}

const validStacks = `stacks:
  - name: a
    dir: apps/a
    start: ./server
  - name: b
    dir: apps/b
    start: ./server
`

func TestLoadValid(t *testing.T) {
	path := writeConfig(t, `workload: saas-slice
database: ${TEST_DB}
profile: quick
jwt_secret: s3cret
stacks:
  - name: nethttp-pgx
    dir: apps/a
    build: go build -o bin/server .
    start: ./bin/server
    env: {GOMAXPROCS: 2, B_FIRST: "x", EMPTY: ""}
    version: go version
  - name: gin
    dir: apps/b
    start: ./bin/server
    health: /healthz
`)
	getenv := func(k string) string {
		if k == "TEST_DB" {
			return "postgres://u:p@127.0.0.1:5432/bench"
		}
		return ""
	}
	f, err := LoadEnv(path, getenv)
	if err != nil {
		t.Fatal(err)
	}
	if f.Database != "postgres://u:p@127.0.0.1:5432/bench" || f.JWTSecret != "s3cret" || f.Profile != "quick" {
		t.Errorf("database %q, secret %q, profile %q", f.Database, f.JWTSecret, f.Profile)
	}
	if f.Workload.Name != "saas-slice" || len(f.Workload.Cases) != 7 || f.Custom {
		t.Errorf("workload %+v", f.Workload)
	}
	if got := strings.Join(f.StackNames(), ","); got != "nethttp-pgx,gin" {
		t.Fatalf("stacks %s", got)
	}
	s := f.Stacks[0]
	if s.Dir != filepath.Join(filepath.Dir(path), "apps/a") || s.Build != "go build -o bin/server ." || s.Start != "./bin/server" ||
		s.Health != "/health" || s.Version != "go version" || s.Line != 6 {
		t.Errorf("stack %+v", s)
	}
	if s.Env["GOMAXPROCS"] != "2" || s.Env["EMPTY"] != "" || strings.Join(s.EnvOrder, ",") != "GOMAXPROCS,B_FIRST,EMPTY" {
		t.Errorf("env %v order %v", s.Env, s.EnvOrder)
	}
	if f.Stacks[1].Health != "/healthz" {
		t.Errorf("health %q", f.Stacks[1].Health)
	}
}

func TestLoadDefaults(t *testing.T) {
	f, err := LoadEnv(writeConfig(t, validStacks), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if f.Workload.Name != "saas-slice" || f.Database != Embedded || f.Profile != "standard" || f.JWTSecret == "" {
		t.Errorf("defaults: workload %s database %q profile %q", f.Workload.Name, f.Database, f.Profile)
	}
}

func TestLoadMissingFile(t *testing.T) {
	_, err := LoadEnv(filepath.Join(t.TempDir(), "stackbench.yaml"), noEnv)
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "stackbench init") {
		t.Fatalf("want not-exist pointing to stackbench init, got %v", err)
	}
}

// matchProblems checks that got has one problem per want, each containing it.
func matchProblems(t *testing.T, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d problems, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i, w := range want {
		if !strings.Contains(got[i], w) {
			t.Errorf("problem %d:\n got %s\nwant %s", i, got[i], w)
		}
	}
}

// TestLoadProblems checks each class of problem with its position.
func TestLoadProblems(t *testing.T) {
	tests := []struct {
		name, yaml string
		want       []string // "line:col: substring", in order
	}{
		{"unknown top key", "workload: saas-slice\nstacs: []\n",
			[]string{`1:1: the file has no stacks`, `2:1: unknown key "stacs" in the comparison file; did you mean "stacks"?`}},
		{"unknown key without near miss", validStacks + "colour: blue\n",
			[]string{`8:1: unknown key "colour" in the comparison file; write one of: workload, database`}},
		{"unknown protocol key", "protocol:\n  warm_up: 5s\n  windw: 10s\n" + validStacks,
			[]string{`2:3: unknown key "warm_up" in protocol; did you mean "warmup"?`, `3:3: unknown key "windw" in protocol; did you mean "window"?`}},
		{"unknown stack key", "stacks:\n  - name: a\n    dir: apps/a\n    start: ./s\n    bild: make\n",
			[]string{`5:5: unknown key "bild" in stack "a"; did you mean "build"?`}},
		{"missing stack fields", "stacks:\n  - name: a\n  - dir: apps/b\n",
			[]string{`2:5: stack "a" has no dir`, `2:5: stack "a" has no start`, `3:5: this stack has no name`, `3:5: this stack has no start`}},
		{"empty stacks", "stacks: []\n", []string{`1:9: stacks must be a list with at least one stack`}},
		{"duplicate stack name", validStacks + "  - name: a\n    dir: apps/b\n    start: ./x\n",
			[]string{`8:5: stack name "a" is already used at line 2; give each stack its own name`}},
		{"dir missing", "stacks:\n  - name: a\n    dir: apps/nope\n    start: ./s\n",
			[]string{`3:10: dir "apps/nope" does not exist`}},
		{"dir is a file", "stacks:\n  - name: a\n    dir: apps/file.txt\n    start: ./s\n",
			[]string{`3:10: dir "apps/file.txt" is a file, not a directory`}},
		{"bad stack name", "stacks:\n  - name: my api/v2\n    dir: apps/a\n    start: ./s\n",
			[]string{`2:11: stack name "my api/v2" may only contain letters, digits, '.', '_' and '-'; write e.g. name: my-api-v2`}},
		{"harness env", "stacks:\n  - name: a\n    dir: apps/a\n    start: ./s\n    env:\n      DATABASE_URL: x\n      bad-name: y\n",
			[]string{`6:7: DATABASE_URL is set by the harness`, `7:7: "bad-name" is not a valid environment variable name`}},
		{"wrong types", "protocol:\n  rounds: three\n  concurrency: {a: 1}\n  spread: maybe\n  cases: {}\nstacks: {name: a}\n",
			[]string{`2:11: rounds "three": not a number of rounds; write a whole number`, `3:16: concurrency must be a list, not a mapping`,
				`4:11: spread "maybe": not on or off`, `5:10: cases must be a list, not a mapping`, `6:9: stacks must be a list`}},
		{"stack not a mapping", "stacks:\n  - just-a-name\n", []string{`2:5: this stack must be a mapping of keys to values, not "just-a-name"`}},
		{"unknown case", "protocol:\n  cases: [health, ordr, bogus, health]\n" + validStacks,
			[]string{`2:19: unknown case "ordr" in workload saas-slice; did you mean "order"?`,
				`2:25: unknown case "bogus" in workload saas-slice; write one of: health, echo, me, user, list, order, cpu`,
				`2:32: case "health" is listed twice`}},
		{"micro cases", "workload: micro\nprotocol:\n  cases: [get, order]\n" + validStacks,
			[]string{`3:16: unknown case "order" in workload micro`}},
		{"bad durations", "protocol:\n  warmup: 5\n  window: 10 s\n  timeout: 1ms\n  gate: {wait: soon}\n" + validStacks,
			[]string{`2:11: warmup "5": not a duration; write a number with a unit, e.g. 5s`,
				`3:11: window "10 s": not a duration`, `4:12: timeout "1ms": too short; give at least 10ms`, `5:16: gate wait "soon": not a duration`}},
		{"concurrency", "protocol:\n  concurrency: [0, -5, 10, 10, x]\n" + validStacks,
			[]string{`2:16: concurrency "0,-5,10,10,x": 0 is below 1; -5 is below 1; 10 is listed twice; "x" is not a whole number; write each level once`}},
		{"unknown profile", "profile: fast\n" + validStacks, []string{`1:10: unknown profile "fast"; write one of: quick, standard, full`}},
		{"profile typo", "profile: standrd\n" + validStacks, []string{`1:10: unknown profile "standrd"; did you mean "standard"?`}},
		{"unknown workload", "workload: saas\n" + validStacks, []string{`1:11: unknown workload "saas"`}},
		{"fresh and gate", "protocol:\n  fresh: process\n  gate: sometimes\n  boot_starts: -1\n" + validStacks,
			[]string{`2:10: fresh "process": not known; write round`, `3:9: gate "sometimes": the gate is auto`, `4:16: boot_starts "-1": below 0; give at least 0`}},
		{"duplicate key", "profile: quick\nprofile: full\n" + validStacks, []string{`2:1: key "profile" appears twice in the comparison file (first at line 1)`}},
		{"database", "database: mysql://x\n" + validStacks, []string{`1:11: database "mysql://x" is neither embedded nor a postgres:// URL`}},
		{"unset variable", "database: ${NOPE_URL}\n" + validStacks, []string{`1:11: database uses ${NOPE_URL}, which is not set in the environment`}},
		{"syntax", "stacks:\n  - name: a\n\tdir: x\n", []string{`2: YAML syntax: found a tab character that violates indentation (at or just below this line)`}},
		{"syntax without a line", "a: b: c\n", []string{`mapping values are not allowed in this context; the file must be YAML`}},
		{"not a mapping", "- a\n- b\n", []string{`1:1: the comparison file must be a mapping`}},
		{"empty file", "", []string{`the file is empty`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			matchProblems(t, loadProblems(t, tc.yaml), tc.want)
		})
	}
}

// TestLoadCollectsEverything checks that problems in every section are
// reported together, in file order.
func TestLoadCollectsEverything(t *testing.T) {
	got := loadProblems(t, `workload: saas-slice
profile: fast
protocol:
  window: 10
  cases: [ordr]
stacks:
  - name: a
    dir: apps/missing
    start: ./s
  - name: a
    dir: apps/b
`)
	wantLines := []string{"2:10:", "4:11:", "5:11:", "8:10:", "10:5:", "10:5:"}
	if len(got) != len(wantLines) {
		t.Fatalf("got %d problems:\n%s", len(got), strings.Join(got, "\n"))
	}
	for i, w := range wantLines {
		if !strings.HasPrefix(got[i], w) {
			t.Errorf("problem %d at %q, want %s", i, got[i], w)
		}
	}
}

func TestLoadWarnsUnusedDatabase(t *testing.T) {
	f, err := LoadEnv(writeConfig(t, "workload: micro\ndatabase: postgres://x@127.0.0.1/db\n"+validStacks), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Warnings) != 1 || f.Warnings[0].Line != 2 || !strings.Contains(f.Warnings[0].Msg, "uses no database") {
		t.Errorf("warnings %v", f.Warnings)
	}
}

func TestConfigErrorMessage(t *testing.T) {
	one := &ConfigError{Problems: []Problem{{File: "s.yaml", Line: 3, Col: 5, Msg: "bad; write good"}}}
	if one.Error() != "s.yaml:3:5: bad; write good" {
		t.Errorf("one: %q", one.Error())
	}
	two := &ConfigError{Problems: []Problem{{File: "s.yaml", Line: 3, Col: 5, Msg: "x"}, {Msg: "--stacks: y"}}}
	if two.Error() != "2 problems:\n  s.yaml:3:5: x\n  --stacks: y" {
		t.Errorf("two: %q", two.Error())
	}
}

func TestStackBootTimeout(t *testing.T) {
	f, err := LoadEnv(writeConfig(t, validStacks+"    boot_timeout: 2m\n"), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if f.Stacks[0].BootTimeout != 0 || f.Stacks[1].BootTimeout.String() != "2m0s" {
		t.Errorf("boot timeouts %v, %v; want 0 (the default) and 2m", f.Stacks[0].BootTimeout, f.Stacks[1].BootTimeout)
	}
	got := loadProblems(t, validStacks+"    boot_timeout: 90\n")
	if len(got) != 1 || got[0] != `8:19: boot_timeout "90" is not a duration; write a number with a unit, e.g. boot_timeout: 5s (units: ms, s, m, h)` {
		t.Errorf("problems %q", got)
	}
}

func TestLoadADirectory(t *testing.T) {
	dir := t.TempDir()
	_, err := LoadEnv(dir, noEnv)
	var ce *ConfigError
	if !errors.As(err, &ce) || !strings.HasSuffix(err.Error(), ": is a directory; name the comparison file, e.g. -f "+filepath.Join(displayName(dir), "stackbench.yaml")) {
		t.Errorf("got %v; want a ConfigError naming the file to give", err)
	}
}
