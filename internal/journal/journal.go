// Package journal is the contract between running and reporting: a results
// directory's journal.jsonl holds one JSON record per line — the plan, the
// environment, parity and boot results, and one record per measured window —
// each appended and fsynced before the run moves on. A run killed at any point
// resumes from it, and reports are pure functions of it.
//
// Readers tolerate a torn last line (the harness was killed mid-write): it is
// skipped and reported, never fatal. A malformed line elsewhere is reported with
// its line number and skipped.
//
// The records hold what a run measures with as the engines define it —
// plan.Plan, host.Environment, load.Result, capacity.Probe and
// capacity.Report, dx.Result and spawn.Result — in their own JSON
// encoding: each is defined once, and a field added to one of them is in
// the next journal. That encoding is versioned here: testdata/golden.jsonl
// pins the shape of every record, engines' fields included, so a change to
// an engine's JSON fails TestGoldenSchema, and SchemaVersion says when the
// shape changed in a way older readers cannot follow.
package journal

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/stackbench/stackbench/internal/fileutil"
)

// FileName is the journal's name inside a results directory.
const FileName = "journal.jsonl"

// SchemaVersion is the version of the records' JSON shape, written on
// every line. testdata/golden.jsonl holds that shape (TestGoldenSchema
// fails on any change of it). The rules:
//
//   - An additive change keeps the version: a new field (omitempty, or
//     one whose zero value means what its absence meant in older
//     journals), a new record kind. Update the golden file with it.
//   - Any other change bumps it: a key renamed, retyped, moved or
//     removed, or a key that keeps its name and changes its meaning or
//     unit. The reader then goes on reading every older version,
//     translating it where it decodes (Line.Decode or ReadDir), and a
//     journal of the old version joins testdata beside v1-run
//     (TestReadsJournalOfVersion1 is the pattern).
//
// Readers refuse a journal line of a newer version than they know.
const SchemaVersion = 1

// Kind names the type of one journal line.
type Kind string

// The kinds of records.
const (
	KindPlan        Kind = "plan"
	KindEnvironment Kind = "environment"
	KindParity      Kind = "parity"
	KindBoot        Kind = "boot"
	KindWindow      Kind = "window"
	KindEvent       Kind = "event"
	KindRound       Kind = "round"
	// KindCapacityProbe is one probe of a capacity search (CapacityProbe),
	// KindCapacity a search's end (CapacitySearch).
	KindCapacityProbe Kind = "capacity_probe"
	KindCapacity      Kind = "capacity"
)

// envelope is the shape every line shares.
type envelope struct {
	Kind          Kind `json:"kind"`
	SchemaVersion int  `json:"schema_version"`
}

// Writer appends records to a journal file, fsyncing each one.
type Writer struct {
	mu sync.Mutex
	f  *os.File
}

// Create opens path for appending, creating it if needed. When the file ends
// in a torn line (a previous run was killed mid-write), the torn bytes are cut
// off first so that the next record starts on a line of its own; the number of
// bytes removed is returned so the caller can report it.
func Create(path string) (w *Writer, tornBytes int64, err error) {
	// Append-only: every write lands at the end, whatever the offset.
	// No link followed: a journal replaced by a link would have the file
	// it points at cut at its last newline and appended to.
	f, err := fileutil.OpenPath(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, 0, fmt.Errorf("open journal: %w", err)
	}
	tornBytes, err = cutTornTail(f)
	if err != nil {
		f.Close()
		return nil, 0, fmt.Errorf("repair journal %s: %w", path, err)
	}
	if _, err := f.Seek(0, io.SeekEnd); err != nil {
		f.Close()
		return nil, 0, err
	}
	return &Writer{f: f}, tornBytes, nil
}

// cutTornTail truncates f after its last newline.
func cutTornTail(f *os.File) (int64, error) {
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	size := st.Size()
	if size == 0 {
		return 0, nil
	}
	const chunk = 64 << 10
	buf := make([]byte, chunk)
	end := size
	for end > 0 {
		start := max(end-chunk, 0)
		n, err := f.ReadAt(buf[:end-start], start)
		if err != nil && !errors.Is(err, io.EOF) {
			return 0, err
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			keep := start + int64(i) + 1
			if keep == size {
				return 0, nil
			}
			return size - keep, f.Truncate(keep)
		}
		end = start
	}
	return size, f.Truncate(0)
}

