package load

import (
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Flags is the command line of `stackbench load`, kept beside Config so that
// the command that parses it (internal/cli) and the harness that writes it
// for each window (internal/run) share one list of flag names: Register
// binds the flags to a FlagSet, Args writes them back, and Config turns them
// into the engine's Config. Run itself reads no flags.
type Flags struct {
	Connections int
	Rate        float64
	Duration    time.Duration
	Warmup      time.Duration
	WarmupMax   time.Duration
	Timeout     time.Duration
	Method      string
	// Headers are "Name: value", in order.
	Headers []string
	Body    string
	// BodyFile and Requests name files the command reads (relative to its
	// directory): the request body, and a JSON-lines pool of requests.
	BodyFile string
	Requests string
	// Expect is a comma-separated list of statuses, e.g. "200,204".
	Expect string
	// Mix is a mix's routes and weights, "user=60,list=30,create-order=10"
	// (Config.Mix), the pool's requests naming their routes; Seed is
	// Config.Seed.
	Mix  string
	Seed uint64
	// Flow names a JSON file of a flow (Config.Flow) the command reads.
	Flow string
	// FirstUser is Config.FirstUser.
	FirstUser int
	// TLS, CACert and TLSResume are Config.TLS, a PEM file the command
	// reads into Config.CACertPEM, and Config.TLSResume.
	TLS       bool
	CACert    string
	TLSResume bool
	// H2, H2C and Streams choose HTTP/2 over TLS or in cleartext, and the
	// streams per connection (Config.Protocol, Config.Streams).
	H2, H2C bool
	Streams int
	// GRPC ("package.Service/Method"), Proto (a .proto file, or a
	// descriptor set, .pb/.protoset) and Message (the request as JSON)
	// make a gRPC run; the command turns them into Config.GRPC.
	GRPC, Proto, Message string
	// Messages names a file of request messages, one JSON message a line,
	// sent round-robin instead of Message (a templated case's variants).
	Messages string
	// Metadata names a file of gRPC request metadata, one JSON object of
	// names to values a line, line k sent with message k (of Messages, or
	// Message for a file of one line): a templated case's metadata.
	// Metadata every call carries alike is given as Headers (-H).
	Metadata string
	// Reflect asks the server for the method's descriptors (gRPC server
	// reflection) instead of Proto.
	Reflect     bool
	AllowRemote bool
	// Output is "text" or "json".
	Output string
	// EventsFD is an inherited descriptor for the run's events as JSON
	// lines (-1: none).
	EventsFD int
	// StartAt is Config.StartAt (zero: start at once).
	StartAt time.Time
}

// Register binds f's fields to their flags on fs, with their defaults.
func (f *Flags) Register(fs *flag.FlagSet) {
	f.RegisterTarget(fs, DefaultConnections)
	fs.Float64Var(&f.Rate, "R", 0, "open loop: requests per second in total (default: closed loop)")
	fs.DurationVar(&f.Duration, "d", DefaultDuration, "measured duration")
	fs.DurationVar(&f.Warmup, "warmup", 0, "warm-up before the measured window, on the same connections, reported apart")
	fs.DurationVar(&f.WarmupMax, "warmup-max", 0, "with --warmup: warm up until throughput is steady, at most this long")
	fs.IntVar(&f.EventsFD, "events-fd", -1, "write run events as JSON lines to this inherited file descriptor")
	fs.Func("start-at", "start at this instant (RFC 3339, e.g. 2026-01-02T15:04:05.123456789Z), after opening the connections", func(v string) error {
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			return fmt.Errorf("want an instant like 2026-01-02T15:04:05.123456789Z")
		}
		f.StartAt = t
		return nil
	})
}

