package plan

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/stackbench/stackbench/internal/workload"
)

// awkwardValues are strings that string templates got wrong: YAML would
// read them as another type, another key, a comment, a flow collection
// or the end of the document.
var awkwardValues = []string{
	"a: b", "a #b", "#x", "true", "null", "1", "0x1f", "~", "- item", "? key", "[x]", "{x}", "&a", "*a", "!t",
	"|", ">", "'", `"`, `\`, "%x", "@x", "`x", " lead", "trail ", "x\n...\nstacks: []\n", "7\n---\n",
	"tab\there", "é ünïcode", "line\u2028sep",
}

// init's starter reads back, through plan, exactly as init meant it:
// awkward values in the workload's name, its health route, each case's
// name, path and header, the stack's build, start, runtime and migrate
// commands, and comments holding line breaks and control characters.
func TestAppStarterRoundTripsAwkwardValues(t *testing.T) {
	dir := t.TempDir()
	for i, v := range awkwardValues {
		oneLine := strings.ReplaceAll(v, "\n", " ")
		path := "/p/" + strings.ReplaceAll(strings.TrimSpace(v), "\n", "")
		cmd := "echo '" + v + "' \"$PORT\" # not a comment"
		sb := StarterBuild{
			Build: cmd, BuildNote: "note\nwith: a break # and\x00nul",
			Start: "X=" + v + " ./bin/app", StartNote: v,
			Base: "/api:v1", BaseNote: v,
			Migrate: `knex migrate:latest --env "a: b"` + v, MigrateNote: v,
		}
		app := StarterApp{
			Name: "app", Health: "/health:" + strings.TrimSpace(strings.Split(v, "\n")[0]), HealthNote: v,
			Stacks: AppStacks(sb), OwnDatabase: true,
			Cases: []StarterCase{{Name: "case", Path: path + "?q=a:b#c", Comment: v, Header: [][2]string{{"X-Key", oneLine}}}},
		}
		text, err := AppStarter(app)
		if err != nil {
			t.Fatalf("value %d %q: %v", i, v, err)
		}
		file := filepath.Join(dir, "stackbench.yaml")
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := Parse([]byte(text), file, func(string) string { return "" })
		if err != nil {
			t.Errorf("value %q: plan refuses the starter: %v\n%s", v, err, text)
			continue
		}
		if len(f.Stacks) != 1 || f.Workload == nil || len(f.Workload.Cases) != 1 {
			t.Errorf("value %q: %d stacks, workload %+v\n%s", v, len(f.Stacks), f.Workload, text)
			continue
		}
		s, c := f.Stacks[0], f.Workload.Cases[0]
		for _, g := range [][3]string{
			{"workload name", f.Workload.Name, app.Name},
			{"build", s.Build, sb.Build},
			{"start", s.Start, sb.Start},
			{"base", s.Base, sb.Base},
			{"health", s.Health, sb.Base + app.Health},
			{"migrate", s.Database.Setup, sb.Migrate},
			{"case name", c.Name, app.Cases[0].Name},
			{"case path", c.Path, app.Cases[0].Path},
			{"case header", header(c.Header, "X-Key"), oneLine},
		} {
			if g[1] != g[2] {
				t.Errorf("value %q: %s read back as %q, init meant %q\n%s", v, g[0], g[1], g[2], text)
			}
		}
	}
}

func header(hs []workload.Header, name string) string {
	for _, h := range hs {
		if h.Name == name {
			return h.Value
		}
	}
	return ""
}

// yamlComment keeps a comment on its line.
func TestYAMLCommentStaysOnItsLine(t *testing.T) {
	for _, s := range []string{"a\nb", "a\r\nb", "x\u2028y", "nul\x00", "\x85next"} {
		var got struct{ K string }
		c := yamlComment(s)
		if err := yaml.Unmarshal([]byte("k: v # "+c+"\n"), &got); err != nil || got.K != "v" || strings.ContainsAny(c, "\n\r\x00\u2028\u0085") {
			t.Errorf("yamlComment(%q) = %q: %v, k %q", s, c, err, got.K)
		}
	}
}

// A comparison file is one YAML document: a "..." or "---" line inside it
// would hide what follows, so Parse refuses a second document at its line.
func TestParseRefusesASecondDocument(t *testing.T) {
	base := "workload: saas-slice\nstacks:\n  - {name: a, dir: ., start: ./a}\n"
	for _, tail := range []string{"...\nstacks:\n  - {name: evil, dir: ., start: ./evil}\n", "---\nprofile: quick\n"} {
		_, err := Parse([]byte(base+tail), "/tmp/s.yaml", func(string) string { return "" })
		if err == nil || !strings.Contains(err.Error(), "s.yaml:4") || !strings.Contains(err.Error(), "ends the YAML document") {
			t.Errorf("%q after the file: %v; want the second document refused at its marker, line 4", tail, err)
		}
	}
	for _, ok := range []string{"", "---\n", "...\n", "---\n...\n"} {
		if _, err := Parse([]byte("---\n"+base+ok), "/tmp/s.yaml", func(string) string { return "" }); err != nil && strings.Contains(err.Error(), "ends the YAML document") {
			t.Errorf("%q after the file: %v; an empty document is none", ok, err)
		}
	}
}
