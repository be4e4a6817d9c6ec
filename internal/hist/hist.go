// Package hist keeps latency histograms in microseconds: a thin layer over
// github.com/HdrHistogram/hdrhistogram-go with the range and precision
// stackbench uses everywhere (1 µs up to the run's timeout, 3 significant
// digits). Memory is fixed at creation, recording allocates nothing, and
// histograms from several workers or windows merge exactly.
package hist

import (
	"fmt"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// SignificantDigits is the precision of every stackbench histogram.
const SignificantDigits = 3

// Histogram is a latency histogram in microseconds. It is not safe for
// concurrent use: give each goroutine its own and Merge them.
type Histogram struct {
	h *hdr.Histogram
}

// New returns an empty histogram that tracks 1 µs up to maxLatency (values
// above it are recorded as maxLatency). A maxLatency under 1 ms is raised
// to 1 ms.
func New(maxLatency time.Duration) *Histogram {
	maxUS := maxLatency.Microseconds()
	if maxUS < 1000 {
		maxUS = 1000
	}
	return &Histogram{h: hdr.New(1, maxUS, SignificantDigits)}
}

// Record adds one latency. Values under 1 µs count as 1 µs; values above
// the histogram's maximum count as the maximum.
func (h *Histogram) Record(latency time.Duration) {
	h.RecordMicros(int64(latency / time.Microsecond))
}

// RecordMicros adds one latency given in microseconds, clamped like Record.
func (h *Histogram) RecordMicros(us int64) {
	if us < 1 {
		us = 1
	}
	if top := h.h.HighestTrackableValue(); us > top {
		us = top
	}
	_ = h.h.RecordValue(us) // cannot fail: the value is in range
}

// Merge adds every value of other into h. Values beyond h's range are
// clamped to its maximum, so nothing is dropped.
func (h *Histogram) Merge(other *Histogram) {
	if other == nil {
		return
	}
	if dropped := h.h.Merge(other.h); dropped == 0 {
		return
	}
	// other has a larger range: hdr's Merge dropped the values above h's
	// maximum (it records each bucket at its lowest value); add them clamped.
	top := h.h.HighestTrackableValue()
	for _, bar := range other.h.Distribution() {
		if bar.Count > 0 && bar.From > top {
			_ = h.h.RecordValues(top, bar.Count)
		}
	}
}

// Count is the number of recorded values.
func (h *Histogram) Count() int64 { return h.h.TotalCount() }

// PercentileMicros returns the value at percentile p (0–100) in
// microseconds, or 0 when the histogram is empty.
func (h *Histogram) PercentileMicros(p float64) int64 { return h.h.ValueAtPercentile(p) }

// MaxMicros is the largest recorded value in microseconds (0 when empty).
func (h *Histogram) MaxMicros() int64 {
	if h.h.TotalCount() == 0 {
		return 0
	}
	return h.h.Max()
}

// MinMicros is the smallest recorded value in microseconds (0 when empty).
func (h *Histogram) MinMicros() int64 {
	if h.h.TotalCount() == 0 {
		return 0
	}
	return h.h.Min()
}

// MeanMicros is the mean of the recorded values in microseconds.
func (h *Histogram) MeanMicros() float64 { return h.h.Mean() }

// Reset empties the histogram, keeping its range.
func (h *Histogram) Reset() { h.h.Reset() }

// Encode returns the histogram as base64 text of the HdrHistogram V2
// compressed encoding, readable by every HdrHistogram implementation.
func (h *Histogram) Encode() (string, error) {
	b, err := h.h.Encode(hdr.V2CompressedEncodingCookieBase)
	if err != nil {
		return "", fmt.Errorf("encode latency histogram: %w", err)
	}
	return string(b), nil
}

// Decode reads a histogram written by Encode. The empty string decodes to
// an empty histogram with a 1 ms range.
func Decode(s string) (*Histogram, error) {
	if s == "" {
		return New(time.Millisecond), nil
	}
	h, err := hdr.Decode([]byte(s))
	if err != nil {
		return nil, fmt.Errorf("decode latency histogram: %w (the text is not an encoded HdrHistogram)", err)
	}
	return &Histogram{h: h}, nil
}

// Buckets calls fn with each non-empty bucket's highest equivalent value
// (the value PercentileMicros reports for it) and count, in ascending
// order: what a caller needs to pool windows' distributions itself.
func (h *Histogram) Buckets(fn func(valueMicros, count int64)) {
	for _, bar := range h.h.Distribution() {
		if bar.Count > 0 {
			fn(bar.To, bar.Count)
		}
	}
}
