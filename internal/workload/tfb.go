package workload

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/stackbench/stackbench/internal/pgfix"
)

// The test types of TechEmpower Framework Benchmarks, as tfb's case names.
const (
	TFBJSON          = "json"
	TFBDB            = "db"
	TFBQueries       = "queries"
	TFBFortunes      = "fortunes"
	TFBUpdates       = "updates"
	TFBPlaintext     = "plaintext"
	TFBCachedQueries = "cached-queries"
)

// TFBCaseNames lists every tfb case, in TFB's order.
var TFBCaseNames = []string{TFBJSON, TFBDB, TFBQueries, TFBFortunes, TFBUpdates, TFBPlaintext, TFBCachedQueries}

// TFBDefaultCases are the cases of `workload: tfb`: every test type but
// cached-queries, which few entries implement.
var TFBDefaultCases = TFBCaseNames[:6]

// TFBDefaultCount is the queries and updates cases' count unless set.
const TFBDefaultCount = 20

// TFBMaxCount is the largest count TFB's contract answers; above it a
// stack clamps to it.
const TFBMaxCount = 500

// TFBOptions are the settings of the tfb workload (workload: {name: tfb,
// …} in stackbench.yaml).
type TFBOptions struct {
	// Cases are the test types to measure and check; nil is
	// TFBDefaultCases.
	Cases []string `json:"cases,omitempty"`
	// Queries and Updates are the count the queries (and cached-queries)
	// and updates cases ask for; 0 is TFBDefaultCount.
	Queries int `json:"queries,omitempty"`
	Updates int `json:"updates,omitempty"`
	// Paths are a stack's own URLs by case, as its benchmark_config.json
	// writes them (json_url, query_url, …): a counted case's path ends
	// where the count goes ("/pg/queries?q=", "/queries/"). A case not
	// in it is at tfb's path (TFBPath). Set per stack (plan's paths:).
	Paths map[string]string `json:"paths,omitempty"`
}

// withDefaults fills the zero settings.
func (o TFBOptions) withDefaults() TFBOptions {
	if o.Cases == nil {
		o.Cases = slices.Clone(TFBDefaultCases)
	}
	if o.Queries == 0 {
		o.Queries = TFBDefaultCount
	}
	if o.Updates == 0 {
		o.Updates = TFBDefaultCount
	}
	return o
}

// Validate says what is wrong with the options, in words that say what to
// write instead.
func (o TFBOptions) Validate() error {
	for _, c := range o.Cases {
		if !slices.Contains(TFBCaseNames, c) {
			return fmt.Errorf("unknown tfb case %q; write some of %s", c, strings.Join(TFBCaseNames, ", "))
		}
	}
	for _, n := range []struct {
		key string
		v   int
	}{{"queries", o.Queries}, {"updates", o.Updates}} {
		if n.v < 0 || n.v > TFBMaxCount {
			return fmt.Errorf("tfb %s: %d is outside 1…%d (TFB's range); write e.g. %s: 20", n.key, n.v, TFBMaxCount, n.key)
		}
	}
	return ValidateTFBPaths(o.Paths)
}

// TFB returns the tfb workload with options o (see TFBOptions), or an
// error when o is invalid.
func TFB(o TFBOptions) (*Workload, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	o = o.withDefaults()
	w := &Workload{Name: "tfb", TFB: &o}
	for _, name := range TFBCaseNames {
		if !slices.Contains(o.Cases, name) {
			continue
		}
		c := tfbCase(name, o)
		w.Cases = append(w.Cases, c)
		w.NeedsDatabase = w.NeedsDatabase || c.Database
	}
	w.Health = tfbHealth(w.Cases)
	return w, nil
}

// tfbCase is one test type's case and the request its load sends. TFB's
// contract has the server pick the random World ids, so a request names
// only the count: every stack gets the same requests, and the checks
// (tfbChecks) judge the ids and numbers it answers.
func tfbCase(name string, o TFBOptions) Case {
	c := Case{Name: name, Method: "GET", Expect: []int{200}, Compare: CompareNone}
	switch name {
	case TFBDB, TFBFortunes:
		c.Database = true
	case TFBQueries, TFBCachedQueries:
		c.Database = true
		c.Path = o.countedPath(name, strconv.Itoa(o.Queries))
	case TFBUpdates:
		// Updates write rows: the table is vacuumed before each window
		// (pgfix.TFBFixture's reset), as an inserting case's is reset.
		c.Database, c.Inserts = true, true
		c.Path = o.countedPath(name, strconv.Itoa(o.Updates))
	}
	if c.Path == "" {
		c.Path = o.path(name)
	}
	return c
}

