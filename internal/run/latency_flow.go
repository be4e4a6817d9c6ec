package run

import (
	"strings"

	"github.com/stackbench/stackbench/internal/load"
)

// behind is what judgeBehind counts of a latency window, and the words
// it says them with: its requests, or for a flow case its flows (load
// --flow -R offers flows; a failed flow is never throughput).
type behind struct {
	sent, unsent, unfinished, failed int64
	errors                           map[string]int64
	served                           float64
	one, noun, unit, slot            string
	sentVerb, servedVerb, unanswered string
	// orUsers names the other cause of unsent flows: a user holds its
	// flow, think times included, until it ends, so too few users for
	// the rate × a flow's duration leave flows unstarted with the server
	// keeping up.
	orUsers string
}

// behindOf reads a window's requests, or its flows when it ran one: a
// flow is unfinished when a step was still unanswered at the drain's end
// (its failure class "STEP: unfinished").
func behindOf(res *load.Result) behind {
	fl := res.Flow
	if fl == nil {
		return behind{sent: res.Attempts, unsent: res.Unsent, unfinished: res.Errors["unfinished"], failed: res.ErrorCount(),
			errors: res.Errors, served: res.ThroughputRPS, one: "request", noun: "requests", unit: "req/s", slot: "connection",
			sentVerb: "sent", servedVerb: "served", unanswered: "were still unanswered"}
	}
	var unfinished int64
	for k, n := range fl.Failures {
		if strings.HasSuffix(k, ": unfinished") {
			unfinished += n
		}
	}
	return behind{sent: fl.Started, unsent: fl.Unsent, unfinished: unfinished, failed: fl.Failed,
		errors: fl.Failures, served: fl.FlowsPerSecond, one: "flow", noun: "flows", unit: "flows/s", slot: "user",
		sentVerb: "started", servedVerb: "completed", unanswered: "had a step still unanswered",
		orUsers: ", or the users were too few for it (each holds a flow, think times included, until it ends: give more concurrency)"}
}
