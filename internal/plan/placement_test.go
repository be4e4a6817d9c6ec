package plan

import (
	"errors"
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/cpuset"
)

// withHost makes Resolve see a process that may use n CPUs (0..n-1), each
// a core of its own.
func withHost(t *testing.T, n int) {
	t.Helper()
	old := hostCPUs
	t.Cleanup(func() { hostCPUs = old })
	var cores []cpuset.Set
	var avail cpuset.Set
	for i := range n {
		cores, avail = append(cores, cpuset.Of(i)), append(avail, i)
	}
	hostCPUs = func() (cpuset.Set, []cpuset.Set, error) { return avail, cores, nil }
}

func TestPlacementParses(t *testing.T) {
	withHost(t, 16)
	cases := []struct {
		name, protocol string
		o              Overrides
		want           Placement
	}{
		{"default on 16 CPUs", "", Overrides{}, Placement{Mode: PlacementLanes, Auto: true, Server: "0-7", Database: "8-11", Generator: "12-15"}},
		{"auto", "protocol:\n  placement: auto\n", Overrides{}, Placement{Mode: PlacementLanes, Auto: true, Server: "0-7", Database: "8-11", Generator: "12-15"}},
		{"shared", "protocol:\n  placement: shared\n", Overrides{}, Placement{Mode: PlacementShared}},
		{"lanes", "protocol:\n  placement: lanes\n", Overrides{}, Placement{Mode: PlacementLanes, Server: "0-7", Database: "8-11", Generator: "12-15"}},
		{"lists", "protocol:\n  placement: {mode: lanes, generator: \"3\", server: \"0-1\", database: 2}\n", Overrides{},
			Placement{Mode: PlacementLanes, Server: "0-1", Database: "2", Generator: "3"}},
		{"lists without mode", "protocol:\n  placement:\n    server: 0-3,8\n    database: 4-5\n    generator: 6-7\n", Overrides{},
			Placement{Mode: PlacementLanes, Server: "0-3,8", Database: "4-5", Generator: "6-7"}},
		{"flag over file", "protocol:\n  placement: shared\n", Overrides{Placement: mustFlag(t, "lanes:server=1:database=1:generator=0")},
			Placement{Mode: PlacementLanes, Server: "1", Database: "1", Generator: "0"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := resolve(t, c.protocol+validStacks, c.o)
			if p.Protocol.Placement != c.want {
				t.Errorf("placement %+v, want %+v", p.Protocol.Placement, c.want)
			}
		})
	}
}

