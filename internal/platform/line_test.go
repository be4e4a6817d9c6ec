package platform_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The operating system is known in one place: outside internal/platform,
// no file of the harness imports syscall or golang.org/x/sys/unix or names
// a /proc path (a string that starts with /proc). The load engine is the exception the design makes: it
// drives raw sockets itself (x/sys/unix), and its poll files alone hold
// what differs between Linux and macOS, /proc included. Tests, which prove
// Linux behaviour directly, and the reference servers (apps/, examples/),
// which are separate programs, are not held to it.
func TestOnlyThePlatformKnowsTheOS(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	for _, dir := range []string{"internal", "cmd"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, path)
			rel = filepath.ToSlash(rel)
			if d.IsDir() || !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") ||
				strings.HasPrefix(rel, "internal/platform/") {
				return nil
			}
			f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly|parser.ParseComments)
			if err != nil {
				return err
			}
			inLoad := strings.HasPrefix(rel, "internal/load/")
			for _, imp := range f.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				if (p == "syscall" || p == "golang.org/x/sys/unix") && !inLoad {
					t.Errorf("%s imports %s: ask internal/platform (platform/local) instead", rel, p)
				}
			}
			full, err := parser.ParseFile(fset, path, nil, 0)
			if err != nil {
				return err
			}
			pollFile := inLoad && strings.HasPrefix(filepath.Base(rel), "poll_")
			ast.Inspect(full, func(n ast.Node) bool {
				lit, ok := n.(*ast.BasicLit)
				if ok && lit.Kind == token.STRING && (strings.HasPrefix(lit.Value, `"/proc/`) || lit.Value == `"/proc"`) && !pollFile {
					t.Errorf("%s: %s names /proc: read it through internal/platform", fset.Position(lit.Pos()), lit.Value)
				}
				return true
			})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
