package cpuset

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseAndString(t *testing.T) {
	good := []struct {
		in   string
		want Set
		out  string
	}{
		{"0", Set{0}, "0"},
		{"0-3", Set{0, 1, 2, 3}, "0-3"},
		{" 8, 0-2 ,4", Set{0, 1, 2, 4, 8}, "0-2,4,8"},
		{"3,2,1,1", Set{1, 2, 3}, "1-3"},
		{"5-5", Set{5}, "5"},
		{"0-1,3-4", Set{0, 1, 3, 4}, "0-1,3-4"},
	}
	for _, c := range good {
		got, err := Parse(c.in)
		if err != nil || !got.Equal(c.want) {
			t.Errorf("Parse(%q) = %v, %v; want %v", c.in, got, err, c.want)
			continue
		}
		if got.String() != c.out {
			t.Errorf("Parse(%q).String() = %q, want %q", c.in, got.String(), c.out)
		}
	}
	bad := map[string]string{
		"":       "empty",
		"a":      "not a CPU number",
		"3-1":    "runs backwards; write 1-3",
		"1,,2":   "not a CPU number",
		"-1":     "not a CPU number",
		"0-2000": "above 1023",
		"1-":     "not a CPU number",
	}
	for in, want := range bad {
		if _, err := Parse(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q) error = %v, want one containing %q", in, err, want)
		}
	}
}

func TestSetOperations(t *testing.T) {
	a, b := Of(0, 1, 2, 5), Of(2, 3, 5)
	if got := a.Intersect(b); !got.Equal(Set{2, 5}) {
		t.Errorf("Intersect = %v", got)
	}
	if got := a.Minus(b); !got.Equal(Set{0, 1}) {
		t.Errorf("Minus = %v", got)
	}
	if got := a.Union(b); !got.Equal(Set{0, 1, 2, 3, 5}) {
		t.Errorf("Union = %v", got)
	}
	if Of(1).Describe() != "CPU 1" || Of(1, 2).Describe() != "CPUs 1-2" {
		t.Errorf("Describe: %q, %q", Of(1).Describe(), Of(1, 2).Describe())
	}
}

// singles is n CPUs, each a core of its own.
func singles(n int) []Set {
	cores := make([]Set, n)
	for i := range cores {
		cores[i] = Of(i)
	}
	return cores
}

func TestSplit(t *testing.T) {
	cases := []struct {
		name                        string
		cores                       []Set
		server, database, generator string
		sharing                     []string
	}{
		{"1 CPU", singles(1), "0", "0", "0", []string{
			"the generator and the server share CPU 0",
			"the generator and the database share CPU 0",
			"the server and the database share CPU 0"}},
		{"2 CPUs", singles(2), "0", "0", "1", []string{"the server and the database share CPU 0"}},
		{"3 CPUs", singles(3), "0", "1", "2", nil},
		{"4 CPUs", singles(4), "0-1", "2", "3", nil},
		{"8 CPUs", singles(8), "0-3", "4-5", "6-7", nil},
		{"16 CPUs", singles(16), "0-7", "8-11", "12-15", nil},
		// 8 hyper-threads on 4 cores, siblings numbered i and i+4 as
		// Linux usually does: whole cores go to lanes.
		{"4 cores, 8 threads", []Set{Of(0, 4), Of(1, 5), Of(2, 6), Of(3, 7)}, "0-1,4-5", "2,6", "3,7", nil},
		// 2 cores with 2 threads each: too few cores, so threads are split.
		{"2 cores, 4 threads", []Set{Of(0, 2), Of(1, 3)}, "0-1", "2", "3", nil},
		// a mask with holes: CPUs 2, 5, 6, 9.
		{"4 CPUs with holes", []Set{Of(9), Of(2), Of(6), Of(5)}, "2,5", "6", "9", nil},
	}
	for _, c := range cases {
		l := Split(c.cores)
		if l.Server.String() != c.server || l.Database.String() != c.database || l.Generator.String() != c.generator {
			t.Errorf("%s: server %s, database %s, generator %s; want %s, %s, %s", c.name,
				l.Server, l.Database, l.Generator, c.server, c.database, c.generator)
		}
		if !reflect.DeepEqual(l.Sharing(), c.sharing) {
			t.Errorf("%s: Sharing() = %q, want %q", c.name, l.Sharing(), c.sharing)
		}
		var all Set
		for _, core := range c.cores {
			all = all.Union(core)
		}
		if got := l.Server.Union(l.Database).Union(l.Generator); !got.Equal(all) {
			t.Errorf("%s: the lanes cover %s, not every CPU %s", c.name, got, all)
		}
	}
	if l := Split(nil); len(l.Server)+len(l.Database)+len(l.Generator) != 0 {
		t.Errorf("Split(nil) = %+v, want empty lanes", l)
	}
}

func TestCoresReadsSiblings(t *testing.T) {
	dir := t.TempDir()
	for cpu, sib := range map[string]string{"0": "0,2", "1": "1,3", "2": "0,2", "3": "1,3"} {
		p := filepath.Join(dir, "cpu"+cpu, "topology")
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p, "thread_siblings_list"), []byte(sib+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	old := sysCPU
	sysCPU = dir
	defer func() { sysCPU = old }()
	got := Cores(Of(0, 1, 2, 3, 7)) // CPU 7 has no topology: a core of its own
	want := []Set{Of(0, 2), Of(1, 3), Of(7)}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Cores = %v, want %v", got, want)
	}
	// Siblings outside the set do not join it.
	if got := Cores(Of(0, 1)); !reflect.DeepEqual(got, []Set{Of(0), Of(1)}) {
		t.Errorf("Cores(0,1) = %v", got)
	}
}
