package stats

import "sort"

// MedianIndex returns the index, in values, of the window that represents
// the median: the window of rank ⌊(n−1)/2⌋ (0-based) when the windows are
// ordered by value, equal values keeping their input (journal) order.
//
// For an odd count that is the middle window. For an even count there is no
// middle window, and the mean of the two middle ones would be a figure no
// window produced; the lower of the two is taken instead, which for a
// higher-is-better metric such as throughput never flatters the stack. The
// report reads a cell's median figures (throughput, CPU, mean RSS) from the
// median window by throughput, so one window's throughput is never mixed
// with another's CPU; latency is not among them, it comes from the merged
// histograms of all counted windows. MedianIndex returns -1 for an empty
// slice.
func MedianIndex(values []float64) int {
	if len(values) == 0 {
		return -1
	}
	order := make([]int, len(values))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return values[order[a]] < values[order[b]] })
	return order[(len(values)-1)/2]
}
