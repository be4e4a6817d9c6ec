package agent

import (
	"context"
	"fmt"
	"time"
)

// ClockSample is one clock exchange: the coordinator's clock when it sent
// the request and when the answer came back, and the agent's clock when
// it read the request.
type ClockSample struct {
	Sent, Received time.Time
	Agent          time.Time
}

// Delay is the exchange's round trip.
func (s ClockSample) Delay() time.Duration { return s.Received.Sub(s.Sent) }

// Offset is how far the agent's clock is ahead of ours, assuming the
// request and the answer took equal times (NTP's assumption): the error is
// at most half the Delay.
func (s ClockSample) Offset() time.Duration {
	mid := s.Sent.Add(s.Received.Sub(s.Sent) / 2)
	return s.Agent.Sub(mid)
}

// ClockOffset is an estimate of an agent's clock offset.
type ClockOffset struct {
	// Offset is the agent's clock minus ours: an instant t of ours is
	// t+Offset on the agent's clock.
	Offset time.Duration
	// Bound is the worst-case error of Offset: half the round trip of
	// the exchange it came from.
	Bound time.Duration
	// Exchanges is how many exchanges were made.
	Exchanges int
}

// String is "+1.2ms ± 0.3ms".
func (o ClockOffset) String() string {
	sign := "+"
	if o.Offset < 0 {
		sign = "-"
	}
	return fmt.Sprintf("%s%s ± %s", sign, (o.Offset.Abs()).Round(time.Microsecond), o.Bound.Round(time.Microsecond))
}

// EstimateOffset picks the exchange with the smallest round trip: queueing
// and scheduling only ever add delay, so the fastest exchange is the one
// least skewed by an asymmetric wait. It returns false without samples.
func EstimateOffset(samples []ClockSample) (ClockOffset, bool) {
	if len(samples) == 0 {
		return ClockOffset{}, false
	}
	best := samples[0]
	for _, s := range samples[1:] {
		if s.Delay() < best.Delay() {
			best = s
		}
	}
	return ClockOffset{Offset: best.Offset(), Bound: best.Delay() / 2, Exchanges: len(samples)}, true
}

// Clock makes n clock exchanges, one after another, and estimates the
// agent's offset from them.
func (c *Client) Clock(ctx context.Context, n int) (ClockOffset, error) {
	samples := make([]ClockSample, 0, n)
	for range n {
		sent := time.Now()
		resp, err := c.call(ctx, Request{Op: OpClock})
		received := time.Now()
		if err != nil {
			return ClockOffset{}, err
		}
		samples = append(samples, ClockSample{Sent: sent, Received: received, Agent: resp.Now})
	}
	o, ok := EstimateOffset(samples)
	if !ok {
		return ClockOffset{}, fmt.Errorf("%s: no clock exchange made", c.host)
	}
	return o, nil
}
