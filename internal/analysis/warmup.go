package analysis

import (
	"fmt"
	"slices"
	"strings"

	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/stats"
)

// WarmupSummary is how long the windows' warm-ups ran (trap T19): per
// stack and per cell, over the final windows with a load result.
type WarmupSummary struct {
	// Windows counts the windows summarised; NotSteady those whose
	// warm-up reached its cap before its throughput was steady, and Trend
	// those whose halves differed clearly (both flags leave a window
	// counted).
	Windows   int `json:"windows"`
	NotSteady int `json:"not_steady"`
	Trend     int `json:"trend"`
	// MedianSeconds and MaxSeconds are over all those windows.
	MedianSeconds float64 `json:"median_s"`
	MaxSeconds    float64 `json:"max_s"`
	// Stacks and Cells break the figures down, in plan order.
	Stacks []WarmupRow `json:"stacks"`
	Cells  []WarmupRow `json:"cells"`
}

// WarmupRow is one stack's or one cell's warm-ups: Case and Concurrency
// are empty on a stack's row. MedianRequests is the median number of
// requests a warm-up completed.
type WarmupRow struct {
	Stack          string  `json:"stack"`
	Case           string  `json:"case,omitempty"`
	Concurrency    int     `json:"concurrency,omitempty"`
	Windows        int     `json:"windows"`
	MedianSeconds  float64 `json:"median_s"`
	MaxSeconds     float64 `json:"max_s"`
	MedianRequests float64 `json:"median_requests"`
	NotSteady      int     `json:"not_steady"`
	Trend          int     `json:"trend"`
}

// warmupSummary summarises the final windows' warm-ups; nil when none
// had one.
func warmupSummary(finals []journal.Window) *WarmupSummary {
	type acc struct {
		row       WarmupRow
		secs, req []float64
	}
	var order []string
	byKey := map[string]*acc{}
	add := func(key string, row WarmupRow, w journal.Window) {
		a := byKey[key]
		if a == nil {
			a = &acc{row: row}
			byKey[key] = a
			order = append(order, key)
		}
		a.secs = append(a.secs, w.Load.WarmupSeconds)
		a.req = append(a.req, float64(w.Load.Warmup.Attempts))
		a.row.Windows++
		if w.HasFlag(journal.FlagNotSteady) {
			a.row.NotSteady++
		}
		if w.HasFlag(journal.FlagTrend) {
			a.row.Trend++
		}
	}
	s := &WarmupSummary{}
	var all []float64
	for _, w := range finals {
		if w.Load == nil || w.Load.WarmupSeconds == 0 {
			continue
		}
		add("s/"+w.Stack, WarmupRow{Stack: w.Stack}, w)
		add(fmt.Sprintf("c/%s/%s/%d", w.Stack, w.Case, w.Concurrency), WarmupRow{Stack: w.Stack, Case: w.Case, Concurrency: w.Concurrency}, w)
		all = append(all, w.Load.WarmupSeconds)
		s.Windows++
		if w.HasFlag(journal.FlagNotSteady) {
			s.NotSteady++
		}
		if w.HasFlag(journal.FlagTrend) {
			s.Trend++
		}
	}
	if s.Windows == 0 {
		return nil
	}
	s.MedianSeconds, s.MaxSeconds = median(all), slices.Max(all)
	for _, k := range order {
		a := byKey[k]
		a.row.MedianSeconds, a.row.MaxSeconds = median(a.secs), slices.Max(a.secs)
		a.row.MedianRequests = median(a.req)
		if strings.HasPrefix(k, "s/") {
			s.Stacks = append(s.Stacks, a.row)
		} else {
			s.Cells = append(s.Cells, a.row)
		}
	}
	return s
}

// median is the 0.5 quantile of non-empty values.
func median(values []float64) float64 {
	m, _ := stats.Quantile(values, 0.5)
	return m
}
