package doccheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// conventionsDoc names where each vocabulary is declared.
const conventionsDoc = "docs/conventions.md"

// journalKinds parses internal/journal's sources (tests aside) for the
// constants of type Kind: each one's name and the file declaring it.
func journalKinds(t *testing.T) map[string]string {
	t.Helper()
	dir := filepath.Join(root, "internal", "journal")
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]string{}
	fset := token.NewFileSet()
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, spec := range g.Specs {
				v := spec.(*ast.ValueSpec)
				if id, ok := v.Type.(*ast.Ident); !ok || id.Name != "Kind" {
					continue
				}
				for _, n := range v.Names {
					kinds[n.Name] = filepath.Base(path)
				}
			}
		}
	}
	if len(kinds) == 0 {
		t.Fatal("found no constant of type Kind in internal/journal")
	}
	return kinds
}

// TestConventionsNameEveryRecordKind holds conventions.md's line of
// journal record kinds to internal/journal: every constant of type Kind
// named with the file declaring it, and no name that is not one.
func TestConventionsNameEveryRecordKind(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root, conventionsDoc))
	if err != nil {
		t.Fatal(err)
	}
	var row string
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "| journal record kinds |") {
			row = line
		}
	}
	if row == "" {
		t.Fatalf("%s has no line beginning \"| journal record kinds |\"", conventionsDoc)
	}
	kinds := journalKinds(t)
	for name, file := range kinds {
		if !strings.Contains(row, "`"+name+"`") {
			t.Errorf("%s's journal record kinds do not name `%s` (declared in internal/journal/%s): add it", conventionsDoc, name, file)
		}
		if !strings.Contains(row, file) {
			t.Errorf("%s's journal record kinds do not name %s, where `%s` is declared: add it", conventionsDoc, file, name)
		}
	}
	for _, m := range regexp.MustCompile("`(Kind[A-Z][A-Za-z]*)`").FindAllStringSubmatch(row, -1) {
		if _, ok := kinds[m[1]]; !ok {
			t.Errorf("%s's journal record kinds name `%s`, which internal/journal does not declare: remove it", conventionsDoc, m[1])
		}
	}
}
