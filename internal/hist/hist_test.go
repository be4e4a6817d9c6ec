package hist

import (
	"math"
	"sort"
	"testing"
	"time"
)

func TestPercentilesMatchNaive(t *testing.T) {
	h := New(time.Second)
	var vals []int64
	for i := int64(1); i <= 10000; i++ {
		v := (i * 7919) % 50000 // spread over 0..50 ms
		vals = append(vals, v)
		h.RecordMicros(v)
	}
	sort.Slice(vals, func(i, j int) bool { return vals[i] < vals[j] })
	for _, p := range []float64{50, 90, 99, 99.9} {
		naive := vals[int(math.Ceil(p/100*float64(len(vals))))-1]
		if naive < 1 {
			naive = 1
		}
		got := h.PercentileMicros(p)
		if diff := math.Abs(float64(got-naive)) / float64(naive); diff > 0.002 {
			t.Errorf("p%v = %d µs, naive %d µs (%.4f off, want ≤ 0.1%% + one bucket)", p, got, naive, diff)
		}
	}
	if h.Count() != 10000 {
		t.Errorf("count %d, want 10000", h.Count())
	}
}

func TestClampsOutOfRange(t *testing.T) {
	h := New(2 * time.Second)
	h.Record(0)
	h.Record(10 * time.Second)
	if h.Count() != 2 {
		t.Fatalf("count %d, want 2 (nothing dropped)", h.Count())
	}
	if h.MinMicros() != 1 {
		t.Errorf("min %d, want 1", h.MinMicros())
	}
	if max := h.MaxMicros(); max < 1_998_000 || max > 2_002_000 {
		t.Errorf("max %d µs, want about 2 s (the range)", max)
	}
}

func TestMergeAndRoundTrip(t *testing.T) {
	a, b := New(time.Minute), New(time.Minute)
	for i := 0; i < 1000; i++ {
		a.RecordMicros(100)
		b.RecordMicros(5000)
	}
	a.Merge(b)
	if a.Count() != 2000 {
		t.Fatalf("merged count %d, want 2000", a.Count())
	}
	s, err := a.Encode()
	if err != nil {
		t.Fatal(err)
	}
	back, err := Decode(s)
	if err != nil {
		t.Fatal(err)
	}
	if back.Count() != 2000 || back.PercentileMicros(50) != a.PercentileMicros(50) || back.MaxMicros() != a.MaxMicros() {
		t.Errorf("round trip: count %d p50 %d max %d, want %d %d %d",
			back.Count(), back.PercentileMicros(50), back.MaxMicros(), a.Count(), a.PercentileMicros(50), a.MaxMicros())
	}
}

func TestMergeWiderRangeClamps(t *testing.T) {
	narrow, wide := New(time.Second), New(time.Minute)
	wide.RecordMicros(30_000_000)
	wide.RecordMicros(10)
	narrow.Merge(wide)
	if narrow.Count() != 2 {
		t.Fatalf("count %d, want 2", narrow.Count())
	}
	if narrow.MaxMicros() < 999_000 {
		t.Errorf("max %d, want the narrow range's top", narrow.MaxMicros())
	}
}

func TestDecodeErrors(t *testing.T) {
	if _, err := Decode("not base64!"); err == nil {
		t.Error("Decode accepted garbage")
	}
	h, err := Decode("")
	if err != nil || h.Count() != 0 {
		t.Errorf("Decode(\"\") = %v, %v; want an empty histogram", h, err)
	}
}

func TestRecordAllocatesNothing(t *testing.T) {
	h := New(time.Minute)
	if n := testing.AllocsPerRun(1000, func() { h.Record(1234 * time.Microsecond) }); n != 0 {
		t.Errorf("Record allocates %v times, want 0", n)
	}
}

// Buckets lists the non-empty buckets in order, at the values the
// percentiles report, with counts that add up to Count.
func TestBuckets(t *testing.T) {
	h := New(time.Second)
	for _, us := range []int64{5, 5, 1200, 999_000} {
		h.RecordMicros(us)
	}
	var vals, counts []int64
	h.Buckets(func(v, n int64) { vals, counts = append(vals, v), append(counts, n) })
	if len(vals) != 3 || counts[0] != 2 || counts[1] != 1 || counts[2] != 1 {
		t.Fatalf("buckets %v %v; want three, counts 2, 1, 1", vals, counts)
	}
	if vals[0] != h.PercentileMicros(50) || vals[2] != h.PercentileMicros(100) || vals[1] != h.PercentileMicros(75) {
		t.Errorf("bucket values %v; want the percentiles' %d, %d, %d", vals, h.PercentileMicros(50), h.PercentileMicros(75), h.PercentileMicros(100))
	}
}