// tfbPaths are tfb's own paths by case: TechEmpower's usual URLs, a
// counted case's up to where its count goes.
var tfbPaths = map[string]string{
	TFBJSON: "/json", TFBDB: "/db", TFBQueries: "/queries?queries=", TFBFortunes: "/fortunes",
	TFBUpdates: "/updates?queries=", TFBPlaintext: "/plaintext", TFBCachedQueries: "/cached-queries?count=",
}

// TFBPath is the path tfb requests case name at unless a stack's paths:
// say otherwise; a counted case's ends where the count goes.
func TFBPath(name string) string { return tfbPaths[name] }

// path is case name's path for these options: the stack's own, or tfb's.
func (o TFBOptions) path(name string) string {
	if p, ok := o.Paths[name]; ok {
		return p
	}
	return tfbPaths[name]
}

// countedPath is a counted case's path with the count set to value as
// written (it may be empty or not a number, for the checks), appended as
// TFB's verifier appends it.
func (o TFBOptions) countedPath(name, value string) string {
	return o.path(name) + value
}

// ValidateTFBPaths says what is wrong with a stack's paths: for tfb.
func ValidateTFBPaths(paths map[string]string) error {
	for name, p := range paths {
		if !slices.Contains(TFBCaseNames, name) {
			return fmt.Errorf("paths: %q is not a tfb case; write paths for some of %s", name, strings.Join(TFBCaseNames, ", "))
		}
		if !strings.HasPrefix(p, "/") || strings.ContainsAny(p, " \t\r\n#") {
			return fmt.Errorf("paths: %s: %q must be a path starting with / (no spaces or #), e.g. %s", name, p, tfbPaths[name])
		}
	}
	return nil
}

// WithTFBPaths returns the tfb workload w with a stack's own paths (see
// TFBOptions.Paths), or w itself when paths is empty or w is not tfb.
func (w *Workload) WithTFBPaths(paths map[string]string) (*Workload, error) {
	if len(paths) == 0 || w.TFB == nil {
		return w, nil
	}
	if err := ValidateTFBPaths(paths); err != nil {
		return nil, err
	}
	o := *w.TFB
	o.Paths = paths
	return TFB(o)
}

// tfbHealth is the path the harness polls until a tfb stack answers: a
// route without the database when there is one (TFB entries serve no
// /health).
func tfbHealth(cases []Case) string {
	for _, want := range []string{TFBPlaintext, TFBJSON} {
		for _, c := range cases {
			if c.Name == want {
				return c.Path
			}
		}
	}
	if len(cases) > 0 {
		return cases[0].Path
	}
	return "/json"
}

// TFBWorkloadFixture is the database the tfb workload's stacks get.
func TFBWorkloadFixture() *pgfix.Fixture {
	fx := pgfix.TFBFixture()
	return &fx
}

// tfbCountEdges are the count parameters TFB's verifier sends besides the
// default, and the number of rows each must answer.
var tfbCountEdges = []struct {
	name, value string
	rows        int
}{
	{"2", "2", 2},
	{"0-clamped-to-1", "0", 1},
	{"not-a-number-is-1", "foo", 1},
	{"501-clamped-to-500", "501", 500},
	{"empty-is-1", "", 1},
}

// tfbChecks are the parity checks of the tfb workload w: TFB's verifier's
// requests, each judged by its rules (TFBRule) and by what TFB could not
// see, the statements per request.
func tfbChecks(w *Workload) []Check {
	o := TFBOptions{}.withDefaults()
	if w.TFB != nil {
		o = *w.TFB
	}
	var cs []Check
	rule := func(kind string, count int, statements bool) Expect {
		return Expect{Status: []int{200}, Compare: CompareNone, TFB: &TFBRule{Kind: kind, Rows: count, Statements: statements}}
	}
	for _, c := range w.Cases {
		switch c.Name {
		case TFBJSON, TFBDB, TFBFortunes, TFBPlaintext:
			cs = append(cs, get(c.Name+"/ok", c.Path, rule(c.Name, 1, false)))
		case TFBQueries, TFBUpdates, TFBCachedQueries:
			count := o.Queries
			if c.Name == TFBUpdates {
				count = o.Updates
			}
			// The load's own request, with its statements counted.
			cs = append(cs, get(fmt.Sprintf("%s/count-%d", c.Name, count), c.Path, rule(c.Name, count, c.Name != TFBCachedQueries)))
			for _, e := range tfbCountEdges {
				cs = append(cs, get(c.Name+"/"+e.name, o.countedPath(c.Name, e.value), rule(c.Name, e.rows, false)))
			}
		}
	}
	return cs
}
