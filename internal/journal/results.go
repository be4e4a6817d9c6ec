package journal

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/stackbench/stackbench/internal/plan"
)

// ResultsFile is the name of the whole-run JSON document in a results
// directory.
const ResultsFile = "results.json"

// Results is results.json: the journal gathered into one document — the
// plan, every environment, parity and boot records, every window try (final
// or redone) and every event, in journal order.
type Results struct {
	SchemaVersion int           `json:"schema_version"`
	Plan          *Plan         `json:"plan"`
	Environments  []Environment `json:"environments"`
	Parity        []Parity      `json:"parity"`
	Boot          []Boot        `json:"boot"`
	Windows       []Window      `json:"windows"`
	Events        []Event       `json:"events"`
	// Rounds are an adaptive run's decisions, in journal order.
	Rounds []Round `json:"rounds,omitempty"`
	// Capacity holds the capacity phase's probes and searches' ends.
	Capacity CapacityRecords `json:"capacity,omitzero"`
	// Profiling holds the profiling phase's windows, in journal order.
	Profiling []Profiling `json:"profiling,omitempty"`
	// Latency holds every try of the latency windows, LatencyRates their
	// rates' decisions, in journal order.
	Latency      []Window      `json:"latency,omitempty"`
	LatencyRates []LatencyRate `json:"latency_rates,omitempty"`
	// DX and Process are the dx and process phases' results; nil when
	// the run had none (a later record of either wins).
	DX      *DX      `json:"dx,omitempty"`
	Process *Process `json:"process,omitempty"`
	// JournalProblems lists journal lines that could not be read.
	JournalProblems []string `json:"journal_problems,omitempty"`
}

// CapacityRecords are the capacity phase's records, in journal order.
type CapacityRecords struct {
	Probes   []CapacityProbe  `json:"probes,omitempty"`
	Searches []CapacitySearch `json:"searches,omitempty"`
}

// ErrNoPlan is the error of ReadDir for a journal without a plan record:
// stackbench run did not write it, or was stopped before it began.
var ErrNoPlan = errors.New("the journal has no plan record")

// ReadDir gathers a results directory's journal into Results: the one
// reader of journals, for reports and for a resume alike. It is tolerant:
// a line that does not read (a torn last line, a record that does not
// decode) is skipped and listed in JournalProblems.
func ReadDir(dir string) (*Results, error) {
	lines, problems, err := ReadFile(filepath.Join(dir, FileName))
	if err != nil {
		return nil, err
	}
	return gather(dir, lines, problems)
}

// gather decodes the records of the journal of dir (named in its error)
// into Results.
func gather(dir string, lines []Line, problems []Problem) (*Results, error) {
	res := NewResults()
	for _, p := range problems {
		res.JournalProblems = append(res.JournalProblems, p.String())
	}
	for _, l := range lines {
		res.Add(l)
	}
	if res.Plan == nil {
		return nil, fmt.Errorf("%s: %w; is this a stackbench results directory?", dir, ErrNoPlan)
	}
	return res, nil
}

// NewResults returns an empty Results, ready for Add: what ReadDir starts
// from, and what a reader that follows a growing journal folds its new
// lines into.
func NewResults() *Results {
	return &Results{SchemaVersion: SchemaVersion, Environments: []Environment{},
		Parity: []Parity{}, Boot: []Boot{}, Windows: []Window{}, Events: []Event{}}
}

// Add folds one journal line into res, as ReadDir does: a record that does
// not decode is listed in JournalProblems; a kind it does not know is
// skipped.
func (res *Results) Add(l Line) {
	var err error
	switch l.Kind {
	case KindPlan:
		var p Plan
		err = l.Decode(&p)
		res.Plan = &p
	case KindEnvironment:
		var e Environment
		err = l.Decode(&e)
		res.Environments = append(res.Environments, e)
	case KindParity:
		var p Parity
		err = l.Decode(&p)
		res.Parity = append(res.Parity, p)
	case KindBoot:
		var b Boot
		err = l.Decode(&b)
		res.Boot = append(res.Boot, b)
	case KindWindow:
		var w Window
		err = l.Decode(&w)
		res.Windows = append(res.Windows, w)
	case KindRound:
		var r Round
		err = l.Decode(&r)
		res.Rounds = append(res.Rounds, r)
	case KindEvent:
		var e Event
		err = l.Decode(&e)
		res.Events = append(res.Events, e)
	case KindCapacityProbe:
		var p CapacityProbe
		if err = l.Decode(&p); err == nil {
			res.Capacity.Probes = append(res.Capacity.Probes, p)
		}
	case KindProfiling:
		var p Profiling
		if err = l.Decode(&p); err == nil {
			res.Profiling = append(res.Profiling, p)
		}
	case KindLatency:
		var w Window
		if err = l.Decode(&w); err == nil {
			res.Latency = append(res.Latency, w)
		}
	case KindLatencyRate:
		var lr LatencyRate
		if err = l.Decode(&lr); err == nil {
			res.LatencyRates = append(res.LatencyRates, lr)
		}
	case KindDX:
		var d DX
		if err = l.Decode(&d); err == nil {
			res.DX = &d
		}
	case KindProcess:
		var p Process
		if err = l.Decode(&p); err == nil {
			res.Process = &p
		}
	case KindCapacity:
		var s CapacitySearch
		if err = l.Decode(&s); err == nil {
			res.Capacity.Searches = append(res.Capacity.Searches, s)
		}
	}
	if err != nil {
		res.JournalProblems = append(res.JournalProblems, err.Error())
	}
}

// RunPlan is the plan the run was made from, as its plan record holds
// it: stacks' secret env values redacted, and the fields plan.Plan does
// not journal (json:"-": a stack's fixture, file lines) zero. The zero
// plan when there is none.
func (r *Results) RunPlan() plan.Plan {
	if r.Plan == nil {
		return plan.Plan{}
	}
	return r.Plan.Plan
}

// PlannedWindows are the plan's windows followed by every extra round's
// (an adaptive run's Round records), in run order.
func (r *Results) PlannedWindows() []plan.Window {
	var out []plan.Window
	if r.Plan != nil {
		out = append(out, r.Plan.Plan.Windows...)
	}
	for _, rd := range r.Rounds {
		out = append(out, rd.Windows...)
	}
	return out
}

// Stopped returns the Round record that ended an adaptive run's extra
// rounds, if the journal has one.
func (r *Results) Stopped() (Round, bool) {
	for _, rd := range r.Rounds {
		if rd.Stop != "" {
			return rd, true
		}
	}
	return Round{}, false
}

// FinalWindows returns, in plan order, the final try of every window key:
// the windows reports use. Tries that were redone are left out.
func (r *Results) FinalWindows() []Window {
	return finals(r.Windows)
}
