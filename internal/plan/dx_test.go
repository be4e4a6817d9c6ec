package plan

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestDXAndProcessParse(t *testing.T) {
	path := writeConfig(t, `stacks:
  - name: a
    dir: apps/a
    start: node server.js
    build: npm run build
    dx:
      install: npm ci --cache .npm-cache
      cold: [node_modules, .npm-cache]
      artifact: dist
      deps: node_modules
      rounds: 2
      reload:
        start: node --watch server.js
        path: /users/1
        timeout: 5s
        edit: {file: src/app.js, find: "'Ada'", replace: "'Ada L'"}
process:
  sizes: [100, 1000]
  rounds: 4
  warmup: 0
  commands:
    - name: hand
      dir: apps/b
      build: go build -o bin/hand-{size} ./gen/n{size}/hand
      run: bin/hand-{size} {size}
      dx: {deps: go list -m all, artifact: "bin/hand-{size}"}
`)
	f, err := LoadEnv(path, noEnv)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(path)
	d := f.Stacks[0].DX
	if d == nil || d.Install != "npm ci --cache .npm-cache" || d.Rounds != 2 || d.DepsDir != filepath.Join(dir, "apps/a/node_modules") ||
		len(d.Cold) != 2 || d.Cold[1] != filepath.Join(dir, "apps/a/.npm-cache") || d.Artifact != filepath.Join(dir, "apps/a/dist") {
		t.Fatalf("dx %+v", d)
	}
	r := d.Reload
	if r == nil || r.Start != "node --watch server.js" || r.Path != "/users/1" || r.Timeout != 5*time.Second ||
		r.File != filepath.Join(dir, "apps/a/src/app.js") || r.Find != "'Ada'" || r.Replace != "'Ada L'" {
		t.Fatalf("reload %+v", r)
	}
	ps := f.Process
	if ps == nil || len(ps.Sizes) != 2 || ps.Rounds != 4 || ps.Warmup != 0 || ps.Timeout != DefaultProcessTimeout || len(ps.Commands) != 1 {
		t.Fatalf("process %+v", ps)
	}
	c := ps.Commands[0]
	if strings.Join(c.Run, "|") != "bin/hand-{size}|{size}" || c.DX == nil || c.DX.DepsCommand != "go list -m all" || c.DX.Rounds != DefaultDXRounds {
		t.Fatalf("command %+v, dx %+v", c, c.DX)
	}
	if !f.HasDX() {
		t.Error("HasDX is false")
	}
}

func TestProcessOnlyFileNeedsNoStacks(t *testing.T) {
	f, err := LoadEnv(writeConfig(t, "process:\n  sizes: 10\n  commands:\n    - {name: a, dir: apps/a, run: ./a}\n"), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Stacks) != 0 || f.Process.Sizes[0] != 10 || f.HasDX() {
		t.Errorf("stacks %v, process %+v", f.Stacks, f.Process)
	}
}

func TestDXProblems(t *testing.T) {
	got := loadProblems(t, `stacks:
  - name: a
    dir: apps/a
    start: ./s
    dx:
      instal: npm ci
      cold: [../elsewhere]
      rounds: 0
      reload:
        start: node --watch s.js
        edit: {file: /etc/passwd, find: x, replace: x}
process:
  sizes: [10, 10]
  commands:
    - name: a
      dir: apps/a
      run: sh -c 'sleep 1'
      speed: 2
`)
	want := []string{
		`6:7: unknown key "instal" in dx of stack "a"; did you mean "install"?`,
		`7:14: cold "../elsewhere" must be a path inside dir`,
		`8:15: rounds must be at least 1`,
		`10:9: reload of stack "a" has no path`,
		`11:22: file "/etc/passwd" must be a path inside dir`,
		`11:53: replace is the same as find`,
		`13:15: size 10 appears twice in sizes`,
		`17:12: run "sh -c 'sleep 1'" is run without a shell`,
		`18:7: unknown key "speed" in command "a"`,
	}
	if len(got) != len(want) {
		t.Fatalf("got %d problems, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("problem %d:\n got %s\nwant %s…", i, got[i], want[i])
		}
	}
}
