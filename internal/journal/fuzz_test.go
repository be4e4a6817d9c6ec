package journal

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// FuzzJournalRead: a journal is data from a results directory, which
// anyone may have written. Whatever it holds, reading it and gathering its
// records into Results (ReadDir's two steps) neither panics nor invents a
// line: each record read is a line of the input, in order, and every
// other non-blank line is a problem; the gathered results answer their
// questions (the planned and final windows, a stop).
func FuzzJournalRead(f *testing.F) {
	f.Add([]byte(`{"kind":"plan","schema_version":1,"plan":{"stacks":[{"name":"a"}]}}` + "\n" + `{"kind":"window","key":"a/x/1/0"}` + "\n" + `{"kind":"window"`))
	f.Add([]byte("\n\n{}\n{\"kind\":\"round\",\"round\":2}\n{\"kind\":\"event\",\"level\":\"warning\"}\nnot json\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		lines, problems, err := Read(bytes.NewReader(data))
		if err != nil {
			return // a newer schema version: refused, said so
		}
		nonBlank := 0
		for _, l := range bytes.Split(data, []byte("\n")) {
			if len(bytes.TrimSpace(l)) > 0 {
				nonBlank++
			}
		}
		if len(lines)+len(problems) != nonBlank {
			t.Fatalf("%d records and %d problems from %d non-blank lines", len(lines), len(problems), nonBlank)
		}
		last := 0
		for _, l := range lines {
			if l.Number <= last || !json.Valid(l.Raw) || l.Kind == "" {
				t.Fatalf("line %+v after line %d", l, last)
			}
			last = l.Number
		}
		res, err := gather("fuzz", lines, problems)
		if err != nil {
			return // no plan record
		}
		res.PlannedWindows()
		res.FinalWindows()
		res.Stopped()
		if _, err := json.Marshal(res); err != nil {
			t.Fatalf("results.json of a journal that read: %v", err)
		}
	})
}

// xs is an endless run of 'x'.
type xs struct{}

func (xs) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	return len(p), nil
}

// A line past maxLineBytes is skipped, said so, without being kept whole;
// the records after it are read.
func TestReadSkipsAnEndlessLine(t *testing.T) {
	r := io.MultiReader(io.LimitReader(xs{}, maxLineBytes+1), strings.NewReader("\n"+`{"kind":"event","schema_version":1}`+"\n"))
	lines, problems, err := Read(r)
	if err != nil || len(lines) != 1 || len(problems) != 1 || !strings.Contains(problems[0].Msg, "longer than 64 MiB") {
		t.Errorf("lines %d, problems %v, err %v; want the event read and the long line skipped as too long", len(lines), problems, err)
	}
}
