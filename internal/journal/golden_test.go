package journal

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite testdata/golden.jsonl from the record types")

// goldenFile holds one record of every kind with every field set, as
// Writer writes them: the journal's schema, byte for byte.
const goldenFile = "testdata/golden.jsonl"

// goldenRecords are the record types of a journal, one per kind, in the
// order the golden file lists them.
//
// A record type written in two forms has an entry for each: after
// fill, plain sets its form's switch back (PerFlow of a LatencyRate, whose
// flow form names its rates in flows per second).
func goldenRecords() []struct {
	kind  Kind
	rec   any
	plain func(rec any)
} {
	return []struct {
		kind  Kind
		rec   any
		plain func(rec any)
	}{
		{KindPlan, &Plan{}, nil},
		{KindEnvironment, &Environment{}, nil},
		{KindParity, &Parity{}, nil},
		{KindBoot, &Boot{}, nil},
		{KindWindow, &Window{}, nil},
		{KindEvent, &Event{}, nil},
		{KindRound, &Round{}, nil},
		{KindCapacityProbe, &CapacityProbe{}, nil},
		{KindCapacity, &CapacitySearch{}, nil},
		{KindProfiling, &Profiling{}, nil},
		{KindLatency, &Window{}, nil},
		{KindLatencyRate, &LatencyRate{}, nil},
		{KindLatencyRate, &LatencyRate{}, func(rec any) { rec.(*LatencyRate).PerFlow = false }},
		{KindDX, &DX{}, nil},
		{KindProcess, &Process{}, nil},
	}
}

// fill sets every exported field reachable from v to a value that is not
// its zero — strings to their field's name, numbers to small counts,
// pointers, slices and maps to one element — so that no omitempty field
// is left out of the encoding and any change of a name, a type or a
// nesting shows in it. Values are deterministic: the golden file is
// stable.
func fill(v reflect.Value, name string, depth int) {
	if depth > 12 {
		return
	}
	if v.Type() == reflect.TypeFor[time.Time]() {
		v.Set(reflect.ValueOf(time.Date(2026, 12, 2, 18, 0, 0, 0, time.UTC)))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(name)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(7 + depth))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(9 + depth))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(1.5 + float64(depth))
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		fill(p.Elem(), name, depth+1)
		v.Set(p)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 1, 1)
		fill(s.Index(0), name, depth+1)
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k := reflect.New(v.Type().Key()).Elem()
		fill(k, name+"_key", depth+1)
		e := reflect.New(v.Type().Elem()).Elem()
		fill(e, name, depth+1)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			fill(v.Field(i), strings.ToLower(f.Name), depth+1)
		}
	}
}

// encodeGolden writes every record type, filled, as a journal.
func encodeGolden(t *testing.T) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), FileName)
	w, _, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range goldenRecords() {
		fill(reflect.ValueOf(r.rec).Elem(), string(r.kind), 0)
		if r.plain != nil {
			r.plain(r.rec)
		}
		if err := w.Append(r.kind, r.rec); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestGoldenSchema fails on any change of the records' JSON shape: a
// field renamed, retyped, moved, added or removed. An additive change
// (a new field, or a new kind) is fine for readers of old journals:
// rerun with -update and commit the golden file with it. Any other change
// breaks the journals users have: bump SchemaVersion, keep the old shape
// readable (TestReadsJournalOfVersion1), and say so in docs/run.md.
func TestGoldenSchema(t *testing.T) {
	got := encodeGolden(t)
	if *update {
		if err := os.WriteFile(goldenFile, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(goldenFile)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(got, want) {
		return
	}
	gl, wl := bytes.Split(got, []byte("\n")), bytes.Split(want, []byte("\n"))
	for i := range min(len(gl), len(wl)) {
		if !bytes.Equal(gl[i], wl[i]) {
			at := firstDiff(gl[i], wl[i])
			t.Fatalf("the journal's schema changed at golden line %d, byte %d:\n got: …%s…\nwant: …%s…\n"+
				"An additive change: go test ./internal/journal -run TestGoldenSchema -update. "+
				"Anything else: bump SchemaVersion and keep old journals readable (see SchemaVersion's doc).",
				i+1, at, around(gl[i], at), around(wl[i], at))
		}
	}
	t.Fatalf("the journal's schema changed: %d golden lines, want %d; rerun with -update for an additive change", len(gl), len(wl))
}

// TestGoldenReadsBack decodes every golden line into its record type and
// encodes it again: what a reader decodes is everything the writer wrote.
func TestGoldenReadsBack(t *testing.T) {
	lines, problems, err := ReadFile(goldenFile)
	if err != nil || len(problems) > 0 {
		t.Fatalf("read %s: %v %v", goldenFile, err, problems)
	}
	recs := goldenRecords()
	if len(lines) != len(recs) {
		t.Fatalf("%d golden lines, want %d", len(lines), len(recs))
	}
	for i, l := range lines {
		if l.Kind != recs[i].kind {
			t.Fatalf("line %d is %s, want %s", l.Number, l.Kind, recs[i].kind)
		}
		assertLossless(t, l, reflect.TypeOf(recs[i].rec).Elem())
	}
}

// assertLossless decodes l into a fresh value of typ, refusing unknown
// fields, and checks that encoding it again gives back the same JSON
// (compared as values, the envelope left out).
func assertLossless(t *testing.T, l Line, typ reflect.Type) {
	t.Helper()
	var orig map[string]any
	if err := json.Unmarshal(l.Raw, &orig); err != nil {
		t.Fatalf("line %d: %v", l.Number, err)
	}
	delete(orig, "kind")
	delete(orig, "schema_version")
	body, _ := json.Marshal(orig)
	rec := reflect.New(typ)
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(rec.Interface()); err != nil {
		t.Fatalf("line %d (%s) does not decode into %s: %v", l.Number, l.Kind, typ, err)
	}
	again, err := json.Marshal(rec.Interface())
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	json.Unmarshal(again, &back)
	if !reflect.DeepEqual(orig, back) {
		t.Fatalf("line %d (%s) changes when read and written again:\n read: %s\nwrote: %s", l.Number, l.Kind, body, again)
	}
}

// firstDiff is the index of the first byte where a and b differ.
func firstDiff(a, b []byte) int {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	return i
}

// around is b from 60 bytes before at to 60 after.
func around(b []byte, at int) []byte { return b[max(0, at-60):min(len(b), at+60)] }
