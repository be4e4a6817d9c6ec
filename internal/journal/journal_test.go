package journal

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type testRec struct {
	Key   string  `json:"key"`
	Value float64 `json:"value"`
}

func TestAppendAndRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	w, torn, err := Create(path)
	if err != nil || torn != 0 {
		t.Fatalf("Create: %v torn=%d", err, torn)
	}
	for i, k := range []string{"a", "b", "c"} {
		if err := w.Append(KindWindow, testRec{Key: k, Value: float64(i)}); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	lines, problems, err := ReadFile(path)
	if err != nil || len(problems) != 0 {
		t.Fatalf("ReadFile: %v %v", err, problems)
	}
	if len(lines) != 3 {
		t.Fatalf("got %d lines, want 3", len(lines))
	}
	var r testRec
	if err := lines[2].Decode(&r); err != nil || r.Key != "c" || r.Value != 2 || lines[2].Kind != KindWindow || lines[2].Number != 3 {
		t.Fatalf("line 3 = %+v %+v %v", lines[2], r, err)
	}
	data, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(data), `{"kind":"window","schema_version":1,"key":"a"`) {
		t.Fatalf("unexpected encoding: %s", data)
	}
}

func TestTornLastLineIsReportedAndRepaired(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	good := `{"kind":"window","schema_version":1,"key":"a","value":1}` + "\n"
	torn := `{"kind":"window","schema_version":1,"key":"b","val`
	if err := os.WriteFile(path, []byte(good+torn), 0o644); err != nil {
		t.Fatal(err)
	}
	lines, problems, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 1 || len(problems) != 1 || problems[0].Line != 2 || !strings.Contains(problems[0].Msg, "torn") {
		t.Fatalf("lines=%d problems=%v", len(lines), problems)
	}
	w, cut, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if cut != int64(len(torn)) {
		t.Fatalf("cut %d bytes, want %d", cut, len(torn))
	}
	if err := w.Append(KindWindow, testRec{Key: "b", Value: 2}); err != nil {
		t.Fatal(err)
	}
	w.Close()
	lines, problems, err = ReadFile(path)
	if err != nil || len(problems) != 0 || len(lines) != 2 {
		t.Fatalf("after repair: lines=%d problems=%v err=%v", len(lines), problems, err)
	}
}

func TestMalformedMiddleLineSkippedWithNumber(t *testing.T) {
	in := `{"kind":"plan","schema_version":1}` + "\n" + "garbage\n" + `{"kind":"window","schema_version":1}` + "\n"
	lines, problems, err := Read(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 2 || len(problems) != 1 || problems[0].Line != 2 || strings.Contains(problems[0].Msg, "torn") {
		t.Fatalf("lines=%d problems=%v", len(lines), problems)
	}
}

func TestNewerSchemaRefused(t *testing.T) {
	_, _, err := Read(strings.NewReader(`{"kind":"window","schema_version":99}` + "\n"))
	if err == nil || !strings.Contains(err.Error(), "upgrade stackbench") {
		t.Fatalf("err = %v", err)
	}
}

func TestWholeFileTornIsEmptied(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	os.WriteFile(path, []byte(`{"kind":"pl`), 0o644)
	w, cut, err := Create(path)
	if err != nil || cut != 11 {
		t.Fatalf("cut=%d err=%v", cut, err)
	}
	w.Close()
	if st, _ := os.Stat(path); st.Size() != 0 {
		t.Fatalf("size %d", st.Size())
	}
}