func mustFlag(t *testing.T, v string) *PlacementSpec {
	t.Helper()
	s, err := ParsePlacementFlag(v)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestPlacementProblems(t *testing.T) {
	for name, tc := range map[string]struct {
		yaml string
		want []string
	}{
		"unknown mode":   {"protocol:\n  placement: pinned\n", []string{`2:14: placement "pinned" is not known; write shared (every process on every CPU), lanes`}},
		"bad list":       {"protocol:\n  placement: {server: 0-x, database: \"1\", generator: \"2\"}\n", []string{`2:23: placement server "0-x": "0-x" is not a CPU number`}},
		"backwards":      {"protocol:\n  placement:\n    server: 3-1\n    database: 4\n    generator: 5\n", []string{`3:13: placement server "3-1": the range "3-1" runs backwards; write 1-3`}},
		"missing lists":  {"protocol:\n  placement: {mode: lanes, server: \"0\"}\n", []string{`2:14: placement lanes takes the generator's, the server's and the database's CPU lists together, or none`}},
		"shared lists":   {"protocol:\n  placement: {mode: shared, server: \"0\", database: \"0\", generator: \"1\"}\n", []string{`2:14: placement shared takes no CPU lists; write mode: lanes`}},
		"unknown key":    {"protocol:\n  placement: {mode: lanes, client: \"0\"}\n", []string{`2:28: unknown key "client" in placement`}},
		"not a word":     {"protocol:\n  placement: [lanes]\n", []string{`2:14: placement must be a mapping of keys to values, not a list; write it as placement: lanes, or placement: {mode: lanes`}},
		"typo in mode":   {"protocol:\n  placement: {mode: lane}\n", []string{`2:14: placement "lane" is not known`}},
		"misspelled key": {"protocol:\n  placment: lanes\n", []string{`2:3: unknown key "placment" in protocol; did you mean "placement"?`}},
	} {
		t.Run(name, func(t *testing.T) {
			matchProblems(t, loadProblems(t, tc.yaml+validStacks), tc.want)
		})
	}
}

func TestPlacementAgainstTheHost(t *testing.T) {
	resolveErr := func(t *testing.T, protocol string, o Overrides) string {
		t.Helper()
		f, err := LoadEnv(writeConfig(t, protocol+validStacks), noEnv)
		if err != nil {
			t.Fatal(err)
		}
		_, err = f.Resolve(o)
		var ce *ConfigError
		if !errors.As(err, &ce) {
			t.Fatalf("Resolve: want a *ConfigError, got %v", err)
		}
		return err.Error()
	}
	withHost(t, 2)
	msg := resolveErr(t, "protocol:\n  placement: {server: \"0-1\", database: \"2\", generator: \"3-4\"}\n", Overrides{})
	if !strings.Contains(msg, "2 problems:") || !strings.Contains(msg, "stackbench.yaml:2:14: placement: the database's CPU 2 is not available to this process, which may use CPUs 0-1; choose CPUs among those") ||
		!strings.Contains(msg, "the generator's CPUs 3-4 are not available") {
		t.Errorf("outside the mask, from the file: %s", msg)
	}
	msg = resolveErr(t, "", Overrides{Placement: mustFlag(t, "lanes:server=0:database=0:generator=5-6")})
	if msg != "--placement: the generator's CPUs 5-6 are not available to this process, which may use CPUs 0-1; choose CPUs among those (or leave the lists out for the default split)" {
		t.Errorf("outside the mask, from the flag: %s", msg)
	}
	withHost(t, 1)
	msg = resolveErr(t, "protocol:\n  placement: lanes\n", Overrides{})
	if !strings.Contains(msg, "placement: lanes need at least 2 CPUs, and this process may use only CPU 0; write placement: shared") {
		t.Errorf("lanes on 1 CPU: %s", msg)
	}
}

// TestPlacementDefault checks the default (auto) on hosts of several
// sizes: lanes from LanesFromCPUs CPUs, shared below, and an explicit
// lanes on 2 CPUs that shares the server's CPU with the database.
func TestPlacementDefault(t *testing.T) {
	for n, want := range map[int]string{
		1: "shared (auto)", 2: "shared (auto)", 4: "shared (auto)", 7: "shared (auto)",
		8:  "lanes (auto): server CPUs 0-3, database CPUs 4-5, generator CPUs 6-7",
		16: "lanes (auto): server CPUs 0-7, database CPUs 8-11, generator CPUs 12-15",
	} {
		withHost(t, n)
		if got := resolve(t, validStacks, Overrides{}).Protocol.Placement.String(); got != want {
			t.Errorf("%d CPUs: %s, want %s", n, got, want)
		}
	}
	withHost(t, 2)
	pl := resolve(t, "protocol:\n  placement: lanes\n"+validStacks, Overrides{}).Protocol.Placement
	if pl.String() != "lanes: server CPU 0, database CPU 0, generator CPU 1" {
		t.Errorf("lanes on 2 CPUs: %s", pl)
	}
	if s := pl.Lanes().Sharing(); len(s) != 1 || s[0] != "the server and the database share CPU 0" {
		t.Errorf("lanes on 2 CPUs: Sharing() = %q", s)
	}
}

// TestPlacementInFingerprint: a plan resolved to another placement (as on
// another host) cannot resume this one's journal.
func TestPlacementInFingerprint(t *testing.T) {
	withHost(t, 2)
	shared := resolve(t, validStacks, Overrides{})
	withHost(t, 8)
	lanes := resolve(t, validStacks, Overrides{})
	if shared.Fingerprint == lanes.Fingerprint {
		t.Errorf("the default placement on 2 and on 8 CPUs (%s, %s) gives one fingerprint", shared.Protocol.Placement, lanes.Protocol.Placement)
	}
}

func TestPlacementFlag(t *testing.T) {
	for v, want := range map[string]string{
		"":                         "--placement is empty",
		"pinned":                   `--placement pinned: placement "pinned" is not known`,
		"lanes:server=0":           "--placement lanes:server=0: placement lanes takes the generator's, the server's and the database's CPU lists together",
		"lanes:client=0":           `--placement lanes:client=0: "client" is not a lane; write e.g. --placement lanes:server=0-3:database=4-5:generator=6-7`,
		"lanes:server=x":           `--placement lanes:server=x: server "x": "x" is not a CPU number`,
		"shared:server=0":          "placement shared takes no CPU lists",
		"lanes:server=0:database=": `database "": an empty CPU list`,
	} {
		_, err := ParsePlacementFlag(v)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParsePlacementFlag(%q) = %v, want an error containing %q", v, err, want)
		}
	}
	s := mustFlag(t, "lanes:generator=6-7:server=0-3:database=4-5")
	if s.Mode != PlacementLanes || s.Server != "0-3" || s.Database != "4-5" || s.Generator != "6-7" {
		t.Errorf("ParsePlacementFlag = %+v", s)
	}
}

// TestPlacementWithoutAffinity: on an OS without CPU affinity (macOS) the
// default is shared and says why, and lanes asked for are refused with
// what to write instead.
func TestPlacementWithoutAffinity(t *testing.T) {
	withHost(t, 16) // auto would choose lanes here
	old := hasAffinity
	t.Cleanup(func() { hasAffinity = old })
	hasAffinity = func() bool { return false }
	pl := resolve(t, validStacks, Overrides{}).Protocol.Placement
	if got, want := pl.String(), "shared (auto); no lanes: this OS has no CPU affinity"; got != want || pl.IsLanes() || !pl.NoAffinity {
		t.Errorf("default without affinity: %q (lanes %v), want %q", got, pl.IsLanes(), want)
	}
	f, err := LoadEnv(writeConfig(t, "protocol:\n  placement: lanes\n"+validStacks), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.Resolve(Overrides{})
	var ce *ConfigError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "stackbench.yaml:2:14: placement: lanes pin processes to CPUs, and this OS has no CPU affinity (macOS); write placement: shared") {
		t.Errorf("lanes without affinity: %v", err)
	}
	if _, err := f.Resolve(Overrides{Placement: mustFlag(t, "lanes")}); err == nil || !strings.Contains(err.Error(), "--placement: lanes pin processes to CPUs") {
		t.Errorf("--placement lanes without affinity: %v", err)
	}
}
