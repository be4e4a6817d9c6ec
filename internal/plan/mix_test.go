package plan

import (
	"testing"

	"github.com/stackbench/stackbench/internal/workload"
)

// A mix is a case of the workload: its routes and weights in order, a
// default seed the same for every run, and what its routes have (a
// database, inserts); it can be selected alone.
func TestMixCase(t *testing.T) {
	f, err := LoadEnv(writeConfig(t, `workload:
  name: shop
  cases:
    - {name: user, path: /users/1, database: true}
    - name: list
      path: /users?limit=10
      database: true
    - {name: create-order, method: POST, path: /orders, body: '{"sku":"A"}', expect: [201], inserts: true, database: true}
    - mix: {name: storefront, of: {user: 60, list: 30, create-order: 10}}
    - mix: {name: reads, of: {user: 1, list: 1}, seed: 7, call_routes: true}
protocol:
  cases: [storefront]
`+validStacks), noEnv)
	if err != nil {
		t.Fatal(err)
	}
	sf, ok := f.Workload.Case("storefront")
	want := []workload.MixPart{{Case: "user", Weight: 60}, {Case: "list", Weight: 30}, {Case: "create-order", Weight: 10}}
	if !ok || len(sf.Mix) != 3 || sf.Mix[0] != want[0] || sf.Mix[1] != want[1] || sf.Mix[2] != want[2] {
		t.Fatalf("storefront: %+v", sf)
	}
	if !sf.Inserts || !sf.Database || sf.MixSeed != mixSeed("storefront") {
		t.Errorf("storefront: inserts %v, database %v, seed %d; want its inserting route's reset and the default seed", sf.Inserts, sf.Database, sf.MixSeed)
	}
	reads, _ := f.Workload.Case("reads")
	if reads.Inserts || reads.MixSeed != 7 || !reads.CallRoutes || sf.CallRoutes {
		t.Errorf("reads: inserts %v, seed %d, call_routes %v (storefront's %v); want no reset, seed 7, its routes called, storefront's shown", reads.Inserts, reads.MixSeed, reads.CallRoutes, sf.CallRoutes)
	}
	p, err := f.Resolve(Overrides{})
	if err != nil || len(p.Cases) != 1 || p.Cases[0].Name != "storefront" {
		t.Fatalf("cases %+v, err %v", p.Cases, err)
	}
}

func TestMixCaseProblems(t *testing.T) {
	got := loadProblems(t, `workload:
  name: shop
  cases:
    - {name: user, path: /users/1}
    - mix: {name: a, of: {user: 0}}
    - mix: {name: b, of: [user]}
    - mix: {of: {user: 1}, colour: red}
    - mix: {name: c, of: {d: 1, nobody: 2}}
    - mix: {name: user, of: {user: 1}}
    - mix: {name: d, of: {user: 1}}
    - mix: {name: e, of: {user: 1}, call_routes: yes please}
`+validStacks)
	want := []string{
		`5:33: the weight of user must be at least 1`,
		`6:26: of must be a mapping of case names to weights`,
		`7:12: this mix has no name`,
		`7:28: unknown key "colour" in mix`,
		`8:7: mix c: route d is a mix itself`,
		`8:7: mix c: route "nobody" is not a case of the workload`,
		`9:7: case name "user" is already used at line 4`,
		`11:50: call_routes must be true or false`,
	}
	matchProblems(t, got, want)
}
