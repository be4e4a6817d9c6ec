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

// bruteForceUTest enumerates every way to pick len(a) of the pooled values
// as the first sample and returns the two-sided p-value of the observed U1:
// 2·min(P(U ≤ U1), P(U ≥ U1)), capped at 1. A tie between the samples
// counts one half, as with midranks.
func bruteForceUTest(a, b []float64) float64 {
	pooled := append(append([]float64(nil), a...), b...)
	u := func(first []bool) float64 {
		count := 0.0
		for i := range pooled {
			for j := range pooled {
				if first[i] && !first[j] {
					switch {
					case pooled[i] > pooled[j]:
						count++
					case pooled[i] == pooled[j]:
						count += 0.5
					}
				}
			}
		}
		return count
	}
	observed := make([]bool, len(pooled))
	for i := range a {
		observed[i] = true
	}
	u1 := u(observed)
	total, atMost, atLeast := 0, 0, 0
	first := make([]bool, len(pooled))
	var walk func(i, left int)
	walk = func(i, left int) {
		if i == len(pooled) {
			if left == 0 {
				total++
				v := u(first)
				if v <= u1 {
					atMost++
				}
				if v >= u1 {
					atLeast++
				}
			}
			return
		}
		if left > 0 {
			first[i] = true
			walk(i+1, left-1)
			first[i] = false
		}
		walk(i+1, left)
	}
	walk(0, len(a))
	return min(1, 2*float64(min(atMost, atLeast))/float64(total))
}

// bruteForceMinP enumerates every split of n+m distinct ranks and returns
// 2 × (the share of splits with the most extreme U), capped at 1.
func bruteForceMinP(n, m int) float64 {
	ranks := make([]float64, n+m)
	for i := range ranks {
		ranks[i] = float64(i)
	}
	// The most extreme split puts the n smallest ranks first; its two-sided
	// p-value is the smallest any split can reach.
	return bruteForceUTest(ranks[:n], ranks[n:])
}
