package journal

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/stackbench/stackbench/internal/capacity"
	"github.com/stackbench/stackbench/internal/host"
	"github.com/stackbench/stackbench/internal/load"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/suite/dx"
	"github.com/stackbench/stackbench/internal/suite/spawn"
)

// TestConvertersKeepEveryField fills each type the journal converts from
// (every field set, nested ones too) and checks that its journaled form
// encodes to the same JSON, and converts back to a value that does too:
// a field the journal's copy lacks, or a converter forgets, shows here.
func TestConvertersKeepEveryField(t *testing.T) {
	check := func(name string, src, journaled, back any) {
		t.Helper()
		a, _ := json.Marshal(src)
		b, _ := json.Marshal(journaled)
		c, _ := json.Marshal(back)
		if string(a) != string(b) {
			t.Errorf("%s: the journal's form encodes differently:\n%s\n%s", name, a, b)
		}
		if string(a) != string(c) {
			t.Errorf("%s: converted back, it encodes differently:\n%s\n%s", name, a, c)
		}
	}
	var p plan.Plan
	fill(reflect.ValueOf(&p).Elem(), "plan", 0)
	jp := PlanSpecOf(p)
	check("plan.Plan", p, jp, jp.Plan())

	var e host.Environment
	fill(reflect.ValueOf(&e).Elem(), "host", 0)
	je := HostEnvironmentOf(e)
	check("host.Environment", e, je, je.Host())

	var r load.Result
	fill(reflect.ValueOf(&r).Elem(), "load", 0)
	jr := LoadResultOf(r)
	check("load.Result", r, jr, jr.Load())

	var d dx.Result
	fill(reflect.ValueOf(&d).Elem(), "dx", 0)
	jd := DXResultOf(d)
	check("dx.Result", d, jd, jd.DX())

	var pr spawn.Result
	fill(reflect.ValueOf(&pr).Elem(), "process", 0)
	jpr := ProcessResultOf(pr)
	check("spawn.Result", pr, jpr, jpr.Process())

	var c capacity.Report
	fill(reflect.ValueOf(&c).Elem(), "capacity", 0)
	jc := CapacityReportOf(c)
	check("capacity.Report", c, jc, jc.Capacity())
}