// RegisterTarget binds only the flags that say what to send where —
// connections (default connections), the request, the success statuses,
// the timeout, the output format and --allow-remote — for a command that
// sets the rate and the durations itself (stackbench capacity). The
// fields it leaves alone keep their values.
func (f *Flags) RegisterTarget(fs *flag.FlagSet, connections int) {
	f.EventsFD = -1
	fs.IntVar(&f.Connections, "c", connections, "connections, kept alive (open loop: the most in flight)")
	fs.StringVar(&f.Method, "m", "GET", "request method")
	fs.Var((*repeated)(&f.Headers), "H", "request header 'Name: value' (repeatable)")
	fs.StringVar(&f.Body, "b", "", "request body")
	fs.StringVar(&f.BodyFile, "body-file", "", "read the request body from a file")
	fs.StringVar(&f.Requests, "requests", "", "JSON-lines pool of requests {method,path,headers,body}, used round-robin")
	fs.StringVar(&f.Expect, "expect", "", "statuses that count as success, e.g. 201 or 200,204 (default any 2xx)")
	fs.StringVar(&f.Mix, "mix", "", "with --requests: a weighted mix of routes, e.g. user=60,list=30,create-order=10 (each pool line names its \"route\")")
	fs.Uint64Var(&f.Seed, "seed", 0, "with --mix: where the mix's sequence starts; one seed, one sequence (with --flow: the users' draws)")
	fs.StringVar(&f.Flow, "flow", "", "a JSON file of a flow: each connection (HTTP/2: each stream) a user running its steps in turn, with captures")
	fs.IntVar(&f.FirstUser, "first-user", 0, "with --flow: the number of the first connection's user (over HTTP/2 its streams are users N×streams on), for generators sharing one flow's users (each its own range)")
	fs.DurationVar(&f.Timeout, "t", DefaultTimeout, "request timeout")
	fs.StringVar(&f.Output, "o", "text", "output: text or json")
	fs.BoolVar(&f.AllowRemote, "allow-remote", false, "allow a target that is not a loopback address")
	fs.BoolVar(&f.TLS, "tls", false, "speak TLS (also implied by an https:// URL)")
	fs.StringVar(&f.CACert, "cacert", "", "with TLS: trust the server's certificate through this CA file (PEM); default the system's roots")
	fs.BoolVar(&f.TLSResume, "tls-resume", false, "with TLS: reopened connections resume their session instead of a full handshake")
	fs.BoolVar(&f.H2, "h2", false, "HTTP/2 over TLS (agreed through ALPN)")
	fs.BoolVar(&f.H2C, "h2c", false, "HTTP/2 in cleartext, with prior knowledge")
	fs.IntVar(&f.Streams, "streams", 1, "HTTP/2 and gRPC: requests in flight at once on each connection")
	fs.StringVar(&f.GRPC, "grpc", "", "gRPC unary call to this method, package.Service/Method (with --proto and --message)")
	fs.StringVar(&f.Proto, "proto", "", "with --grpc: the service's .proto file, or a descriptor set (.pb, .protoset)")
	fs.StringVar(&f.Message, "message", "", "with --grpc: the request message as JSON (protobuf's JSON mapping)")
	fs.StringVar(&f.Messages, "messages", "", "with --grpc: a file of request messages, one JSON message a line, sent round-robin (instead of --message)")
	fs.StringVar(&f.Metadata, "metadata", "", "with --grpc: a file of request metadata, one JSON object {\"name\": \"value\"} a line, line k sent with message k (metadata every call carries: -H)")
	fs.BoolVar(&f.Reflect, "reflect", false, "with --grpc: ask the server for the descriptors (gRPC server reflection) instead of --proto")
}

// Args writes f as the arguments of `stackbench load`, url last; parsing
// them with Register gives f back. Flags at their zero value are left out.
func (f Flags) Args(url string) []string {
	var args []string
	add := func(name, value string) { args = append(args, name, value) }
	add("-c", strconv.Itoa(f.Connections))
	if f.Rate != 0 {
		add("-R", strconv.FormatFloat(f.Rate, 'g', -1, 64))
	}
	add("-d", f.Duration.String())
	if f.Warmup != 0 {
		add("--warmup", f.Warmup.String())
	}
	if f.WarmupMax != 0 {
		add("--warmup-max", f.WarmupMax.String())
	}
	add("-t", f.Timeout.String())
	if f.Method != "" {
		add("-m", f.Method)
	}
	for _, h := range f.Headers {
		add("-H", h)
	}
	if f.Body != "" {
		add("-b", f.Body)
	}
	if f.BodyFile != "" {
		add("--body-file", f.BodyFile)
	}
	if f.Requests != "" {
		add("--requests", f.Requests)
	}
	if f.Expect != "" {
		add("--expect", f.Expect)
	}
	if f.Mix != "" {
		add("--mix", f.Mix)
	}
	if f.Seed != 0 {
		add("--seed", strconv.FormatUint(f.Seed, 10))
	}
	if f.Flow != "" {
		add("--flow", f.Flow)
	}
	if f.FirstUser != 0 {
		add("--first-user", strconv.Itoa(f.FirstUser))
	}
	if f.AllowRemote {
		args = append(args, "--allow-remote")
	}
	if f.TLS {
		args = append(args, "--tls")
	}
	if f.CACert != "" {
		add("--cacert", f.CACert)
	}
	if f.TLSResume {
		args = append(args, "--tls-resume")
	}
	if f.H2 {
		args = append(args, "--h2")
	}
	if f.H2C {
		args = append(args, "--h2c")
	}
	if f.Streams > 1 {
		add("--streams", strconv.Itoa(f.Streams))
	}
	if f.GRPC != "" {
		add("--grpc", f.GRPC)
	}
	if f.Proto != "" {
		add("--proto", f.Proto)
	}
	if f.Message != "" {
		add("--message", f.Message)
	}
	if f.Messages != "" {
		add("--messages", f.Messages)
	}
	if f.Metadata != "" {
		add("--metadata", f.Metadata)
	}
	if f.Reflect {
		args = append(args, "--reflect")
	}
	if f.Output != "" {
		add("-o", f.Output)
	}
	if f.EventsFD >= 0 {
		add("--events-fd", strconv.Itoa(f.EventsFD))
	}
	if !f.StartAt.IsZero() {
		add("--start-at", f.StartAt.UTC().Format(time.RFC3339Nano))
	}
	return append(args, url)
}

