package doccheck

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// markdownLink finds [text](target) links; images alike.
var markdownLink = regexp.MustCompile(`\]\(([^()\s]+)\)`)

// fence opens or closes a code block, whose text is not Markdown.
var fence = regexp.MustCompile("^\\s*(```|~~~)")

// documents are the Markdown files whose links are checked: README.md and
// every file under docs/, examples/ and bench/ (node_modules aside).
func documents(t *testing.T) []string {
	t.Helper()
	docs := []string{filepath.Join(root, "README.md")}
	for _, dir := range []string{"docs", "examples", "bench", "apps"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d os.DirEntry, err error) error {
			switch {
			case err != nil:
				return err
			case d.IsDir() && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".") || d.Name() == "_gen"):
				return filepath.SkipDir
			case !d.IsDir() && strings.HasSuffix(d.Name(), ".md"):
				docs = append(docs, path)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return docs
}

// anchors are the fragment identifiers GitHub gives a Markdown file's
// headings: lower case, spaces as hyphens, punctuation other than hyphens
// and underscores dropped, a repeated one suffixed -1, -2, …
func anchors(text string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	inCode := false
	for _, line := range strings.Split(text, "\n") {
		if fence.MatchString(line) {
			inCode = !inCode
			continue
		}
		if inCode || !strings.HasPrefix(line, "#") {
			continue
		}
		h := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(h) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		a := b.String()
		if n := seen[a]; n > 0 {
			out[fmt.Sprintf("%s-%d", a, n)] = true
		} else {
			out[a] = true
		}
		seen[a]++
	}
	return out
}

// TestRelativeLinksResolve checks every relative link of the project's
// Markdown: the file or directory it names exists, and a #fragment names
// a heading of the Markdown file it points into.
func TestRelativeLinksResolve(t *testing.T) {
	texts := map[string]string{}
	read := func(path string) (string, error) {
		if s, ok := texts[path]; ok {
			return s, nil
		}
		b, err := os.ReadFile(path)
		texts[path] = string(b)
		return string(b), err
	}
	for _, doc := range documents(t) {
		text, err := read(doc)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, doc)
		inCode := false
		for n, line := range strings.Split(text, "\n") {
			if fence.MatchString(line) {
				inCode = !inCode
				continue
			}
			if inCode {
				continue
			}
			for _, m := range markdownLink.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				path, frag, _ := strings.Cut(target, "#")
				file := doc
				if path != "" {
					file = filepath.Join(filepath.Dir(doc), path)
					if _, err := os.Stat(file); err != nil {
						t.Errorf("%s:%d: the link %s names %s, which does not exist", rel, n+1, target, path)
						continue
					}
				}
				if frag == "" || !strings.HasSuffix(file, ".md") {
					continue
				}
				other, err := read(file)
				if err != nil {
					t.Errorf("%s:%d: the link %s: %v", rel, n+1, target, err)
					continue
				}
				if !anchors(other)[frag] {
					t.Errorf("%s:%d: the link %s names #%s, which is no heading of %s", rel, n+1, target, frag, path)
				}
			}
		}
	}
}

// TestIndexListsEveryDocument: docs/README.md, the manual's one index,
// links every other Markdown file of docs/.
func TestIndexListsEveryDocument(t *testing.T) {
	index, err := os.ReadFile(filepath.Join(root, "docs", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		name := filepath.Base(f)
		if name != "README.md" && !strings.Contains(string(index), "]("+name+")") {
			t.Errorf("docs/README.md does not list docs/%s: add a line under the heading of its readers (using, method, results, contributing):\n- [%s](%s) — <what it is for>", name, name, name)
		}
	}
}
