package examples

import (
	"testing"
)

// ownApps are the examples of an app of one's own: a custom workload with
// its own database, setup steps and templated cases, not a built-in
// workload's contract.
var ownApps = []string{"blog", "realworld"}

// TestBlogExample runs examples/blog as a user would (its own schema,
// seed and reset; a login captured by a setup step; a list of articles
// created per stack; json parity with ignored ids and timestamps) in one
// short run on a real PostgreSQL.
func TestBlogExample(t *testing.T) {
	r := runExample(t, "blog")
	if r.out.Measured != 8 {
		t.Errorf("measured %d windows, want 8", r.out.Measured)
	}
	for _, w := range r.res.Windows {
		if !w.Final {
			continue
		}
		if !w.Valid() || w.Load == nil || w.Load.Successes == 0 {
			t.Errorf("%s: valid %v, reasons %v", w.Key, w.Valid(), w.Reasons)
		}
		if want := map[string]int{"article": 50, "page": 1000, "me": 1, "comment": 1}[w.Case]; w.Load != nil && w.Load.PoolSize != want {
			t.Errorf("%s: %d requests in the pool, want %d", w.Key, w.Load.PoolSize, want)
		}
		if w.Case == "comment" && w.Timings.ResetSeconds <= 0 {
			t.Errorf("%s: the database was not reset before an inserting window", w.Key)
		}
	}
}
