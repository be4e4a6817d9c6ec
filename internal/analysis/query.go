package analysis

// Lookups the renderers share. Cells and steps are stored in a fixed order
// (case, concurrency, stack in step order), so these only filter.

// CaseCells returns the cells of one case at one concurrency, in step order.
func (m *Result) CaseCells(caseName string, concurrency int) []Cell {
	var out []Cell
	for _, c := range m.Cells {
		if c.Case == caseName && c.Concurrency == concurrency {
			out = append(out, c)
		}
	}
	return out
}

// Cell returns the cell of (stack, case, concurrency).
func (m *Result) Cell(stack, caseName string, concurrency int) (Cell, bool) {
	for _, c := range m.Cells {
		if c.Stack == stack && c.Case == caseName && c.Concurrency == concurrency {
			return c, true
		}
	}
	return Cell{}, false
}

// CaseSteps returns the steps of one case at one concurrency.
func (m *Result) CaseSteps(caseName string, concurrency int) []Step {
	var out []Step
	for _, s := range m.Steps {
		if s.Case == caseName && s.Concurrency == concurrency {
			out = append(out, s)
		}
	}
	return out
}

// GroupSteps returns the group summaries of one route group.
func (m *Result) GroupSteps(group string) []GroupStep {
	var out []GroupStep
	for _, g := range m.Groups {
		if g.Group == group {
			out = append(out, g)
		}
	}
	return out
}

// GroupCases lists the names of the cases in a route group.
func (m *Result) GroupCases(group string) []string {
	var out []string
	for _, c := range m.Header.Cases {
		if c.Database == (group == GroupDatabase) {
			out = append(out, c.Name)
		}
	}
	return out
}