// Config checks the flags and returns the engine's Config for url, with
// the headers, body and statuses parsed. The files named by BodyFile and
// Requests are the caller's to read. Errors name the flag at fault.
func (f Flags) Config(url string) (Config, error) {
	cfg := Config{
		URL: url, Method: f.Method, Connections: f.Connections, Rate: f.Rate,
		Duration: f.Duration, Warmup: f.Warmup, WarmupMax: f.WarmupMax, Timeout: f.Timeout, AllowRemote: f.AllowRemote,
		Body: []byte(f.Body), StartAt: f.StartAt, TLS: f.TLS, TLSResume: f.TLSResume,
	}
	// At their defaults the protocol and the streams stay zero, as a
	// Config written for HTTP/1.1 has them (withDefaults fills them in).
	if p := f.protocol(); p != ProtoHTTP1 {
		cfg.Protocol = p
	}
	if f.Streams > 1 {
		cfg.Streams = f.Streams
	}
	switch {
	case f.Connections < 1:
		return cfg, fmt.Errorf("-c %d: want at least 1 connection", f.Connections)
	case f.Duration <= 0:
		return cfg, fmt.Errorf("-d %v: want a positive duration", f.Duration)
	case f.Timeout < time.Millisecond:
		return cfg, fmt.Errorf("-t %v: want a timeout of at least 1ms", f.Timeout)
	case f.WarmupMax > 0 && f.WarmupMax < f.Warmup || f.WarmupMax > 0 && f.Warmup == 0:
		return cfg, fmt.Errorf("--warmup-max %v: give it with --warmup, and at least as long (--warmup %v)", f.WarmupMax, f.Warmup)
	case f.FirstUser < 0:
		return cfg, fmt.Errorf("--first-user %d: want 0 or more", f.FirstUser)
	case f.FirstUser > 0 && f.Flow == "":
		return cfg, errors.New("--first-user numbers a flow's users; give it with --flow FILE")
	case f.Body != "" && f.BodyFile != "":
		return cfg, errors.New("-b and --body-file both given; choose one")
	case f.H2 && f.H2C:
		return cfg, errors.New("--h2 and --h2c both given: HTTP/2 goes over TLS (--h2) or in cleartext (--h2c), choose one")
	case f.Streams < 1:
		return cfg, fmt.Errorf("--streams %d: want at least 1", f.Streams)
	case f.Streams > 1 && f.protocol() == ProtoHTTP1:
		return cfg, fmt.Errorf("--streams %d needs HTTP/2: add --h2c (cleartext) or --h2 (TLS), or --grpc", f.Streams)
	case f.GRPC != "" && ((f.Proto == "") == !f.Reflect || (f.Message == "") == (f.Messages == "")):
		return cfg, errors.New("--grpc needs --message JSON (the request) or --messages FILE (one a line), and either --proto FILE (the service's .proto or a descriptor set) or --reflect (server reflection)")
	case f.GRPC == "" && (f.Proto != "" || f.Message != "" || f.Messages != "" || f.Metadata != "" || f.Reflect):
		return cfg, errors.New("--proto, --reflect, --message, --messages and --metadata go with --grpc package.Service/Method")
	case f.GRPC != "" && f.H2C:
		return cfg, errors.New("--grpc speaks HTTP/2 already (cleartext, or TLS for https:// or --tls); drop --h2c")
	case (f.CACert != "" || f.TLSResume) && !f.TLS && !f.H2 && !strings.HasPrefix(url, "https://"):
		return cfg, fmt.Errorf("--cacert and --tls-resume apply to TLS; add --tls or give an https:// URL (got %s)", url)
	}
	for _, h := range f.Headers {
		hd, err := ParseHeader(h)
		if err == nil && f.GRPC != "" {
			err = CheckGRPCMetadata(hd.Name, hd.Value)
		}
		if err != nil {
			return cfg, fmt.Errorf("-H: %v", err)
		}
		cfg.Headers = append(cfg.Headers, hd)
	}
	if f.Expect != "" {
		for _, s := range strings.Split(f.Expect, ",") {
			code, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil || code < 100 || code > 999 {
				return cfg, fmt.Errorf("--expect %q: want HTTP statuses like 201 or 200,204", f.Expect)
			}
			cfg.Expect = append(cfg.Expect, code)
		}
	}
	if f.Mix != "" {
		mix, err := ParseMix(f.Mix)
		if err != nil {
			return cfg, fmt.Errorf("--mix: %v", err)
		}
		if f.Requests == "" {
			return cfg, errors.New("--mix needs --requests FILE: a pool whose lines name their route (\"route\": \"user\")")
		}
		cfg.Mix = mix
	}
	cfg.Seed, cfg.FirstUser = f.Seed, f.FirstUser
	return cfg, nil
}