// Append writes one record as a JSON line and fsyncs the file before
// returning, so a record that Append returned for survives kill -9 and power
// loss of the harness.
func (w *Writer) Append(kind Kind, rec any) error {
	body, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("encode %s record: %w", kind, err)
	}
	head, _ := json.Marshal(envelope{Kind: kind, SchemaVersion: SchemaVersion})
	// Merge {"kind":..,"schema_version":..} with the record's own object.
	var line []byte
	if len(body) > 2 && body[0] == '{' {
		line = append(head[:len(head)-1:len(head)-1], ',')
		line = append(line, body[1:]...)
	} else {
		return fmt.Errorf("encode %s record: not a JSON object", kind)
	}
	line = append(line, '\n')
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, err := w.f.Write(line); err != nil {
		return fmt.Errorf("append to journal: %w", err)
	}
	if err := w.f.Sync(); err != nil {
		return fmt.Errorf("fsync journal: %w", err)
	}
	return nil
}

// Close closes the file.
func (w *Writer) Close() error { return w.f.Close() }

// Line is one journal record, its kind decoded and its body kept raw.
type Line struct {
	Number int // 1-based line number in the file
	Kind   Kind
	Raw    json.RawMessage
}

// Decode unmarshals the record into v.
func (l Line) Decode(v any) error {
	if err := json.Unmarshal(l.Raw, v); err != nil {
		return fmt.Errorf("journal line %d (%s): %w", l.Number, l.Kind, err)
	}
	return nil
}

// Problem is a line that was skipped while reading.
type Problem struct {
	Line int
	Msg  string
}

func (p Problem) String() string { return fmt.Sprintf("line %d: %s", p.Line, p.Msg) }

// ReadFile reads every record of a journal. Unreadable lines are skipped and
// returned as problems: a torn last line (no trailing newline, not valid JSON)
// and malformed lines elsewhere, each with its line number.
func ReadFile(path string) ([]Line, []Problem, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	return Read(f)
}

// maxLineBytes bounds a journal line: a journal is data from a results
// directory, and a line without end must not take the reader's memory
// with it. The longest records (a plan, a window with its histograms)
// are tens of kilobytes.
const maxLineBytes = 64 << 20

// Read is ReadFile on a reader.
func Read(r io.Reader) ([]Line, []Problem, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	var lines []Line
	var problems []Problem
	for n := 1; ; n++ {
		raw, long, err := readLine(br)
		if len(raw) == 0 && !long && errors.Is(err, io.EOF) {
			break
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return lines, problems, fmt.Errorf("read journal: %w", err)
		}
		if long {
			problems = append(problems, Problem{Line: n, Msg: fmt.Sprintf("longer than %d MiB, skipped", maxLineBytes>>20)})
			if errors.Is(err, io.EOF) {
				break
			}
			continue
		}
		torn := !bytes.HasSuffix(raw, []byte{'\n'})
		raw = bytes.TrimSpace(raw)
		if len(raw) == 0 {
			continue
		}
		var env envelope
		if jerr := json.Unmarshal(raw, &env); jerr != nil || env.Kind == "" {
			msg := "not a journal record, skipped"
			if torn {
				msg = "torn last line (the run was stopped while writing it), skipped"
			}
			problems = append(problems, Problem{Line: n, Msg: msg})
			continue
		}
		if env.SchemaVersion > SchemaVersion {
			return lines, problems, fmt.Errorf("journal line %d has schema version %d; this stackbench reads up to %d: upgrade stackbench", n, env.SchemaVersion, SchemaVersion)
		}
		lines = append(lines, Line{Number: n, Kind: env.Kind, Raw: append(json.RawMessage(nil), raw...)})
		if errors.Is(err, io.EOF) {
			break
		}
	}
	return lines, problems, nil
}

// readLine reads a line, its newline included, as ReadBytes does; a line
// past maxLineBytes is read to its end and dropped (long true).
func readLine(br *bufio.Reader) (raw []byte, long bool, err error) {
	for {
		frag, err := br.ReadSlice('\n')
		if !long {
			if len(raw)+len(frag) > maxLineBytes {
				raw, long = nil, true
			} else {
				raw = append(raw, frag...)
			}
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return raw, long, err
		}
	}
}
