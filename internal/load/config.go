// Package load is stackbench's load engine: keep-alive HTTP/1.1
// connections driven in a closed loop (each connection sends its next
// request when the previous answer is complete) or an open loop (a fixed
// schedule of sends, latency measured from the intended send time). It is a
// library: Run takes a Config and returns a Result; it reads no flags or
// files and prints nothing. Flags (argv.go) is the command line of
// `stackbench load`, kept here so that the command and the harness that
// starts it per window share it.
package load

import (
	"fmt"
	"math"
	"time"
)

// Config describes one load run. Zero values get the defaults noted on each
// field.
type Config struct {
	// URL is the target, http://host:port/path, or https:// for TLS.
	URL string
	// TLS speaks TLS to the target even when URL's scheme is http.
	TLS bool
	// CACertPEM holds the certificates (PEM) the target's certificate must
	// chain to: the throwaway CA the harness made for the run (see
	// WriteThrowawayCA). Empty: the system's roots. The certificate is
	// always checked; there is no switch to skip it.
	CACertPEM []byte
	// TLSResume lets a reopened connection resume its TLS session (a
	// ticket from an earlier handshake) instead of a full handshake.
	TLSResume bool
	// Protocol is how the requests go on the wire: ProtoHTTP1 (the
	// default), ProtoH2C (HTTP/2 in cleartext, with prior knowledge),
	// ProtoH2 (HTTP/2 over TLS, agreed through ALPN) or ProtoGRPC (gRPC
	// unary over HTTP/2: cleartext, or TLS for an https URL or with TLS).
	Protocol string
	// Streams is the number of requests in flight at once on each HTTP/2
	// connection (default 1); HTTP/1.1 has one.
	Streams int
	// GRPC is the call for ProtoGRPC: its method and its request message,
	// already encoded (see GRPCCall).
	GRPC *GRPCCall
	// Method is the request method (default GET).
	Method string
	// Headers are added to every request built from URL; Host, Content-Length
	// and User-Agent are set by the engine unless given here.
	Headers []Header
	// Body is sent with every request built from URL.
	Body []byte
	// Requests, when not empty, replaces Method, the URL's path, Headers and
	// Body: the pool is used round-robin, in order, across all connections.
	Requests []Request
	// Mix, when not empty, makes the run a weighted mix of routes: every
	// request of Requests names one of its routes (Request.Route), and the
	// requests go out in one fixed interleaving of the routes by weight (a
	// smooth weighted round-robin, its start chosen by Seed), each route
	// cycling over its own requests in order. The Result then has a figure
	// per route (Result.Routes) beside the mix's.
	Mix []MixRoute
	// Seed chooses where in the mix's cycle the sequence starts: one seed
	// gives every run, and every stack, the same sequence. A flow's users
	// seed their ${rand:…} draws with it.
	Seed uint64
	// Flow, when set, makes each connection (over HTTP/2, each stream) a
	// virtual user running the flow again and again: the Result then has
	// the flows' figures (Result.Flow) beside the requests'.
	Flow *Flow
	// FirstUser numbers this run's first connection for Flow's users: its
	// connections are FirstUser, FirstUser+1, …, and connection k's users
	// are k×S … k×S+S−1 for S streams a connection (S = 1 over
	// HTTP/1.1): generators that
	// share one flow's users between them (on several hosts) each start
	// where the one before ended, so that every user keeps the draws and
	// list elements it has in one run with all of them. Default 0.
	FirstUser int
	// Connections is the number of keep-alive connections (default 64); in
	// open loop, the most that may be in flight at once.
	Connections int
	// Rate, when above zero, selects the open loop: requests per second in
	// total, on a fixed schedule.
	Rate float64
	// Duration is the measured window (default 10s).
	Duration time.Duration
	// Warmup runs before the measured window on the same connections and is
	// reported separately (default none).
	Warmup time.Duration
	// WarmupMax, when above Warmup, makes the warm-up adaptive: it lasts
	// at least Warmup and ends when the throughput is steady (WarmupRule,
	// in slices of WarmupSlice(Warmup)), or at WarmupMax.
	WarmupMax time.Duration
	// Timeout fails a request that has no complete answer after this long
	// (default 60s). A connection whose request timed out is reopened.
	Timeout time.Duration
	// Expect lists the statuses that count as success (default any 2xx).
	Expect []int
	// AllowRemote permits a target that is not a loopback address.
	AllowRemote bool
	// StartAt, when set, is the wall-clock instant the run's clock starts
	// (the warm-up, or the window without one): Run opens its connections
	// first, then waits for it. Generators on several hosts given one
	// instant (each on its own clock) measure the same window. An instant
	// already past starts at once.
	StartAt time.Time
	// Progress, when set, receives the run's events (see Event). It is
	// called from the engine's own goroutines, at the moment each event
	// happens, and must return quickly.
	Progress func(Event)
}

// The protocols of Config.Protocol.
const (
	ProtoHTTP1 = "http1"
	ProtoH2C   = "h2c"
	ProtoH2    = "h2"
	ProtoGRPC  = "grpc"
)

// Header is one request header.
type Header struct {
	Name, Value string
}

