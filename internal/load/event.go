package load

import (
	"encoding/json"
	"strconv"
)

// EventKind names a run event.
type EventKind string

// The events of a run, in order: WarmupStart and MeasureAt (only with a
// warm-up), MeasureStart, one Tick per second of the measured window,
// MeasureEnd. MeasureAt announces when the window will start: at once
// after WarmupStart for a fixed warm-up, when the rule decides for an
// adaptive one (Config.WarmupMax), at least a slice ahead as a rule.
const (
	WarmupStart  EventKind = "warmup_start"
	MeasureAt    EventKind = "measure_at"
	MeasureStart EventKind = "measure_start"
	Tick         EventKind = "tick"
	MeasureEnd   EventKind = "measure_end"
)

// Event is one moment of a run, delivered to Config.Progress.
// MeasureStart and MeasureEnd are emitted by the engine's first worker at
// the boundary of the measured window, when it sees the boundary pass
// (within about a millisecond).
type Event struct {
	Kind EventKind
	// UnixNano is the wall-clock time of the event; for MeasureAt, of the
	// window's start it announces; for MeasureStart and MeasureEnd, of the
	// boundary itself (Result.MeasureStartUnixNano and
	// MeasureEndUnixNano), which the event follows within about 1 ms.
	UnixNano int64
	// ElapsedSeconds, Successes and Errors are set on Tick: the second of
	// the measured window that just ended (1 for the first) and the
	// responses completed in it. The final Result's timeline is exact;
	// a tick may miss a response that completed in the last microseconds
	// of its second on another worker.
	ElapsedSeconds int
	Successes      int64
	Errors         int64
}

// MarshalJSON writes the event as one line of the --events-fd stream:
// {"event":"tick","elapsed_s":1,"successes":..,"errors":..,"unix_ns":..}
// for ticks and {"event":"measure_start","unix_ns":..} otherwise.
func (e Event) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 128)
	b = append(b, `{"event":"`...)
	b = append(b, e.Kind...)
	b = append(b, '"')
	if e.Kind == Tick {
		b = append(b, `,"elapsed_s":`...)
		b = strconv.AppendInt(b, int64(e.ElapsedSeconds), 10)
		b = append(b, `,"successes":`...)
		b = strconv.AppendInt(b, e.Successes, 10)
		b = append(b, `,"errors":`...)
		b = strconv.AppendInt(b, e.Errors, 10)
	}
	b = append(b, `,"unix_ns":`...)
	b = strconv.AppendInt(b, e.UnixNano, 10)
	return append(b, '}'), nil
}

// UnmarshalJSON reads what MarshalJSON writes.
func (e *Event) UnmarshalJSON(data []byte) error {
	var w struct {
		Event     EventKind `json:"event"`
		UnixNano  int64     `json:"unix_ns"`
		ElapsedS  int       `json:"elapsed_s"`
		Successes int64     `json:"successes"`
		Errors    int64     `json:"errors"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*e = Event{Kind: w.Event, UnixNano: w.UnixNano, ElapsedSeconds: w.ElapsedS, Successes: w.Successes, Errors: w.Errors}
	return nil
}
