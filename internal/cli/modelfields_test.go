package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// modelRoots are the types whose fields, and the fields of every type of
// their packages they hold, are the report's model: what a run measured
// and what analysis decided of it. (The engines' types they hold, such as
// a capacity search's figures, are the engines' commands' to print; only
// a model type's field leads to them.) internal/report renders them, the terminal's
// lines included (report.WriteText); cli passes them on.
var modelRoots = []struct{ pkg, name string }{
	{"internal/report", "Model"},
	{"internal/analysis", "Result"},
	{"internal/suite/dx", "Result"},
	{"internal/suite/spawn", "Result"},
}

// modelFieldsAllowed are the functions of cli that may still read a model
// field, each with why it is not formatting the model. Keep it short: a
// line of output made from a model field belongs in internal/report.
var modelFieldsAllowed = map[string]string{}

// TestCLIFormatsNoModelField (issue 44): cli parses flags, calls, and
// writes the lines it is handed; it formats no field of the model. The
// test type-checks cli's own files (tests aside) against the compiled
// packages go list names, and fails on every selector that reads a field
// of a model type (modelRoots and the types of ours they hold) outside
// modelFieldsAllowed. Methods of the model (m.HasLatency()) are report's
// or analysis's code, and passing a model on reads no field.
func TestCLIFormatsNoModelField(t *testing.T) {
	pkgs := goListExports(t)
	self := pkgs[len(pkgs)-1]
	exports := map[string]string{}
	for _, p := range pkgs {
		exports[p.ImportPath] = p.Export
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, name := range self.GoFiles {
		f, err := parser.ParseFile(fset, filepath.Join(self.Dir, name), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	lookup := func(path string) (io.ReadCloser, error) {
		if exports[path] == "" {
			return nil, fmt.Errorf("go list gave no export data for %s", path)
		}
		return os.Open(exports[path])
	}
	conf := types.Config{Importer: importer.ForCompiler(fset, "gc", lookup)}
	info := &types.Info{Selections: map[*ast.SelectorExpr]*types.Selection{}}
	pkg, err := conf.Check(self.ImportPath, fset, files, info)
	if err != nil {
		t.Fatalf("type-check cli: %v", err)
	}
	model := modelTypes(t, pkg, strings.TrimSuffix(self.ImportPath, "/internal/cli"))
	var found []string
	used := map[string]bool{}
	for _, f := range files {
		for _, decl := range f.Decls {
			fn := funcName(decl)
			ast.Inspect(decl, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				s := info.Selections[sel]
				if s == nil || s.Kind() != types.FieldVal {
					return true
				}
				named := namedOf(s.Recv())
				if named == nil || !model[named.Obj()] {
					return true
				}
				pos := fset.Position(sel.Sel.Pos())
				key := filepath.Base(pos.Filename) + ":" + fn
				if _, ok := modelFieldsAllowed[key]; ok {
					used[key] = true
					return true
				}
				found = append(found, fmt.Sprintf("%s:%d: %s reads %s.%s", filepath.Base(pos.Filename), pos.Line, fn, named.Obj().Name(), sel.Sel.Name))
				return true
			})
		}
	}
	if len(found) > 0 {
		t.Errorf("cli formats fields of the report's model; render them in internal/report (report.WriteText and its helpers) and hand cli the lines:\n%s", strings.Join(found, "\n"))
	}
	for key := range modelFieldsAllowed {
		if !used[key] {
			t.Errorf("modelFieldsAllowed names %s, which reads no model field any more: remove it", key)
		}
	}
}

// listedPackage is one package as go list -json gives it.
type listedPackage struct {
	ImportPath, Dir, Export string
	GoFiles                 []string
}

// goListExports lists cli and its dependencies with their compiled export
// data, cli last.
func goListExports(t *testing.T) []listedPackage {
	t.Helper()
	cmd := exec.Command("go", "list", "-export", "-deps", "-json=ImportPath,Dir,Export,GoFiles", ".")
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -export: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	var pkgs []listedPackage
	for {
		var p listedPackage
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) == 0 || !strings.HasSuffix(pkgs[len(pkgs)-1].ImportPath, "/internal/cli") {
		t.Fatalf("go list -deps did not end with internal/cli")
	}
	return pkgs
}

// modelTypes finds the roots among the packages cli imports, directly or
// not, and collects every named type of the roots' packages they reach
// through fields, pointers, slices, arrays and maps.
func modelTypes(t *testing.T, cli *types.Package, module string) map[*types.TypeName]bool {
	t.Helper()
	byPath := map[string]*types.Package{}
	var visit func(p *types.Package)
	visit = func(p *types.Package) {
		if byPath[p.Path()] != nil {
			return
		}
		byPath[p.Path()] = p
		for _, q := range p.Imports() {
			visit(q)
		}
	}
	visit(cli)
	inModel := map[string]bool{}
	for _, r := range modelRoots {
		inModel[module+"/"+r.pkg] = true
	}
	out := map[*types.TypeName]bool{}
	var reach func(ty types.Type)
	reach = func(ty types.Type) {
		switch ty := types.Unalias(ty).(type) {
		case *types.Named:
			obj := ty.Obj()
			if obj.Pkg() == nil || !inModel[obj.Pkg().Path()] || out[obj] {
				return
			}
			out[obj] = true
			reach(ty.Underlying())
		case *types.Pointer:
			reach(ty.Elem())
		case *types.Slice:
			reach(ty.Elem())
		case *types.Array:
			reach(ty.Elem())
		case *types.Map:
			reach(ty.Key())
			reach(ty.Elem())
		case *types.Struct:
			for f := range ty.Fields() {
				reach(f.Type())
			}
		}
	}
	for _, r := range modelRoots {
		p := byPath[module+"/"+r.pkg]
		if p == nil {
			// cli no longer reaches the package at all: nothing of it
			// can be read.
			continue
		}
		obj, ok := p.Scope().Lookup(r.name).(*types.TypeName)
		if !ok {
			t.Fatalf("%s.%s is not a type; update modelRoots", r.pkg, r.name)
		}
		reach(obj.Type())
	}
	if len(out) < len(modelRoots) {
		t.Fatalf("found %d model types; the roots moved? %v", len(out), slices.Collect(func(yield func(string) bool) {
			for o := range out {
				if !yield(o.Name()) {
					return
				}
			}
		}))
	}
	return out
}

// namedOf is the named type of a selector's receiver, through a pointer.
func namedOf(ty types.Type) *types.Named {
	if p, ok := types.Unalias(ty).(*types.Pointer); ok {
		ty = p.Elem()
	}
	n, _ := types.Unalias(ty).(*types.Named)
	return n
}

// funcName names a top-level declaration: a function, Type.Method, or the
// first name of a var.
func funcName(d ast.Decl) string {
	switch d := d.(type) {
	case *ast.FuncDecl:
		if d.Recv != nil && len(d.Recv.List) > 0 {
			ty := d.Recv.List[0].Type
			if s, ok := ty.(*ast.StarExpr); ok {
				ty = s.X
			}
			if id, ok := ty.(*ast.Ident); ok {
				return id.Name + "." + d.Name.Name
			}
		}
		return d.Name.Name
	case *ast.GenDecl:
		for _, s := range d.Specs {
			if v, ok := s.(*ast.ValueSpec); ok && len(v.Names) > 0 {
				return v.Names[0].Name
			}
		}
	}
	return "top level"
}
