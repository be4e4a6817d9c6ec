package report

// StackColor is the colour every chart of the report draws the i-th stack
// (in the plan's order) in, for pages that draw beside it (the live view).
func StackColor(i int) string { return stackColor(i) }
