package journal

import (
	"strconv"
	"time"

	"github.com/stackbench/stackbench/internal/capacity"
)

// CapacityProbe is one probe of a capacity search (the plan's capacity
// phase): the search's probe and verdict, and the measurement behind it in
// the form of a window record (the load result, every process tree's CPU
// and memory, the database state, the host-speed probe, the timings), so
// that reports read a probe's server figures as they read a window's.
// A resumed run replays a search's probes from these records, in journal
// order, and goes on from where they stop.
type CapacityProbe struct {
	// Search names the search: CapacitySearchKey(stack, case, index).
	Search string `json:"search"`
	// SearchIndex numbers the searches of one stack × case from 1 (the
	// plan's capacity searches); 0 in journals written before repeated
	// searches, whose one search is the first (Index).
	SearchIndex int    `json:"search_index,omitempty"`
	Stack       string `json:"stack"`
	Case        string `json:"case"`
	// SLO is the case's objective as written ("p99=20ms").
	SLO string `json:"slo"`
	// ClosedLoopRPS is the closed-loop throughput the search started from
	// (the cell's, measured in this run); 0 when none was valid and the
	// search measured one with its estimate probe.
	ClosedLoopRPS float64 `json:"closed_loop_rps"`
	// Probe is the search's probe and verdict; its load result is
	// Window.Load.
	Probe capacity.Probe `json:"probe"`
	// Window is the measurement. Its Key is the search's and the probe's
	// index ("capacity/gin/user/p3", "capacity/gin/user/s2/p3"), Concurrency the generator's
	// connections; Round and Slot are 0. Window flags are recorded as
	// for any window and do not change the probe's verdict.
	Window Window `json:"window"`
}

// CapacitySearch is a capacity search's end: its outcome (the capacity,
// or the bracket and why there is none). A search without this record
// was stopped; a resumed run goes on with it.
type CapacitySearch struct {
	Search string `json:"search"`
	// SearchIndex is the search's number among its stack × case's, from
	// 1 (0 in journals before repeated searches: Index).
	SearchIndex int       `json:"search_index,omitempty"`
	Stack       string    `json:"stack"`
	Case        string    `json:"case"`
	Time        time.Time `json:"time"`
	// Report is the search's report without its probes (they are the
	// search's CapacityProbe records).
	Report capacity.Report `json:"report"`
	// Error says why the search stopped early (status failed): the server
	// would not start, died, or the generator failed.
	Error string `json:"error,omitempty"`
}

// CapacityKey names the searches of one stack and case, and the first of
// them (CapacitySearchKey).
func CapacityKey(stack, cas string) string { return "capacity/" + stack + "/" + cas }

// CapacitySearchKey names the index-th search (from 1) of one stack and
// case: CapacityKey for the first, as in journals written before repeated
// searches, "capacity/gin/user/s2" for the second.
func CapacitySearchKey(stack, cas string, index int) string {
	k := CapacityKey(stack, cas)
	if index > 1 {
		k += "/s" + strconv.Itoa(index)
	}
	return k
}

// Index is the probe's search's number, from 1.
func (p CapacityProbe) Index() int { return max(1, p.SearchIndex) }

// Index is the search's number, from 1.
func (s CapacitySearch) Index() int { return max(1, s.SearchIndex) }

// CapacityProbes returns the probes of one search, in journal order.
func (r *Results) CapacityProbes(search string) []CapacityProbe {
	var out []CapacityProbe
	for _, p := range r.Capacity.Probes {
		if p.Search == search {
			out = append(out, p)
		}
	}
	return out
}

// CapacitySearch returns the end record of one search, if it ended.
func (r *Results) CapacitySearch(search string) (CapacitySearch, bool) {
	for _, s := range r.Capacity.Searches {
		if s.Search == search {
			return s, true
		}
	}
	return CapacitySearch{}, false
}
