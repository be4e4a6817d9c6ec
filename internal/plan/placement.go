package plan

import (
	"fmt"
	"strings"

	"github.com/stackbench/stackbench/internal/cpuset"
	"go.yaml.in/yaml/v3"
)

// Placement modes: every process on every CPU of the mask (shared), or the
// generator, the server and the database each pinned to CPUs of their own
// (lanes). PlacementAuto is written in a file or a flag only: it resolves
// to lanes when this process may use LanesFromCPUs CPUs or more, to shared
// below.
const (
	PlacementShared = "shared"
	PlacementLanes  = "lanes"
	PlacementAuto   = "auto"
)

// LanesFromCPUs is the size of the affinity mask from which placement:
// auto (the default) resolves to lanes: with 8 CPUs the default split
// gives the generator and the database two each and the server four.
const LanesFromCPUs = 8

// Placement is the resolved placement of a plan (docs/placement.md). It is
// resolved when the plan is, on the host that resolves it, and is part of
// the fingerprint: a resumed run on a host that would resolve it otherwise
// is refused rather than measured differently.
type Placement struct {
	Mode string `json:"mode"`
	// Generator, Server and Database are the lanes' CPU lists ("0-3") with
	// lanes; empty with shared. Lanes may share CPUs only where the host
	// has too few (two CPUs) or the user said so; Lanes().Sharing says.
	Generator string `json:"generator_cpus,omitempty"`
	Server    string `json:"server_cpus,omitempty"`
	Database  string `json:"database_cpus,omitempty"`
	// Auto is true when the mode was chosen from the host's CPUs
	// (placement: auto, or no placement given).
	Auto bool `json:"auto,omitempty"`
	// NoAffinity is true when the host's OS has no CPU affinity (macOS),
	// so the placement is shared whatever auto would have chosen.
	NoAffinity bool `json:"no_affinity,omitempty"`
}

// IsLanes reports whether the parties are pinned to lanes.
func (p Placement) IsLanes() bool { return p.Mode == PlacementLanes }

// Lanes returns the CPU sets of the lanes; empty sets with shared.
func (p Placement) Lanes() cpuset.Lanes {
	parse := func(s string) cpuset.Set {
		if s == "" {
			return nil
		}
		set, _ := cpuset.Parse(s) // validated when the plan was resolved
		return set
	}
	return cpuset.Lanes{Generator: parse(p.Generator), Server: parse(p.Server), Database: parse(p.Database)}
}

// String describes the placement in one line: "lanes (auto): server CPUs
// 0-3, database CPUs 4-5, generator CPUs 6-7"; "shared".
func (p Placement) String() string {
	mode := p.Mode
	if p.Auto {
		mode += " (auto)"
	}
	if p.NoAffinity {
		mode += "; no lanes: this OS has no CPU affinity"
	}
	if !p.IsLanes() {
		return mode
	}
	l := p.Lanes()
	return fmt.Sprintf("%s: server %s, database %s, generator %s", mode, l.Server.Describe(), l.Database.Describe(), l.Generator.Describe())
}

// PlacementSpec is placement as written in a file (placement: lanes, or
// a mapping {mode, generator, server, database}) or on the command line
// (--placement lanes:server=0-1:database=2:generator=3): a mode and, with
// lanes, either all three CPU lists or none (the default split).
type PlacementSpec struct {
	Mode                        string
	Generator, Server, Database string
	// at is where the spec was written, for messages; zero for a flag.
	at Problem
}

var placementKeys = []string{"mode", "generator", "server", "database"}

const placementExample = `placement: lanes, or placement: {mode: lanes, server: "0-3", database: "4-5", generator: "6-7"}`

