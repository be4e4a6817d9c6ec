package doccheck

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// modulePath is the harness's module; the reference servers' is
// modulePath/apps.
const modulePath = "github.com/stackbench/stackbench"

// root is the repository's root, from this package's directory.
const root = "../.."

// architectureDoc is the map the tests hold to the tree.
const architectureDoc = "docs/architecture.md"

// mapRow is one line of architecture.md's package tables.
type mapRow struct {
	pkg     string   // the package's path in the repository: internal/run
	imports []string // its imports of ours, short (shortName)
	line    int
}

// shortName is how the map names an import of ours: its path in the
// repository, without the harness's leading internal/ (internal/run is
// run, apps/internal/saas stays whole).
func shortName(rel string) string {
	return strings.TrimPrefix(rel, "internal/")
}

// readMap parses the rows of the tables of architecture.md whose first
// cell is a package in backquotes: | `internal/run` | holds | imports |,
// the last cell the imports of ours, comma-separated, or — for none.
func readMap(t *testing.T) []mapRow {
	t.Helper()
	f, err := os.Open(filepath.Join(root, architectureDoc))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []mapRow
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if len(cells) < 3 {
			t.Fatalf("%s:%d: a package line has three cells (package, what it holds, its imports of ours): %s", architectureDoc, n, line)
		}
		pkg := strings.Trim(strings.TrimSpace(cells[0]), "`")
		row := mapRow{pkg: pkg, line: n}
		if imp := strings.TrimSpace(cells[len(cells)-1]); imp != "—" {
			for _, s := range strings.Split(imp, ",") {
				row.imports = append(row.imports, strings.TrimSpace(s))
			}
		}
		rows = append(rows, row)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

// listed is a package as go list says it: its path in the repository and
// its imports of ours (tests' imports left out), short and sorted.
type listed struct {
	pkg     string
	imports []string
}

// goList lists the packages of the module in dir, relative to the
// repository's root.
func goList(t *testing.T, dir string) []listed {
	t.Helper()
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", "./...")
	cmd.Dir = filepath.Join(root, dir)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list ./... in %s: %v", cmd.Dir, err)
	}
	var pkgs []listed
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		p := listed{pkg: strings.TrimPrefix(strings.TrimPrefix(fields[0], modulePath), "/")}
		for _, imp := range fields[1:] {
			if rel, ok := strings.CutPrefix(imp, modulePath+"/"); ok {
				p.imports = append(p.imports, shortName(rel))
			}
		}
		slices.Sort(p.imports)
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// importsCell is the last cell of a package's line.
func importsCell(imports []string) string {
	if len(imports) == 0 {
		return "—"
	}
	return strings.Join(imports, ", ")
}

// TestArchitectureMapMatchesGoList holds architecture.md's package tables
// to go list: a line for every package of the harness's module and of the
// reference servers' (apps/), none for a package that is gone, each
// line's imports of ours exactly the package's (tests' imports aside), and
// the lines ordered so that each package imports only packages whose lines
// are below its own (so the map reads top-down, and an import that runs
// back up shows as a line out of place).
func TestArchitectureMapMatchesGoList(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("needs the go command")
	}
	rows := readMap(t)
	at := map[string]int{} // package → index in rows
	for i, r := range rows {
		if j, dup := at[r.pkg]; dup {
			t.Errorf("%s:%d: `%s` has a second line (the first is line %d): remove one", architectureDoc, r.line, r.pkg, rows[j].line)
		}
		at[r.pkg] = i
	}
	var all []listed
	for _, dir := range []string{".", "apps"} {
		all = append(all, goList(t, dir)...)
	}
	exists := map[string]bool{}
	for _, p := range all {
		exists[p.pkg] = true
	}
	for _, p := range all {
		i, ok := at[p.pkg]
		if !ok {
			t.Errorf("%s has no line for package %s; add this line to its package table, %s:\n| `%s` | <what it holds, in a few words> | %s |",
				architectureDoc, p.pkg, placement(p, rows, all), p.pkg, importsCell(p.imports))
			continue
		}
		r := rows[i]
		got := slices.Clone(r.imports)
		slices.Sort(got)
		if !slices.Equal(got, p.imports) {
			t.Errorf("%s:%d: `%s` lists the imports %q; go list says %q: make its last cell\n| %s |",
				architectureDoc, r.line, p.pkg, importsCell(r.imports), importsCell(p.imports), importsCell(p.imports))
		}
		for _, imp := range p.imports {
			if j, ok := at[fullName(imp, exists)]; ok && j < i {
				t.Errorf("%s:%d: `%s` imports %s, whose line (%d) is above it: each package's line goes above the lines of what it imports; move one of them",
					architectureDoc, r.line, p.pkg, imp, rows[j].line)
			}
		}
	}
	for _, r := range rows {
		if !exists[r.pkg] {
			t.Errorf("%s:%d: `%s` is not a package of either module (go list ./... at the root and in apps/): remove its line or correct its path", architectureDoc, r.line, r.pkg)
		}
	}
}

// fullName is the path in the repository of an import named short.
func fullName(short string, exists map[string]bool) string {
	if exists["internal/"+short] {
		return "internal/" + short
	}
	return short
}

// placement says where a missing package's line goes: below the lines of
// the packages that import it, above those of the packages it imports.
func placement(p listed, rows []mapRow, all []listed) string {
	below, above := "", ""
	for _, q := range all {
		if slices.Contains(q.imports, shortName(p.pkg)) {
			for _, r := range rows {
				if r.pkg == q.pkg && (below == "" || r.line > lineOf(below, rows)) {
					below = r.pkg
				}
			}
		}
	}
	exists := map[string]bool{}
	for _, q := range all {
		exists[q.pkg] = true
	}
	for _, imp := range p.imports {
		full := fullName(imp, exists)
		for _, r := range rows {
			if r.pkg == full && (above == "" || r.line < lineOf(above, rows)) {
				above = r.pkg
			}
		}
	}
	switch {
	case below != "" && above != "":
		return fmt.Sprintf("below the line of `%s` (which imports it) and above that of `%s` (which it imports)", below, above)
	case below != "":
		return fmt.Sprintf("below the line of `%s`, which imports it", below)
	case above != "":
		return fmt.Sprintf("above the line of `%s`, which it imports", above)
	}
	return "in the table of its module"
}

// lineOf is the line of pkg's row.
func lineOf(pkg string, rows []mapRow) int {
	for _, r := range rows {
		if r.pkg == pkg {
			return r.line
		}
	}
	return 0
}
