package run

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/journal"
)

// The temporary directory of the request pools, which hold the requests
// as sent (expanded secrets), is named in the results directory as soon
// as it is made; a resume of a run killed before it removed it removes
// it. Only a stackbench-pools-* directory of the temporary directory,
// this user's own, is removed: the record is data.
func TestResumeRemovesLeftRequestPools(t *testing.T) {
	results := t.TempDir()
	var warnings []string
	event := func(level journal.Level, stack, format string, a ...any) {
		if level == journal.LevelWarning {
			warnings = append(warnings, format)
		}
	}
	killed := poolRoot{results: results}
	dir, err := killed.sub("api")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "orders.jsonl"), []byte(`{"header":{"Authorization":["Bearer secret"]}}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(results, PoolsPathFile))
	if err != nil || strings.TrimSpace(string(b)) != killed.dir {
		t.Fatalf("%s reads %q, %v; want %s", PoolsPathFile, b, err, killed.dir)
	}
	// The harness is killed here: nothing calls killed.remove.
	removeLeftPools(results, event)
	if _, err := os.Stat(killed.dir); err == nil {
		os.RemoveAll(killed.dir)
		t.Fatalf("the pools left by a killed run survived the resume: %s", killed.dir)
	}
	if _, err := os.Stat(filepath.Join(results, PoolsPathFile)); err == nil {
		t.Error("the record survived the resume")
	}
	if len(warnings) > 0 {
		t.Errorf("warnings: %q", warnings)
	}

	// A run that ends removes both.
	ended := poolRoot{results: results}
	if _, err := ended.sub(); err != nil {
		t.Fatal(err)
	}
	made := ended.dir
	ended.remove()
	if _, err := os.Stat(made); err == nil {
		t.Errorf("the pools of an ended run survived: %s", made)
	}
	if _, err := os.Stat(filepath.Join(results, PoolsPathFile)); err == nil {
		t.Error("the record of an ended run survived")
	}

	// Forged records: a directory elsewhere, another user's, one others
	// may write, a link.
	elsewhere := t.TempDir()
	foreign, _ := os.MkdirTemp("", poolsPrefix)
	defer os.RemoveAll(foreign)
	open, _ := os.MkdirTemp("", poolsPrefix)
	defer os.RemoveAll(open)
	os.Chmod(open, 0o777)
	link := filepath.Join(os.TempDir(), poolsPrefix+"link-"+filepath.Base(results))
	os.Symlink(elsewhere, link)
	defer os.Remove(link)
	cases := []string{elsewhere, open, link}
	if os.Geteuid() == 0 {
		os.Chown(foreign, 65534, 65534)
		cases = append(cases, foreign)
	}
	for _, forged := range cases {
		os.WriteFile(filepath.Join(results, PoolsPathFile), []byte(forged+"\n"), 0o600)
		warnings = nil
		removeLeftPools(results, event)
		if _, err := os.Stat(forged); err != nil {
			t.Errorf("a forged record had %s removed", forged)
		}
		if len(warnings) != 1 {
			t.Errorf("%s: warnings %q, want one saying it is not removed", forged, warnings)
		}
	}
}