// placement reads the protocol's placement key: a mode, or a mapping of
// the mode and the three CPU lists.
func (p *parser) placement(n *yaml.Node) *PlacementSpec {
	n = deref(n)
	spec := &PlacementSpec{at: Problem{File: p.name, Line: n.Line, Col: n.Column}}
	if n.Kind == yaml.ScalarNode {
		spec.Mode, _ = p.str(n, "placement", placementExample)
	} else {
		m, ok := p.fields(n, "placement", placementKeys, placementExample)
		if !ok {
			return nil
		}
		spec.Mode = PlacementLanes
		if v := m.get("mode"); v != nil {
			spec.Mode, _ = p.str(v, "placement mode", "mode: lanes")
		}
		for _, f := range []struct {
			key string
			dst *string
		}{{"generator", &spec.Generator}, {"server", &spec.Server}, {"database", &spec.Database}} {
			if v := m.get(f.key); v != nil {
				s, ok := p.str(v, "placement "+f.key, f.key+`: "0-3"`)
				if _, err := cpuset.Parse(s); ok && err != nil {
					p.addf(v, "placement %s %q: %v", f.key, s, err)
				}
				*f.dst = s
			}
		}
	}
	if msg := spec.check(); msg != "" {
		p.addf(n, "%s", msg)
		return nil
	}
	return spec
}

// check returns what is wrong with the spec apart from the host, or "".
func (s PlacementSpec) check() string {
	switch s.Mode {
	case PlacementShared, PlacementAuto:
		if s.Generator+s.Server+s.Database != "" {
			return fmt.Sprintf("placement %s takes no CPU lists; write mode: lanes to pin the parties to them", s.Mode)
		}
	case PlacementLanes:
		given := 0
		for _, l := range []string{s.Generator, s.Server, s.Database} {
			if l != "" {
				given++
			}
		}
		if given != 0 && given != 3 {
			return "placement lanes takes the generator's, the server's and the database's CPU lists together, or none for the default split; add the missing ones"
		}
	case "":
		return ""
	default:
		return fmt.Sprintf("placement %q is not known; write shared (every process on every CPU), lanes (the generator, the server and the database on CPUs of their own) or auto (lanes with %d CPUs or more)", s.Mode, LanesFromCPUs)
	}
	return ""
}

// ParsePlacementFlag reads --placement: shared, lanes, auto, or
// lanes:server=LIST:database=LIST:generator=LIST.
func ParsePlacementFlag(v string) (*PlacementSpec, error) {
	parts := strings.Split(strings.TrimSpace(v), ":")
	spec := &PlacementSpec{Mode: parts[0]}
	for _, kv := range parts[1:] {
		key, list, _ := strings.Cut(kv, "=")
		var dst *string
		switch key {
		case "generator":
			dst = &spec.Generator
		case "server":
			dst = &spec.Server
		case "database":
			dst = &spec.Database
		default:
			return nil, fmt.Errorf("--placement %s: %q is not a lane; write e.g. --placement lanes:server=0-3:database=4-5:generator=6-7", v, key)
		}
		if _, err := cpuset.Parse(list); err != nil {
			return nil, fmt.Errorf("--placement %s: %s %q: %v", v, key, list, err)
		}
		*dst = list
	}
	if spec.Mode == "" {
		return nil, fmt.Errorf("--placement is empty; write shared, lanes or auto")
	}
	if msg := spec.check(); msg != "" {
		return nil, fmt.Errorf("--placement %s: %s", v, msg)
	}
	return spec, nil
}

// hostCPUs returns the CPUs this process may use, grouped by physical
// core; tests replace it.
var hostCPUs = func() (cpuset.Set, []cpuset.Set, error) {
	avail, err := cpuset.Affinity()
	if err != nil {
		return nil, nil, err
	}
	return avail, cpuset.Cores(avail), nil
}

// hasAffinity reports whether the host's OS can pin processes to CPUs;
// tests replace it.
var hasAffinity = cpuset.Supported

// placementWithoutAffinity is the placement on an OS without CPU affinity
// (macOS): shared, and an error when the spec asks for lanes.
func placementWithoutAffinity(spec *PlacementSpec) (Placement, []Problem) {
	if spec == nil || spec.Mode == PlacementAuto || spec.Mode == "" {
		return Placement{Mode: PlacementShared, Auto: true, NoAffinity: true}, nil
	}
	if spec.Mode == PlacementLanes {
		pr := spec.at
		where := "placement: "
		if pr.File == "" {
			where = "--placement: "
		}
		pr.Msg = where + "lanes pin processes to CPUs, and this OS has no CPU affinity (macOS); write placement: shared, or run on Linux for lanes"
		return Placement{}, []Problem{pr}
	}
	return Placement{Mode: PlacementShared, NoAffinity: true}, nil
}

