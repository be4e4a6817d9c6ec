package run

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// maxRunnerFields is how many fields runner may have (issue 44): its
// state comes in groups of their own (resumeState, databaseState,
// serving, measuring), so that a reader sees it whole.
const maxRunnerFields = 12

// TestRunnerIsSmallAndSitesDoNotHoldIt: runner has at most
// maxRunnerFields fields, and no site file (*site*.go) names the runner:
// a site is handed siteParts.
func TestRunnerIsSmallAndSitesDoNotHoldIt(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "runner.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	fields := -1
	ast.Inspect(f, func(n ast.Node) bool {
		ts, ok := n.(*ast.TypeSpec)
		if !ok || ts.Name.Name != "runner" {
			return true
		}
		fields = 0
		for _, fl := range ts.Type.(*ast.StructType).Fields.List {
			fields += max(1, len(fl.Names)) // an embedded field has no name
		}
		return false
	})
	switch {
	case fields < 0:
		t.Fatal("runner.go declares no runner type")
	case fields > maxRunnerFields:
		t.Errorf("runner has %d fields, more than %d: put the new state in one of its groups (resumeState, databaseState, serving, measuring) or a type of its own", fields, maxRunnerFields)
	}
	sites, err := filepath.Glob("*site*.go")
	if err != nil || len(sites) == 0 {
		t.Fatalf("no site files (%v)", err)
	}
	word := regexp.MustCompile(`\brunner\b`)
	for _, name := range sites {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if loc := word.FindIndex(b); loc != nil {
			t.Errorf("%s:%d names the runner; hand a site what it needs through siteParts", name, 1+countLines(b[:loc[0]]))
		}
	}
}

func countLines(b []byte) int {
	n := 0
	for _, c := range b {
		if c == '\n' {
			n++
		}
	}
	return n
}
