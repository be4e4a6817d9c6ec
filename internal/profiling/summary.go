package profiling

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/google/pprof/profile"
)

// Measure names what a Summary counts per request.
type Measure string

// The measures, with the unit of their per-request figures.
const (
	// MeasureCPU is CPU time: microseconds per request.
	MeasureCPU Measure = "cpu"
	// MeasureAllocBytes is heap allocation: bytes per request.
	MeasureAllocBytes Measure = "alloc_space"
	// MeasureAllocObjects is heap allocation: objects per request.
	MeasureAllocObjects Measure = "alloc_objects"
)

// Unit is the unit of a measure's per-request figures.
func (m Measure) Unit() string {
	switch m {
	case MeasureCPU:
		return "µs"
	case MeasureAllocBytes:
		return "B"
	default:
		return "objects"
	}
}

// Function is one function's share of a profile, per request.
type Function struct {
	Name    string `json:"name"`
	Package string `json:"package"`
	Group   string `json:"group"`
	// Flat is the function's own cost per request (its frames on top of
	// the stack); Cum adds what it called. In the measure's unit.
	Flat float64 `json:"flat"`
	Cum  float64 `json:"cum"`
	// FlatSamples and CumSamples are the samples behind Flat and Cum (for
	// allocations, an estimate: sampled bytes ÷ the sampling period).
	FlatSamples int64 `json:"flat_samples"`
	CumSamples  int64 `json:"cum_samples"`
}

// Summary is a profile divided by the requests its window served.
type Summary struct {
	Measure  Measure `json:"measure"`
	Unit     string  `json:"unit"`
	Requests int64   `json:"requests"`
	// Total is the whole profile per request; Samples the samples behind it.
	Total   float64 `json:"total"`
	Samples int64   `json:"samples"`
	// Captured, for a CPU profile scaled to a measured CPU time (ScaleTo),
	// is the share of that time the profile's samples had accounted for
	// before scaling; 0 when it was not scaled.
	Captured float64 `json:"captured,omitempty"`
	// Functions by Flat, the largest first.
	Functions []Function `json:"functions"`
}

// Summarize divides a profile by requests: each function's flat and
// cumulative cost per request in the measure's unit (CPU nanoseconds
// become microseconds). A function that appears twice in one stack
// (recursion) counts once in its cumulative figure.
func Summarize(p *profile.Profile, m Measure, requests int64) (Summary, error) {
	s := Summary{Measure: m, Unit: m.Unit(), Requests: requests, Functions: []Function{}}
	if requests <= 0 {
		return s, fmt.Errorf("no request was served in the profile window: nothing to divide by")
	}
	vi, scale, err := valueIndex(p, m)
	if err != nil {
		return s, err
	}
	countOf := sampleCounter(p)
	var own []string
	for _, c := range p.Comments {
		if m, ok := strings.CutPrefix(c, MainModuleComment); ok && m != "" {
			own = append(own, m)
		}
	}
	type acc struct {
		f          Function
		flat, cum  int64
		fs, cs     int64
		lastSample int
	}
	byName := map[string]*acc{}
	var total, samples int64
	for i, smp := range p.Sample {
		v := smp.Value[vi]
		n := countOf(smp)
		total += v
		samples += n
		for depth, loc := range smp.Location {
			for li := range loc.Line {
				fn := loc.Line[li].Function
				if fn == nil {
					continue
				}
				a := byName[fn.Name]
				if a == nil {
					binary := ""
					if loc.Mapping != nil {
						binary = loc.Mapping.File
					}
					a = &acc{f: Function{Name: fn.Name, Package: Package(fn.Name, binary), Group: groupOf(fn.Name, fn.Filename, binary, own)}, lastSample: -1}
					byName[fn.Name] = a
				}
				if depth == 0 && li == 0 { // the leaf: Line[0] is the innermost of inlined frames
					a.flat += v
					a.fs += n
				}
				if a.lastSample != i {
					a.cum += v
					a.cs += n
					a.lastSample = i
				}
			}
		}
	}
	r := float64(requests)
	s.Total, s.Samples = float64(total)*scale/r, samples
	for _, a := range byName {
		f := a.f
		f.Flat, f.Cum = float64(a.flat)*scale/r, float64(a.cum)*scale/r
		f.FlatSamples, f.CumSamples = a.fs, a.cs
		s.Functions = append(s.Functions, f)
	}
	sort.Slice(s.Functions, func(i, j int) bool {
		a, b := s.Functions[i], s.Functions[j]
		if a.Flat != b.Flat {
			return a.Flat > b.Flat
		}
		return a.Name < b.Name
	})
	return s, nil
}