// ParseMix reads a mix's routes and weights: "user=60,list=30".
func ParseMix(s string) ([]MixRoute, error) {
	var mix []MixRoute
	for _, part := range strings.Split(s, ",") {
		name, w, ok := strings.Cut(strings.TrimSpace(part), "=")
		weight, err := strconv.Atoi(w)
		if !ok || err != nil || name == "" {
			return nil, fmt.Errorf("%q is not route=weight; write e.g. user=60,list=30", part)
		}
		mix = append(mix, MixRoute{Name: name, Weight: weight})
	}
	return mix, nil
}

// FormatMix writes a mix as ParseMix reads it.
func FormatMix(mix []MixRoute) string {
	parts := make([]string, len(mix))
	for i, m := range mix {
		parts[i] = m.Name + "=" + strconv.Itoa(m.Weight)
	}
	return strings.Join(parts, ",")
}

// FlagsOf returns the flags whose Config is cfg (for cfg.URL), with text
// output and no events descriptor. cfg.Requests, cfg.CACertPEM, cfg.GRPC
// and cfg.Progress have no flag: a pool and a CA are passed as files, in
// Flags.Requests and Flags.CACert, a gRPC call as Flags.GRPC, Proto and
// Message.
func FlagsOf(cfg Config) Flags {
	f := Flags{
		Connections: cfg.Connections, Rate: cfg.Rate, Duration: cfg.Duration, Warmup: cfg.Warmup, WarmupMax: cfg.WarmupMax,
		Timeout: cfg.Timeout, Method: cfg.Method, Body: string(cfg.Body), AllowRemote: cfg.AllowRemote,
		Output: "text", EventsFD: -1, StartAt: cfg.StartAt, TLS: cfg.TLS, TLSResume: cfg.TLSResume,
		H2: cfg.Protocol == ProtoH2, H2C: cfg.Protocol == ProtoH2C, Streams: max(cfg.Streams, 1),
	}
	for _, h := range cfg.Headers {
		f.Headers = append(f.Headers, h.Name+": "+h.Value)
	}
	s := make([]string, len(cfg.Expect))
	for i, code := range cfg.Expect {
		s[i] = strconv.Itoa(code)
	}
	f.Expect = strings.Join(s, ",")
	if len(cfg.Mix) > 0 {
		f.Mix, f.Seed = FormatMix(cfg.Mix), cfg.Seed
	}
	return f
}

// repeated is a string flag that may be given more than once.
type repeated []string

func (s *repeated) String() string     { return strings.Join(*s, ", ") }
func (s *repeated) Set(v string) error { *s = append(*s, v); return nil }

// protocol is Config.Protocol for the flags.
func (f Flags) protocol() string {
	switch {
	case f.GRPC != "":
		return ProtoGRPC
	case f.H2:
		return ProtoH2
	case f.H2C:
		return ProtoH2C
	}
	return ProtoHTTP1
}
