package plan

import (
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// yamlScalar writes any string as one line that YAML reads back as that
// string, after a key and before a comment, and yamlComment keeps a
// comment on its line.
func TestYAMLScalarRoundTrips(t *testing.T) {
	for _, s := range []string{
		"/pets", "./bin/app", "go build -o bin/app ./cmd/server", "/a?b=1&c=2", "${TODO_id}",
		"x\n...\nstacks: []\n", "7\n---\n", "a\n...\nb", "tab\there", "nul\x00bell\x07del\x7f", "line\u2028sep\u2029", "\ufeffbom",
		"true", "null", "1", "0x1f", "~", "- item", "? key", "a: b", "a #b", " lead", "trail ", "", "'", `"`, `\`,
		"é ünïcode", strings.Repeat("long words ", 30), "bad utf8 \xff",
	} {
		line := yamlScalar(s)
		if strings.ContainsAny(line, "\n\r") {
			t.Errorf("yamlScalar(%q) = %q spans lines", s, line)
			continue
		}
		var got struct{ K string }
		if err := yaml.Unmarshal([]byte("k: "+line+"   # a comment\n"), &got); err != nil {
			t.Errorf("yamlScalar(%q) = %q: %v", s, line, err)
			continue
		}
		want := s
		if s == "bad utf8 \xff" {
			want = "bad utf8 \ufffd" // YAML holds Unicode only
		}
		if got.K != want {
			t.Errorf("yamlScalar(%q) = %q, read back as %q", s, line, got.K)
		}
	}
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
