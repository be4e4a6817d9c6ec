package journal

import (
	"reflect"
	"testing"
)

// recordTypes maps each kind to the type a reader decodes it into.
var recordTypes = map[Kind]reflect.Type{
	KindPlan:          reflect.TypeFor[Plan](),
	KindEnvironment:   reflect.TypeFor[Environment](),
	KindParity:        reflect.TypeFor[Parity](),
	KindBoot:          reflect.TypeFor[Boot](),
	KindWindow:        reflect.TypeFor[Window](),
	KindEvent:         reflect.TypeFor[Event](),
	KindRound:         reflect.TypeFor[Round](),
	KindCapacityProbe: reflect.TypeFor[CapacityProbe](),
	KindCapacity:      reflect.TypeFor[CapacitySearch](),
	KindProfiling:     reflect.TypeFor[Profiling](),
	KindLatency:       reflect.TypeFor[Window](),
	KindLatencyRate:   reflect.TypeFor[LatencyRate](),
	KindDX:            reflect.TypeFor[DX](),
	KindProcess:       reflect.TypeFor[Process](),
}

// v1Run is a real journal of schema version 1, as stackbench wrote it on
// 2 December 2026: two stacks of a one-route server (examples/ci's app),
// one round at concurrency 2, a boot start each, parity, and a window
// redone once (contended).
const v1Run = "testdata/v1-run"

// TestReadsJournalOfVersion1 reads a journal of today's format: every
// line decodes into its record type with no field unknown and none lost,
// and the figures reports use come out as written.
func TestReadsJournalOfVersion1(t *testing.T) {
	lines, problems, err := ReadFile(v1Run + "/" + FileName)
	if err != nil || len(problems) > 0 {
		t.Fatalf("read: %v %v", err, problems)
	}
	for _, l := range lines {
		typ, ok := recordTypes[l.Kind]
		if !ok {
			t.Fatalf("line %d: kind %q has no record type", l.Number, l.Kind)
		}
		assertLossless(t, l, typ)
	}

	res, err := ReadDir(v1Run)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.JournalProblems) > 0 {
		t.Fatalf("problems: %v", res.JournalProblems)
	}
	if res.Plan.RunID != "out" || len(res.Plan.Plan.Stacks) != 2 || len(res.PlannedWindows()) != 2 ||
		res.Plan.Plan.Protocol.Window.Seconds() != 0.5 || res.Plan.Cases[0].Path != "/hello" {
		t.Fatalf("plan = %+v", res.Plan)
	}
	if len(res.Environments) != 1 || res.Environments[0].Host.CPUCount != 2 {
		t.Fatalf("environments = %+v", res.Environments)
	}
	if len(res.Parity) != 1 || !res.Parity[0].Passed || len(res.Boot) != 2 || res.Boot[1].Starts[0].ReadySeconds != 0.180453244 {
		t.Fatalf("parity = %+v, boot = %+v", res.Parity, res.Boot)
	}
	if len(res.Windows) != 3 {
		t.Fatalf("%d window tries, want 3", len(res.Windows))
	}
	final := res.FinalWindows()
	if len(final) != 2 || final[1].Stack != "b" || final[1].Attempt != 2 || final[1].Load.ThroughputRPS != 20784 ||
		!final[1].HasFlag(FlagContended) || final[1].Valid() || !final[0].Valid() || final[0].Load.LatencyHist == "" {
		t.Fatalf("final windows = %+v", final)
	}
}

// journalTypesGolden is testdata/golden.jsonl as the journal wrote it
// while its records were copies of the engines' types (schema_*.go,
// until December 2026): every record kind with every field set.
const journalTypesGolden = "testdata/golden-journal-types.jsonl"

// TestReadsJournalOfItsOwnTypes reads a journal written when the journal
// had types of its own: every line decodes into today's record types,
// which hold the engines' types, with no field unknown and none lost or
// added when written again.
func TestReadsJournalOfItsOwnTypes(t *testing.T) {
	lines, problems, err := ReadFile(journalTypesGolden)
	if err != nil || len(problems) > 0 {
		t.Fatalf("read %s: %v %v", journalTypesGolden, err, problems)
	}
	kinds := map[Kind]bool{}
	for _, r := range goldenRecords() {
		kinds[r.kind] = true
	}
	if len(lines) != len(kinds) {
		t.Fatalf("%d lines, want one per record kind (%d)", len(lines), len(kinds))
	}
	for _, l := range lines {
		assertLossless(t, l, recordTypes[l.Kind])
	}
}
