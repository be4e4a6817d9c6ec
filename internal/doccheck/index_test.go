package doccheck

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// readerGroups are docs/README.md's headings, one per kind of reader, in
// their order.
var readerGroups = []string{"## Using stackbench", "## Method", "## Results", "## Contributing"}

// indexEntry is one line of the index: "- [name](name) — what it holds".
var indexEntry = regexp.MustCompile(`^- \[([^\]]+)\]\(([^)#\s]+)\) — \S`)

// TestIndexGroupsByReader: docs/README.md has the four readers' headings
// in order and nothing else at that level, and lists each Markdown file
// of docs/ once, under one of them, with a line on what the reader finds
// there.
func TestIndexGroupsByReader(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root, "docs", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var headings []string
	listed := map[string]string{} // file → its heading
	heading := ""
	for n, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "## ") {
			heading = strings.TrimSpace(line)
			headings = append(headings, heading)
			continue
		}
		m := indexEntry.FindStringSubmatch(line)
		if m == nil {
			if strings.HasPrefix(line, "- [") {
				t.Errorf("docs/README.md:%d: %q is not an entry of the form \"- [name](name) — what it holds\"", n+1, line)
			}
			continue
		}
		target := m[2]
		if strings.Contains(target, "/") {
			continue // a file outside docs/, such as ../bench/README.md
		}
		if heading == "" {
			t.Errorf("docs/README.md:%d: %s is listed before the first reader's heading", n+1, target)
		}
		if prev, ok := listed[target]; ok {
			t.Errorf("docs/README.md:%d: %s is listed twice (under %q and %q); list it once, under its readers' heading", n+1, target, prev, heading)
		}
		listed[target] = heading
	}
	if strings.Join(headings, "|") != strings.Join(readerGroups, "|") {
		t.Errorf("docs/README.md's headings are %q, want the readers' %q in that order", headings, readerGroups)
	}
	files, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		name := filepath.Base(f)
		if _, ok := listed[name]; !ok && name != "README.md" {
			t.Errorf("docs/README.md has no entry for docs/%s: add \"- [%s](%s) — <what it is for>\" under one of %q", name, name, name, readerGroups)
		}
	}
	for name := range listed {
		if _, err := os.Stat(filepath.Join(root, "docs", name)); err != nil {
			t.Errorf("docs/README.md lists %s, which is not a file of docs/", name)
		}
	}
}