// Request is one entry of a request pool: one line of a --requests file.
type Request struct {
	Method  string            `json:"method"`
	Path    string            `json:"path"`
	Headers map[string]string `json:"headers,omitempty"`
	Body    string            `json:"body,omitempty"`
	// Route names the route of Config.Mix the request belongs to (only in
	// a mix).
	Route string `json:"route,omitempty"`
	// Expect, when not empty, lists the statuses that count as success for
	// this request, in place of Config.Expect (a mix's routes answer
	// differently: 200 for a read, 201 for a write).
	Expect []int `json:"expect,omitempty"`
}

// MixRoute is one route of a mix and its weight: its share of the
// requests is Weight over the sum of the weights.
type MixRoute struct {
	Name   string `json:"name"`
	Weight int    `json:"weight"`
}

// maxStreams bounds Config.Streams.
const maxStreams = 1000

// Defaults applied by Run to a zero Config field.
const (
	DefaultConnections = 64
	DefaultDuration    = 10 * time.Second
	DefaultTimeout     = 60 * time.Second
)

// ConfigError is invalid input: Run did not start. Field names the Config
// field (or the pool line) at fault.
type ConfigError struct {
	Field string
	Msg   string
}

func (e *ConfigError) Error() string { return e.Field + ": " + e.Msg }

func configErrorf(field, format string, a ...any) error {
	return &ConfigError{Field: field, Msg: fmt.Sprintf(format, a...)}
}

// withDefaults returns cfg with the zero fields set to their defaults and
// checks the numeric fields.
func withDefaults(cfg Config) (Config, error) {
	if cfg.Method == "" {
		cfg.Method = "GET"
	}
	if cfg.Connections == 0 {
		cfg.Connections = DefaultConnections
	}
	if cfg.Duration == 0 {
		cfg.Duration = DefaultDuration
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.Protocol == "" {
		cfg.Protocol = ProtoHTTP1
	}
	if cfg.Streams == 0 {
		cfg.Streams = 1
	}
	if cfg.Protocol == ProtoH2 {
		cfg.TLS = true
	}
	switch {
	case cfg.Connections < 0:
		return cfg, configErrorf("connections", "must be at least 1, got %d", cfg.Connections)
	case cfg.FirstUser < 0 || cfg.FirstUser > 0 && cfg.Flow == nil:
		return cfg, configErrorf("first_user", "numbers a flow's users from 0 up; got %d (with a flow: %v)", cfg.FirstUser, cfg.Flow != nil)
	case cfg.Rate < 0 || math.IsNaN(cfg.Rate) || math.IsInf(cfg.Rate, 0):
		return cfg, configErrorf("rate", "must be a finite number above 0 requests per second, got %v", cfg.Rate)
	case cfg.Duration < 0:
		return cfg, configErrorf("duration", "must be positive, got %v", cfg.Duration)
	case cfg.Warmup < 0:
		return cfg, configErrorf("warmup", "must not be negative, got %v", cfg.Warmup)
	case cfg.WarmupMax < 0:
		return cfg, configErrorf("warmup_max", "must not be negative, got %v", cfg.WarmupMax)
	case cfg.WarmupMax > 0 && cfg.Warmup == 0:
		return cfg, configErrorf("warmup_max", "needs a warm-up floor (warmup) above 0; got warmup_max %v without one", cfg.WarmupMax)
	case cfg.Timeout < time.Millisecond:
		return cfg, configErrorf("timeout", "must be at least 1ms, got %v", cfg.Timeout)
	case cfg.Protocol != ProtoHTTP1 && cfg.Protocol != ProtoH2C && cfg.Protocol != ProtoH2 && cfg.Protocol != ProtoGRPC:
		return cfg, configErrorf("protocol", "%q is not one of http1, h2c, h2, grpc", cfg.Protocol)
	case cfg.Streams < 1 || cfg.Streams > maxStreams:
		return cfg, configErrorf("streams", "must be from 1 to %d, got %d", maxStreams, cfg.Streams)
	case cfg.Streams > 1 && cfg.Protocol == ProtoHTTP1:
		return cfg, configErrorf("streams", "%d streams per connection need HTTP/2 (h2c, h2 or grpc); HTTP/1.1 carries one request at a time", cfg.Streams)
	case cfg.Protocol == ProtoGRPC && cfg.GRPC == nil:
		return cfg, configErrorf("grpc", "a gRPC run needs its call: the method and the request message")
	case cfg.Protocol == ProtoGRPC && len(cfg.Requests) > 0:
		return cfg, configErrorf("requests", "a request pool is HTTP's; a gRPC run sends its call's message")
	}
	for _, s := range cfg.Expect {
		if s < 100 || s > 999 {
			return cfg, configErrorf("expect", "%d is not an HTTP status (100–999)", s)
		}
	}
	for i, r := range cfg.Requests {
		for _, s := range r.Expect {
			if s < 100 || s > 999 {
				return cfg, configErrorf(fmt.Sprintf("requests[%d]", i), "expect %d is not an HTTP status (100–999)", s)
			}
		}
	}
	if len(cfg.Mix) > 0 || len(cfg.Requests) > 0 && cfg.Requests[0].Route != "" {
		if err := checkMix(cfg.Mix, cfg.Requests); err != nil {
			return cfg, err
		}
	}
	return cfg, nil
}