// valueIndex finds the measure's sample value and the factor to its unit.
func valueIndex(p *profile.Profile, m Measure) (int, float64, error) {
	for i, st := range p.SampleType {
		if st.Type != string(m) {
			continue
		}
		if m == MeasureCPU {
			if st.Unit != "nanoseconds" {
				return 0, 0, fmt.Errorf("the profile's cpu values are in %s, not nanoseconds", st.Unit)
			}
			return i, 1e-3, nil
		}
		return i, 1, nil
	}
	var have []string
	for _, st := range p.SampleType {
		have = append(have, st.Type)
	}
	return 0, 0, fmt.Errorf("the profile has no %s values (it has %v); is it the right kind of profile?", m, have)
}

// sampleCounter returns how many samples one record stands for: its
// "samples" value in a CPU profile; in an allocation profile the sampled
// bytes divided by the sampling period (the profile's Period, Go's
// MemProfileRate), at least 1 for a record with any allocation.
func sampleCounter(p *profile.Profile) func(*profile.Sample) int64 {
	for i, st := range p.SampleType {
		if st.Type == "samples" {
			return func(s *profile.Sample) int64 { return s.Value[i] }
		}
	}
	for i, st := range p.SampleType {
		if st.Type == string(MeasureAllocBytes) && p.Period > 0 {
			period := float64(p.Period)
			return func(s *profile.Sample) int64 {
				v := s.Value[i]
				if v <= 0 {
					return 0
				}
				return max(1, int64(math.Round(float64(v)/period)))
			}
		}
	}
	return func(*profile.Sample) int64 { return 1 }
}

// Delta is after minus before: the allocations made between two reads of
// a cumulative profile (Go's allocs), as a profile of its own. Stacks
// whose values did not change are dropped.
func Delta(before, after *profile.Profile) (*profile.Profile, error) {
	neg := before.Copy()
	neg.Scale(-1)
	d, err := profile.Merge([]*profile.Profile{after.Copy(), neg})
	if err != nil {
		return nil, fmt.Errorf("subtract the allocation profiles: %w", err)
	}
	kept := d.Sample[:0]
	for _, s := range d.Sample {
		for _, v := range s.Value {
			if v != 0 {
				kept = append(kept, s)
				break
			}
		}
	}
	d.Sample = kept
	d.TimeNanos, d.DurationNanos = after.TimeNanos, after.TimeNanos-before.TimeNanos
	return d.Compact(), nil
}

// Samples is the number of samples behind a profile: its "samples"
// values, or for an allocation profile the estimate sampleCounter makes.
func Samples(p *profile.Profile) int64 {
	count := sampleCounter(p)
	var n int64
	for _, s := range p.Sample {
		n += count(s)
	}
	return n
}

// ScaleTo rescales a CPU summary so that its total is totalPerRequest, the
// CPU time per request measured otherwise (the process tree's, from
// /proc): a sampling profiler misses samples (a busy host delays perf's
// reads of its buffers; Go's profiler does not see every thread), and the
// shares of the functions are what it tells best. Captured records what
// share of the measured time the samples had covered. A summary without
// samples, or a total of 0, is left as it is.
func (s *Summary) ScaleTo(totalPerRequest float64) {
	if s.Measure != MeasureCPU || s.Total <= 0 || totalPerRequest <= 0 {
		return
	}
	f := totalPerRequest / s.Total
	s.Captured = s.Total / totalPerRequest
	s.Total = totalPerRequest
	for i := range s.Functions {
		s.Functions[i].Flat *= f
		s.Functions[i].Cum *= f
	}
}
