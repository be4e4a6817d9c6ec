package plan

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/host"
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
		for _, d := range []string{"apps/nethttp-pgx", "apps/chi-pgx", "apps/a", "apps/b", "apps/grpc-pgx/saaspb"} {
			if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		// The wire's example names the gRPC reference stack's .proto.
		proto, err := os.ReadFile("../../apps/grpc-pgx/saaspb/saas.proto")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "apps/grpc-pgx/saaspb/saas.proto"), proto, 0o644); err != nil {
			t.Fatal(err)
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

// TestDocsProfileTable checks the profile table of docs/config.md against
// the profiles themselves, so the manual cannot promise another protocol.
func TestDocsProfileTable(t *testing.T) {
	data, err := os.ReadFile("../../docs/config.md")
	if err != nil {
		t.Fatal(err)
	}
	table := strings.SplitN(string(data), "## Profiles", 2)
	if len(table) != 2 {
		t.Fatal("docs/config.md has no Profiles section")
	}
	rows := map[string][]string{}
	for _, line := range strings.Split(table[1], "\n") {
		if !strings.HasPrefix(line, "| `") {
			if len(rows) > 0 {
				break
			}
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		rows[strings.Trim(cells[0], "`")] = cells[1:]
	}
	for i, name := range ProfileNames() {
		p, _ := Profile(name)
		concurrency := make([]string, len(p.Concurrency))
		for j, c := range p.Concurrency {
			concurrency[j] = strconv.Itoa(c)
		}
		rounds := strconv.Itoa(p.Rounds)
		if p.Adaptive {
			rounds = fmt.Sprintf("auto: %d to %d, budget %s", p.Rounds, p.MaxRounds, strings.TrimSuffix(strings.TrimSuffix(p.Budget.String(), "0s"), "0s"))
		}
		want := map[string]string{
			"concurrency": strings.Join(concurrency, ", "),
			"rounds":      rounds,
			"fresh":       p.Fresh,
			"boot_starts": strconv.Itoa(p.BootStarts),
			"spread":      strconv.FormatBool(p.Spread),
		}
		for key, w := range want {
			row, ok := rows[key]
			if !ok || len(row) != len(ProfileNames()) {
				t.Errorf("docs/config.md's profile table has no full %s row: %q", key, row)
				continue
			}
			if row[i] != w {
				t.Errorf("docs/config.md: %s %s is %q, the profile says %q", name, key, row[i], w)
			}
		}
		durations := map[string]time.Duration{"warmup": p.Warmup, "warmup_max": p.WarmupMax, "jit_warmup": p.JITWarmup, "jit_warmup_max": p.JITWarmupMax, "window": p.Window, "timeout": p.Timeout}
		for key, w := range durations {
			row := rows[key]
			if len(row) != len(ProfileNames()) {
				t.Errorf("docs/config.md's profile table has no full %s row: %q", key, row)
				continue
			}
			if d, err := time.ParseDuration(row[i]); err != nil || d != w {
				t.Errorf("docs/config.md: %s %s is %q, the profile says %s", name, key, row[i], w)
			}
		}
		gate := fmt.Sprintf("%s, %d retr", p.Gate.Mode, p.Gate.Retries)
		row := rows["gate"]
		if len(row) != len(ProfileNames()) {
			t.Errorf("docs/config.md's profile table has no full gate row: %q", row)
			continue
		}
		_, wait, _ := strings.Cut(row[i], "wait ")
		if d, err := time.ParseDuration(wait); !strings.HasPrefix(row[i], gate) || err != nil || d != p.Gate.Wait {
			t.Errorf("docs/config.md: %s gate is %q, the profile says %s…, wait %s", name, row[i], gate, p.Gate.Wait)
		}
	}
}

// TestStarterDescribesTheProfiles holds the starter's comment on the
// profiles to their values.
func TestStarterDescribesTheProfiles(t *testing.T) {
	text := strings.Join(strings.Fields(strings.ReplaceAll(StarterYAML, "\n#", "\n")), " ")
	for _, name := range ProfileNames() {
		p, _ := Profile(name)
		wants := []string{shortDuration(p.Warmup) + " warm-up", shortDuration(p.Window) + " windows"}
		if p.Adaptive {
			wants = append(wants, fmt.Sprintf("%d to %d rounds within %s", p.Rounds, p.MaxRounds, shortDuration(p.Budget)))
		} else {
			wants = append(wants, fmt.Sprintf("%d rounds", p.Rounds))
		}
		for _, w := range wants {
			if !strings.Contains(text, w) {
				t.Errorf("the starter's comment on %s lacks %q", name, w)
			}
		}
	}
}

// TestDocsGateMargin holds the automatic gate's margin, as the docs and the
// messages state it, to the code's.
func TestDocsGateMargin(t *testing.T) {
	data, err := os.ReadFile("../../docs/config.md")
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("+ %g cores", host.DefaultGateMarginCores)
	if !strings.Contains(string(data), "idle foreign CPU measured at start "+want) {
		t.Errorf("docs/config.md does not give the automatic gate as the idle baseline %s", want)
	}
	_, _, err = parseGate("sometimes")
	if err == nil || !strings.Contains(err.Error(), "idle baseline "+want) {
		t.Errorf("the gate's message %v does not say %s", err, want)
	}
}

// shortDuration writes a duration as the docs do: 8m, not 8m0s.
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
