package cli

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/workload"
)

// tfbTestdata is the absolute path of a TFB entry folder under testdata.
func tfbTestdata(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata", "tfb", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// initTFB runs init --tfb in a fresh directory and loads what it wrote;
// `stackbench plan` must accept the file as it is.
func initTFB(t *testing.T, args ...string) (*plan.File, string, string) {
	t.Helper()
	dir := t.TempDir()
	code, out, errOut := runMain(t, dir, nil, append([]string{"init"}, args...)...)
	if code != 0 {
		t.Fatalf("init %v: exit %d\n%s%s", args, code, out, errOut)
	}
	data, err := os.ReadFile(filepath.Join(dir, "stackbench.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := runMain(t, dir, nil, "plan"); code != 0 {
		t.Fatalf("plan rejects the file init --tfb wrote: exit %d\n%s%s\n--- file:\n%s", code, out, errOut, data)
	}
	f, err := plan.Load(filepath.Join(dir, "stackbench.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return f, string(data), errOut
}

func stackNames(f *plan.File) []string {
	var out []string
	for _, s := range f.Stacks {
		out = append(out, s.Name)
	}
	return out
}

func TestInitTFBEachEntry(t *testing.T) {
	for _, tc := range []struct {
		entry    string
		args     []string
		stacks   []string
		cases    string
		inFile   []string // the file mentions each
		notFile  []string
		warnings []string
	}{
		{entry: "nodeexpress", stacks: []string{"nodeexpress"}, cases: "json,plaintext",
			inFile:  []string{"build: npm ci --omit=dev", "start: node app.js", "runtime: node", "approach Realistic", "orm Raw", "GUESS from nodeexpress.dockerfile", "port 8080"},
			notFile: []string{"Stripped:"}},
		{entry: "pyfalcon", args: []string{"--variants", "postgres"}, stacks: []string{"pyfalcon-postgres"},
			cases:   "db,queries,fortunes,updates",
			inFile:  []string{"start: gunicorn app:app -c gunicorn_conf.py", "build: pip install -r requirements.txt", "Left out (installs system packages", "orm Full", "runtime: python"},
			notFile: []string{"build: apt-get"}},
		{entry: "gostripped", stacks: []string{"gostripped"}, cases: "json,db,queries,fortunes,updates,plaintext,cached-queries",
			inFile: []string{"start: ./server -prefork", "build: go build -o server .", "Stripped: TFB marks", "classification Platform", "runtime: go"}},
		{entry: "mixed", stacks: []string{"mixed-postgres"}, cases: "db,queries",
			inFile:   []string{"runtime: bun", "DB_POOL: \"8\""},
			warnings: []string{"variant mysql uses MySQL", "variant mongodb uses MongoDB"}},
		// TFB's usual layout: json and plaintext in the default variant,
		// the database test types in another. Unnamed, the wider is kept.
		{entry: "splitvariants", stacks: []string{"splitvariants-postgres"}, cases: "db,queries,fortunes,updates",
			inFile:   []string{"DATABASE: postgres", "tfb: {approach: Realistic, orm: Raw, classification: Platform}"},
			warnings: []string{"variant default left out: it shares no test type with splitvariants-postgres (db, queries, fortunes, updates); import it on its own with --variants default"}},
		{entry: "oddurls", stacks: []string{"oddurls"}, cases: "json,db,queries",
			inFile: []string{"GUESS from oddurls-custom.dockerfile", "JAVA_OPTS: -Xmx512m -XX:+UseParallelGC", "runtime: jvm",
				"paths: {queries: '/query?queries='}", "tfb: {approach: Realistic, orm: Full}"}},
	} {
		t.Run(tc.entry, func(t *testing.T) {
			f, data, errOut := initTFB(t, append([]string{"--tfb", tfbTestdata(t, tc.entry)}, tc.args...)...)
			if got := stackNames(f); !slices.Equal(got, tc.stacks) {
				t.Errorf("stacks %v, want %v", got, tc.stacks)
			}
			if got := strings.Join(f.Workload.CaseNames(), ","); got != tc.cases {
				t.Errorf("cases %s, want %s", got, tc.cases)
			}
			for _, s := range tc.inFile {
				if !strings.Contains(data, s) {
					t.Errorf("the file does not say %q:\n%s", s, data)
				}
			}
			for _, s := range tc.notFile {
				if strings.Contains(data, s) {
					t.Errorf("the file says %q:\n%s", s, data)
				}
			}
			for _, w := range tc.warnings {
				if !strings.Contains(errOut, w) {
					t.Errorf("no warning %q in:\n%s", w, errOut)
				}
			}
		})
	}
}

// TestInitTFBSeveralEntries puts entries in one file in the order given:
// framework → framework steps.
func TestInitTFBSeveralEntries(t *testing.T) {
	f, _, _ := initTFB(t, "--tfb", tfbTestdata(t, "nodeexpress"), tfbTestdata(t, "pyfalcon"), tfbTestdata(t, "gostripped"), "--variants", "default")
	if got, want := stackNames(f), []string{"nodeexpress", "pyfalcon", "gostripped"}; !slices.Equal(got, want) {
		t.Errorf("stacks %v, want %v", got, want)
	}
	if got := strings.Join(f.Workload.CaseNames(), ","); got != "json,plaintext" || f.Workload.NeedsDatabase {
		t.Errorf("cases %s (needs database %v), want json,plaintext without a database", got, f.Workload.NeedsDatabase)
	}
	// Every stack is checked on every case: variants with no test type in
	// common cannot share a file, and the message says what to do.
	code, _, errOut := runMain(t, t.TempDir(), nil, "init", "--tfb", tfbTestdata(t, "nodeexpress"), tfbTestdata(t, "pyfalcon"))
	if code != 2 || !strings.Contains(errOut, "no test type in common") || !strings.Contains(errOut, "--variants") {
		t.Errorf("exit %d: %s", code, errOut)
	}
}

func TestInitTFBRejectsBadConfigs(t *testing.T) {
	for _, tc := range []struct {
		name, config, want string
	}{
		{"unknown top-level key", "{\n  \"framework\": \"x\",\n  \"testz\": []\n}", `benchmark_config.json:3:3: unknown key "testz"`},
		{"unknown variant key", "{\"framework\": \"x\", \"tests\": [{\"default\": {\n  \"json_url\": \"/json\",\n    \"Port\": 8080}}]}", `benchmark_config.json:3:5: unknown key "Port" in variant "default"; did you mean "port"?`},
		{"malformed", "{\"framework\": \"x\",\n \"tests\": [{\"default\": {\"json_url\": \"/json\",}}]}", "benchmark_config.json:2:"},
		{"truncated", "{\"framework\": \"x\", \"tests\": [", "malformed JSON: the file ends before the JSON does"},
		{"port not a number", "{\"framework\": \"x\", \"tests\": [{\"default\": {\"json_url\": \"/json\", \"port\": \"8080\"}}]}", "port must be a number"},
		{"bad approach", "{\"framework\": \"x\", \"tests\": [{\"default\": {\"json_url\": \"/json\", \"approach\": \"Fast\"}}]}", "Realistic and Stripped"},
		{"duplicate key", "{\"framework\": \"x\", \"framework\": \"y\"}", "1:20: key \"framework\" appears twice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			entry := t.TempDir()
			if err := os.WriteFile(filepath.Join(entry, "benchmark_config.json"), []byte(tc.config), 0o644); err != nil {
				t.Fatal(err)
			}
			code, _, errOut := runMain(t, t.TempDir(), nil, "init", "--tfb", entry)
			if code != 2 || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit 2 and %q", code, errOut, tc.want)
			}
		})
	}
	code, _, errOut := runMain(t, t.TempDir(), nil, "init", "--tfb", tfbTestdata(t, "pyfalcon"), "--variants", "mysql")
	if code != 2 || !strings.Contains(errOut, `no entry has a variant "mysql"`) {
		t.Errorf("unknown variant: exit %d, %s", code, errOut)
	}
}

func FuzzParseTFBConfig(f *testing.F) {
	for _, e := range []string{"nodeexpress", "pyfalcon", "gostripped", "mixed", "oddurls"} {
		data, err := os.ReadFile(filepath.Join("testdata", "tfb", e, "benchmark_config.json"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := parseTFBConfig("benchmark_config.json", data)
		if err == nil && (cfg.Framework == "" || len(cfg.Variants) == 0) {
			t.Errorf("accepted a config without framework or variants: %+v", cfg)
		}
	})
}

func TestParseDockerfile(t *testing.T) {
	g, err := parseDockerfile([]byte("FROM a AS b\n# c\nRUN echo 1 \\\n  && echo 2\nRUN [\"sh\", \"-c\", \"echo it's\"]\nRUN apk add curl\nENTRYPOINT [\"/bin/app\"]\nCMD [\"--port\", \"8080\"]\nENV A=1 B=\"two words\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"echo 1 && echo 2", `sh -c 'echo it'\''s'`}; !slices.Equal(g.Build, want) {
		t.Errorf("build %q, want %q", g.Build, want)
	}
	if len(g.Skipped) != 1 || g.Start != "/bin/app --port 8080" || len(g.From) != 1 || g.From[0] != "a" {
		t.Errorf("skipped %q, start %q, from %q", g.Skipped, g.Start, g.From)
	}
	if want := [][2]string{{"A", "1"}, {"B", "two words"}}; !slices.Equal(g.Env, want) {
		t.Errorf("env %q, want %q", g.Env, want)
	}
}

// TestInitTFBPerStackPaths imports two variants that serve the test types
// at different URLs: each stack's file says its own paths, and the plan
// sends each stack its own (the load's case, parity's checks and the
// health path alike).
func TestInitTFBPerStackPaths(t *testing.T) {
	f, data, _ := initTFB(t, "--tfb", tfbTestdata(t, "twourls"))
	if got := stackNames(f); !slices.Equal(got, []string{"twourls", "twourls-orm"}) {
		t.Fatalf("stacks %v", got)
	}
	if got := strings.Join(f.Workload.CaseNames(), ","); got != "json,db,queries" {
		t.Errorf("cases %s, want json,db,queries (both variants serve them, at their own URLs)", got)
	}
	if !strings.Contains(data, "paths: {json: /orm/json, db: /orm/db, queries: /orm/queries/}") {
		t.Errorf("the orm variant's paths are not in the file:\n%s", data)
	}
	for _, tc := range []struct{ stack, cas, path string }{
		{"twourls", "json", "/json"}, {"twourls", "queries", "/queries?queries=20"},
		{"twourls-orm", "json", "/orm/json"}, {"twourls-orm", "db", "/orm/db"}, {"twourls-orm", "queries", "/orm/queries/20"},
	} {
		c, ok := f.CaseOf(tc.stack, tc.cas)
		if !ok || c.Path != tc.path {
			t.Errorf("%s %s: path %q, want %q", tc.stack, tc.cas, c.Path, tc.path)
		}
	}
	var checked []string
	for _, c := range workload.Checks(f.WorkloadOf("twourls-orm"), "") {
		checked = append(checked, c.Path)
	}
	if !slices.Contains(checked, "/orm/queries/foo") || !slices.Contains(checked, "/orm/queries/501") || slices.Contains(checked, "/queries?queries=0") {
		t.Errorf("parity's count edges are not at the stack's own URL: %v", checked)
	}
	for i, want := range []string{"/json", "/orm/json"} {
		if h := f.Stacks[i].Health; h != want {
			t.Errorf("stack %s health %q, want %q", f.Stacks[i].Name, h, want)
		}
	}
	// The labels from benchmark_config.json reach the stack (and from it
	// the report).
	if e := f.Stacks[1].TFB; e == nil || e.Approach != "Stripped" || e.ORM != "Full" || e.Classification != "Fullstack" {
		t.Errorf("stack twourls-orm's tfb: %+v, want Stripped, Full, Fullstack", e)
	}
}

// TestInitTFBContainer writes each stack as a container built from its
// variant's Dockerfile (init --tfb --container), and plan accepts the
// file: the image is stackbench-<stack> from that Dockerfile, with no
// build or start of its own, the labels and paths as natively.
func TestInitTFBContainer(t *testing.T) {
	f, data, _ := initTFB(t, "--tfb", tfbTestdata(t, "twourls"), "--container")
	for i, want := range []string{"twourls.dockerfile", "twourls-orm.dockerfile"} {
		s := f.Stacks[i]
		if s.Container == nil || filepath.Base(s.Container.Build) != want || s.Container.Image != "stackbench-"+s.Name {
			t.Fatalf("stack %s: container %+v, want built from %s", s.Name, s.Container, want)
		}
		if s.Build != "" || s.Start != "" {
			t.Errorf("stack %s: build %q, start %q; the image's own CMD runs", s.Name, s.Build, s.Start)
		}
	}
	if f.Stacks[1].TFB == nil || f.Stacks[1].Paths["json"] != "/orm/json" {
		t.Errorf("the container stack lost its labels or paths: %+v %v", f.Stacks[1].TFB, f.Stacks[1].Paths)
	}
	if !strings.Contains(data, "container: {build: twourls-orm.dockerfile}") || !strings.Contains(data, "it must listen on $PORT") {
		t.Errorf("the file:\n%s", data)
	}
	// Without --tfb the flag is refused.
	if code, _, errOut := runMain(t, t.TempDir(), nil, "init", "--container"); code != 2 || !strings.Contains(errOut, "go with --tfb") {
		t.Errorf("init --container alone: exit %d: %s", code, errOut)
	}
}