// placementFor turns the spec (nil: auto) into the plan's placement for
// a process that may use the CPUs avail, grouped into cores.
func placementFor(spec *PlacementSpec, avail cpuset.Set, cores []cpuset.Set) (Placement, []Problem) {
	if spec == nil {
		spec = &PlacementSpec{Mode: PlacementAuto}
	}
	problem := func(format string, a ...any) Problem {
		pr := spec.at
		if pr.File == "" {
			format = "--placement: " + format
		} else {
			format = "placement: " + format
		}
		pr.Msg = fmt.Sprintf(format, a...)
		return pr
	}
	mode, auto := spec.Mode, spec.Mode == PlacementAuto || spec.Mode == ""
	if auto {
		mode = PlacementShared
		if len(avail) >= LanesFromCPUs {
			mode = PlacementLanes
		}
	}
	if mode == PlacementShared {
		return Placement{Mode: PlacementShared, Auto: auto}, nil
	}
	if spec.Server == "" {
		if len(avail) < 2 {
			return Placement{}, []Problem{problem("lanes need at least 2 CPUs, and this process may use only %s; write placement: shared", avail.Describe())}
		}
		l := cpuset.Split(cores)
		return Placement{Mode: PlacementLanes, Auto: auto, Generator: l.Generator.String(), Server: l.Server.String(), Database: l.Database.String()}, nil
	}
	out := Placement{Mode: PlacementLanes}
	var problems []Problem
	for _, f := range []struct {
		name, list string
		dst        *string
	}{{"generator", spec.Generator, &out.Generator}, {"server", spec.Server, &out.Server}, {"database", spec.Database, &out.Database}} {
		set, err := cpuset.Parse(f.list)
		if err != nil {
			problems = append(problems, problem("%s %q: %v", f.name, f.list, err))
			continue
		}
		if outside := set.Minus(avail); len(outside) > 0 {
			problems = append(problems, problem("the %s's %s %s not available to this process, which may use %s; choose CPUs among those (or leave the lists out for the default split)",
				f.name, outside.Describe(), isAre(len(outside)), avail.Describe()))
		}
		*f.dst = set.String()
	}
	if len(problems) > 0 {
		return Placement{}, problems
	}
	return out, nil
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

// resolvePlacement sets proto's placement from o's, else the file's, else
// auto, for the CPUs this process may use.
func (f *File) resolvePlacement(o Overrides, proto *Protocol) error {
	spec := f.protocol.Placement
	if o.Placement != nil {
		spec = o.Placement
	}
	var pl Placement
	var problems []Problem
	if hasAffinity() {
		avail, cores, err := hostCPUs()
		if err != nil {
			return err
		}
		pl, problems = placementFor(spec, avail, cores)
	} else {
		pl, problems = placementWithoutAffinity(spec)
	}
	if len(problems) > 0 {
		return &ConfigError{Problems: problems}
	}
	proto.Placement = pl
	return nil
}

// ExternalDatabase reports whether the plan's database is a server of the
// user's (a URL), which stackbench cannot place.
func (p *Plan) ExternalDatabase() bool {
	return p.NeedsDatabase && p.Database != Embedded && p.Database != ""
}

// Notes are what a reader of a lanes placement must know, as sentences
// for warnings: lanes that share CPUs, and a database that cannot be
// placed because stackbench did not start it. None with shared.
func (p Placement) Notes(externalDatabase bool) []string {
	if !p.IsLanes() {
		return nil
	}
	notes := p.Lanes().Sharing()
	for i, n := range notes {
		notes[i] = "placement lanes: " + n + " (too few CPUs for three disjoint lanes, or the lists say so)"
	}
	if externalDatabase {
		notes = append(notes, "placement lanes: the database is a server of yours (database: URL), which stackbench did not start and cannot pin; its lane is unused, and it may run on any CPU, the server's and the generator's included")
	}
	return notes
}
