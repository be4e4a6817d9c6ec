package report

import (
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/profiling"
)

// TestExplainNamesKnownPatterns: a profile window that shows a known cause
// says it in words with its figure — the album case (PostgreSQL starting a
// backend per request: 373 of its 646 µs), a statement run many times per
// request, a large runtime share and lock waits — and an ordinary window
// says none.
func TestExplainNamesKnownPatterns(t *testing.T) {
	fn := func(name, group string, flat, cum float64) profiling.Function {
		return profiling.Function{Name: name, Group: group, Flat: flat, Cum: cum}
	}
	album := ProfiledCell{Stack: "album", Case: "list", Concurrency: 32, DatabaseCPUMicrosPerRequest: 646,
		Statements: []StatementPerRequest{
			{Query: "SELECT id, title FROM albums WHERE artist = $1", CallsPerRequest: 1, MicrosPerRequest: 20},
			{Query: "SELECT name FROM tracks WHERE album_id = $1", CallsPerRequest: 12, MicrosPerRequest: 90},
		}}
	sums := map[string]profiling.Summary{
		"perf_database": {Total: 646, Functions: []profiling.Function{
			fn("PostmasterMain", "", 1, 600), fn("InitPostgres", "", 5, 373), fn("BackendInitialize", "", 2, 40), fn("exec_bind_message", "", 30, 150),
		}},
		"go_cpu": {Total: 1000, Functions: []profiling.Function{
			fn("runtime.mallocgc", profiling.GroupRuntime, 250, 300), fn("runtime.gcBgMarkWorker", profiling.GroupRuntime, 160, 160),
			fn("sync.(*Mutex).lockSlow", profiling.GroupRuntime, 20, 130), fn("main.handler", "app", 300, 900),
		}},
		"go_alloc_objects": {Total: 1500},
	}
	got := map[string]string{}
	for _, f := range findPatterns(album, sums) {
		got[f.Pattern] = f.Text
	}
	for pattern, want := range map[string][]string{
		"connection_per_request": {"a new database connection per request", "373 of its 646 µs per request", "InitPostgres", "size its pool"},
		"statement_per_request":  {"runs 12.0 times per request", "tracks WHERE album_id", "N+1"},
		"gc_share":               {"43 % of the server's CPU", "430 of 1000 µs per request", "1500 heap objects"},
		"lock_waits":             {"lock waits: 130 of 1000 µs per request (13 %)", "sync.(*Mutex).lockSlow"},
	} {
		text, ok := got[pattern]
		if !ok {
			t.Errorf("%s not found; findings %v", pattern, got)
			continue
		}
		for _, w := range want {
			if !strings.Contains(text, w) {
				t.Errorf("%s: %q lacks %q", pattern, text, w)
			}
		}
	}

	pooled := ProfiledCell{DatabaseCPUMicrosPerRequest: 40, Statements: []StatementPerRequest{{Query: "SELECT 1", CallsPerRequest: 1, MicrosPerRequest: 5}}}
	quiet := map[string]profiling.Summary{
		"perf_database": {Total: 40, Functions: []profiling.Function{fn("PostmasterMain", "", 0, 39), fn("exec_bind_message", "", 10, 30)}},
		"go_cpu":        {Total: 100, Functions: []profiling.Function{fn("runtime.mallocgc", profiling.GroupRuntime, 10, 12), fn("main.handler", "app", 60, 90)}},
	}
	if f := findPatterns(pooled, quiet); len(f) != 0 {
		t.Errorf("an ordinary window: %v, want no finding", f)
	}

	var b strings.Builder
	album.Findings = findPatterns(album, sums)
	if err := WriteProfilingText(&b, &Model{Profiling: &ProfilingSection{Cells: []ProfiledCell{album}}}, 5); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "What the profiles show:\n  album list c32: a new database connection per request") {
		t.Errorf("explain's text:\n%s", b.String())
	}
}
