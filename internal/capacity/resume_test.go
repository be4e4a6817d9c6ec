package capacity

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// roundTrip sends probes through JSON, as a journal does, and gives each
// its load result back.
func roundTrip(t *testing.T, probes []Probe) []Probe {
	t.Helper()
	out := make([]Probe, len(probes))
	for i, p := range probes {
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		rb, err := json.Marshal(p.Result())
		if err != nil {
			t.Fatal(err)
		}
		var q Probe
		if err := json.Unmarshal(b, &q); err != nil {
			t.Fatal(err)
		}
		res := fakeResult(1, time.Second, time.Millisecond, 0)
		if err := json.Unmarshal(rb, res); err != nil {
			t.Fatal(err)
		}
		out[i] = q.WithResult(res)
	}
	return out
}

// A search stopped after any number of probes and given them back goes on
// exactly where it stopped: it measures only the probes the whole search
// measured after them, and ends with the same capacity, bracket, figures
// and probe list. The estimate, repeats and a failed confirmation are among
// the probes replayed.
func TestResumedSearchContinuesFromItsProbes(t *testing.T) {
	outcome := func(rate float64, n int) (time.Duration, float64) {
		if n == 2 || n == 18 { // a lone stall in the climb, a failed confirmation
			return time.Second, 0
		}
		return cliff(300)(rate, n)
	}
	full := &fakeProber{outcome: outcome, closed: 500}
	whole := fakeSearch(t, Config{}, full)
	if whole.Status != StatusConfirmed {
		t.Fatalf("the whole search: %s", whole.Status)
	}
	past := roundTrip(t, whole.Probes)
	for k := 0; k <= len(past); k++ {
		t.Run(fmt.Sprintf("after %d probes", k), func(t *testing.T) {
			// Rates after the estimate: an open-loop probe's number counts them.
			open := 0
			for _, p := range past[:k] {
				if p.Phase != PhaseEstimate {
					open++
				}
			}
			f := &fakeProber{closed: 500}
			f.outcome = func(rate float64, n int) (time.Duration, float64) { return outcome(rate, n+open) }
			rep := fakeSearch(t, Config{Past: past[:k]}, f)
			if got, want := rateList(f.rates), rateList(full.rates[open:]); got != want {
				t.Errorf("measured %s\nwant     %s", got, want)
			}
			if rep.Status != whole.Status || rep.CapacityRPS != whole.CapacityRPS || rep.LastPassRPS != whole.LastPassRPS ||
				rep.FirstFailRPS != whole.FirstFailRPS || len(rep.Probes) != len(whole.Probes) {
				t.Fatalf("%s %v (%v–%v) in %d probes; whole search %s %v (%v–%v) in %d", rep.Status, rep.CapacityRPS, rep.LastPassRPS, rep.FirstFailRPS,
					len(rep.Probes), whole.Status, whole.CapacityRPS, whole.LastPassRPS, whole.FirstFailRPS, len(whole.Probes))
			}
			if *rep.AtCapacity != *whole.AtCapacity {
				t.Errorf("at capacity %+v, whole search %+v", *rep.AtCapacity, *whole.AtCapacity)
			}
			for i, p := range rep.Probes {
				if p.Index != i+1 || p.Phase != whole.Probes[i].Phase || p.RateRPS != whole.Probes[i].RateRPS {
					t.Errorf("probe %d: %d %s %v; whole search %s %v", i+1, p.Index, p.Phase, p.RateRPS, whole.Probes[i].Phase, whole.Probes[i].RateRPS)
				}
			}
		})
	}
}

// The budget is the whole search's: the past probes' wall time is spent.
func TestResumedSearchKeepsItsBudget(t *testing.T) {
	f := &fakeProber{outcome: cliff(300)}
	first := fakeSearch(t, Config{StartRPS: 200, Budget: 14 * time.Second, Retries: -1}, f)
	past := roundTrip(t, first.Probes[:3])
	for i := range past {
		past[i].WallSeconds = 2.6 // 0.5 + 2 s and 0.1 s of overhead each
	}
	g := &fakeProber{outcome: cliff(300)}
	rep := fakeSearch(t, Config{StartRPS: 200, Budget: 14 * time.Second, Retries: -1, Past: past}, g)
	if len(g.rates) != 2 || rep.Status != StatusBudget || len(rep.Probes) != 5 {
		t.Errorf("measured %d more (%s), %s after %d probes; want 2 more and the budget after 5", len(g.rates), rateList(g.rates), rep.Status, len(rep.Probes))
	}
}

// Probes that are not the ones the rule asks for (another start, another
// resolution) are refused, not mixed into this search.
func TestResumeRefusesAnotherSearchsProbes(t *testing.T) {
	f := &fakeProber{outcome: cliff(300)}
	first := fakeSearch(t, Config{StartRPS: 200}, f)
	past := roundTrip(t, first.Probes[:4])
	g := &fakeProber{outcome: cliff(300)}
	cfg := Config{StartRPS: 300, Past: past, SLO: slo20ms, Now: g.clock}
	_, err := Search(t.Context(), cfg, g)
	if err == nil || !strings.Contains(err.Error(), "another configuration") || len(g.rates) != 0 {
		t.Errorf("err %v after %d probes; want a refusal before any probe", err, len(g.rates))
	}
}
