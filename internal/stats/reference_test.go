package stats

// Naive reference implementations the package is tested against. They are
// written the slow, obvious way on purpose and share no code with the
// package.

// insertionSorted returns a sorted copy of x by insertion sort.
func insertionSorted(x []float64) []float64 {
	out := make([]float64, 0, len(x))
	for _, v := range x {
		i := len(out)
		out = append(out, v)
		for i > 0 && out[i-1] > v {
			out[i] = out[i-1]
			i--
		}
		out[i] = v
	}
	return out
}

// naiveQuantile walks the points (k/(n−1), x_k) of the sorted sample and
// interpolates on the segment that contains p.
func naiveQuantile(values []float64, p float64) float64 {
	x := insertionSorted(values)
	n := len(x)
	if n == 1 {
		return x[0]
	}
	step := 1 / float64(n-1)
	for k := 0; k < n-1; k++ {
		left, right := float64(k)*step, float64(k+1)*step
		if p >= left && p <= right {
			return x[k] + (p-left)/step*(x[k+1]-x[k])
		}
	}
	return x[n-1]
}

// naiveMedianIndex finds the window whose stable rank (values below it,
// plus equal values earlier in the input) is ⌊(n−1)/2⌋.
func naiveMedianIndex(values []float64) int {
	want := (len(values) - 1) / 2
	for i, v := range values {
		rank := 0
		for j, w := range values {
			if w < v || (w == v && j < i) {
				rank++
			}
		}
		if rank == want {
			return i
		}
	}
	return -1
}

// bruteForceMinP enumerates every split of n+m distinct ranks
// (bruteForceUCounts) and returns 2 × the share of splits with the most
// extreme U, capped at 1.
func bruteForceMinP(n, m int) float64 {
	counts := bruteForceUCounts(n, m)
	total := 0.0
	for _, c := range counts {
		total += c
	}
	return min(1, 2*counts[0]/total)
}
