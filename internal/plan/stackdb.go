package plan

import (
	"fmt"
	"strings"
)

// checkStackDatabases makes a file whose stacks bring their own database
// need one, and warns of a stack whose own database has no reset: while a
// case inserts (its windows would meet the rows the earlier ones made,
// trap T3).
func (p *parser) checkStackDatabases(f *File) {
	if f.Workload == nil {
		return
	}
	var inserting []string
	for _, c := range f.Workload.Cases {
		if c.Inserts {
			inserting = append(inserting, c.Name)
		}
	}
	for _, s := range f.Stacks {
		if s.Database == nil {
			continue
		}
		f.Workload.NeedsDatabase = true
		if len(s.Database.Reset) == 0 && len(inserting) > 0 {
			f.Warnings = append(f.Warnings, Problem{File: p.name, Line: s.Line, Msg: fmt.Sprintf(
				"stack %q brings its own database without reset:, and case %s inserts: its windows will meet the rows the earlier ones made; add reset: to its database, e.g. reset: \"TRUNCATE articles CASCADE\"",
				s.Name, strings.Join(inserting, ", "))})
		}
	}
}

// OwnDatabases reports whether every stack brings its own database, so
// that the workload's template (the saas-slice seed, or the workload's
// fixture) need not be built for them.
func OwnDatabases(stacks []Stack) bool {
	for _, s := range stacks {
		if s.Database == nil {
			return false
		}
	}
	return len(stacks) > 0
}
