package journal

import (
	"fmt"
	"time"
)

// KindProfiling is one profile window of the profiling phase (Profiling).
const KindProfiling Kind = "profiling"

// Profiling is one profile window: after the measured rounds, one extra
// window per cell with sampling on (docs/profiles.md). It is never one of
// the cell's windows: calls, cells and steps read Window records only.
// Its measurement is a window record, so its throughput can be set against
// the cell's median (the profilers' overhead); its profiles are pprof files
// in the results directory, listed in Profiles.
type Profiling struct {
	// Key is ProfilingKey(stack, case, concurrency).
	Key         string    `json:"key"`
	Stack       string    `json:"stack"`
	Case        string    `json:"case"`
	Concurrency int       `json:"concurrency"`
	Time        time.Time `json:"time"`
	// Window is the measurement. Its Key is Key, Round and Slot are 0.
	Window Window `json:"window"`
	// Requests is what the profiles are divided by: the successful
	// responses of the window (Window.Load.Successes); 0 when the window
	// gave no result.
	Requests int64 `json:"requests"`
	// Profiles are the files written, by kind.
	Profiles []ProfileFile `json:"profiles,omitempty"`
	// Statements are pg_stat_statements over the window (reset just
	// before it), by total time, for a case that uses the database.
	Statements []Statement `json:"statements,omitempty"`
	// Problems say why a profile could not be taken (perf missing, a
	// pprof URL answering 404, …); the window stays.
	Problems []string `json:"problems,omitempty"`
}

// The kinds of profile files.
const (
	// ProfileGoCPU is the server's Go CPU profile (net/http/pprof's
	// /profile) over the window.
	ProfileGoCPU = "go_cpu"
	// ProfileGoAllocs is the difference of the server's allocation
	// profile (/allocs) between the window's end and its start.
	ProfileGoAllocs = "go_allocs"
	// ProfilePerfServer is perf's cpu-clock samples of the server's whole
	// process tree, user and kernel frames.
	ProfilePerfServer = "perf_server"
	// ProfilePerfDatabase is the same of the PostgreSQL processes.
	ProfilePerfDatabase = "perf_database"
)

// ProfileFile is one profile of a profile window.
type ProfileFile struct {
	// Kind is one of the Profile… constants.
	Kind string `json:"kind"`
	// Path is the pprof file (gzipped protocol buffer), relative to the
	// results directory.
	Path string `json:"path"`
	// Samples is the number of samples in it.
	Samples int64 `json:"samples"`
	// Seconds is how long it sampled.
	Seconds float64 `json:"seconds"`
	// RateHz is the sampling frequency (CPU profiles).
	RateHz int `json:"rate_hz,omitempty"`
}

// Statement is one statement of pg_stat_statements over a profile window.
type Statement struct {
	Query       string  `json:"query"`
	Calls       int64   `json:"calls"`
	TotalMillis float64 `json:"total_ms"`
	Rows        int64   `json:"rows"`
}

// ProfilingKey names the profile window of one cell.
func ProfilingKey(stack, cas string, concurrency int) string {
	return fmt.Sprintf("profiling/%s/%s/c%d", stack, cas, concurrency)
}

// ProfilingWindow returns the last profile window journaled with key.
func (r *Results) ProfilingWindow(key string) (Profiling, bool) {
	for i := len(r.Profiling) - 1; i >= 0; i-- {
		if r.Profiling[i].Key == key {
			return r.Profiling[i], true
		}
	}
	return Profiling{}, false
}
