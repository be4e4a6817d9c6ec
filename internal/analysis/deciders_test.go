package analysis

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// Issue 44: every call is decided in analysis (statistics in stats); the
// other packages render what it decided. This test reads the tree's Go
// sources (tests aside) for calls of the decision functions and fails on
// any outside internal/analysis and internal/stats.
func TestOnlyAnalysisDecidesCalls(t *testing.T) {
	root := filepath.Join("..", "..")
	deciders := regexp.MustCompile(`\bstats\.(Decide\w*|CallOf|PooledQuantileInterval)\(|benchmath\.\w+\.Summary\(`)
	var found []string
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "node_modules" || rel == "internal/analysis" || rel == "internal/stats" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(b), "\n") {
			if deciders.MatchString(line) {
				found = append(found, rel+":"+strconv.Itoa(i+1)+": "+strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(found) > 0 {
		t.Errorf("calls decided outside internal/analysis (decide them in analysis and hand the result to the renderer):\n%s", strings.Join(found, "\n"))
	}
}
