package plan

import (
	"fmt"
	"sort"
	"strings"
)

// Problem is one thing wrong in a comparison file or in the overrides given
// on the command line. Line and Col are 1-based; they are 0 when the problem
// has no place in a file (an override from a flag).
type Problem struct {
	File string
	Line int
	Col  int
	Msg  string // what is wrong; what to write instead
}

// String formats the problem as "file:line:col: message".
func (p Problem) String() string {
	switch {
	case p.File == "":
		return p.Msg
	case p.Line == 0:
		return p.File + ": " + p.Msg
	case p.Col == 0:
		return fmt.Sprintf("%s:%d: %s", p.File, p.Line, p.Msg)
	}
	return fmt.Sprintf("%s:%d:%d: %s", p.File, p.Line, p.Col, p.Msg)
}

// ConfigError lists every problem found in a comparison file or its
// overrides, in file order. Load and Resolve return it so that a user fixes
// everything in one pass.
type ConfigError struct {
	Problems []Problem
}

func (e *ConfigError) Error() string {
	if len(e.Problems) == 1 {
		return e.Problems[0].String()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d problems:", len(e.Problems))
	for _, p := range e.Problems {
		b.WriteString("\n  ")
		b.WriteString(p.String())
	}
	return b.String()
}

// sortProblems orders problems by position so messages read top to bottom.
func sortProblems(ps []Problem) {
	sort.SliceStable(ps, func(i, j int) bool {
		if ps[i].Line != ps[j].Line {
			return ps[i].Line < ps[j].Line
		}
		return ps[i].Col < ps[j].Col
	})
}

// Suggest returns the known word nearest to word, or "" when none is near
// enough to be a likely typo.
func Suggest(word string, known []string) string {
	lw := strings.ToLower(word)
	best, bestDist := "", 1<<30
	for _, k := range known {
		if strings.EqualFold(k, word) || strings.ReplaceAll(lw, "_", "") == strings.ReplaceAll(k, "_", "") {
			return k
		}
		d := editDistance(lw, k)
		if d < bestDist {
			best, bestDist = k, d
		}
	}
	limit := 2
	if len(word) <= 4 {
		limit = 1
	}
	if bestDist <= limit && bestDist < len(word) {
		return best
	}
	return ""
}

// didYouMean is suggest phrased for a message: `did you mean "x"?` or, with
// no near miss, the list of words that are allowed.
func didYouMean(word string, known []string) string {
	if s := Suggest(word, known); s != "" {
		return fmt.Sprintf("did you mean %q?", s)
	}
	return "write one of: " + strings.Join(known, ", ")
}

// editDistance is the optimal-string-alignment distance between a and b,
// by bytes: insertions, deletions, substitutions and swaps of two adjacent
// letters ("gni" → "gin") each count one.
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
