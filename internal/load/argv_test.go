package load

import (
	"flag"
	"io"
	"reflect"
	"testing"
	"time"
)

// parseArgs parses a command line written by Flags.Args as the command does.
func parseArgs(t *testing.T, args []string) (Flags, string) {
	t.Helper()
	var f Flags
	fs := flag.NewFlagSet("load", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	f.Register(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatalf("parse %q: %v", args, err)
	}
	if fs.NArg() != 1 {
		t.Fatalf("parse %q: positional %q, want the URL alone", args, fs.Args())
	}
	return f, fs.Arg(0)
}

// TestFlagsRoundTrip holds the seam between the harness, which writes a
// Config as argv for each window, and the command, which parses it: a
// renamed or dropped flag fails here rather than in a run.
func TestFlagsRoundTrip(t *testing.T) {
	configs := []Config{
		{Method: "GET", Body: []byte{}, Connections: 1, Duration: time.Second, Timeout: time.Millisecond},
		{
			URL: "http://127.0.0.1:8080/orders?x=1", Method: "POST",
			Headers:     []Header{{"Authorization", "Bearer a.b.c"}, {"Content-Type", "application/json"}},
			Body:        []byte(`{"items":[1,2]}`),
			Connections: 32, Rate: 1500.5, Duration: 2 * time.Second, Warmup: 1500 * time.Millisecond,
			Timeout: time.Minute, Expect: []int{201, 202}, AllowRemote: true,
			StartAt: time.Date(2026, 1, 2, 15, 4, 5, 123456789, time.UTC),
		},
		{URL: "http://127.0.0.1:8443/", Method: "GET", Body: []byte{}, Connections: 4, Duration: time.Second, Timeout: time.Second,
			TLS: true, TLSResume: true},
		{URL: "http://127.0.0.1:8080/", Method: "GET", Body: []byte{}, Connections: 4, Duration: time.Second, Timeout: time.Second,
			Protocol: ProtoH2C, Streams: 100},
		{URL: "https://127.0.0.1:8443/", Method: "GET", Body: []byte{}, Connections: 4, Duration: time.Second, Timeout: time.Second,
			Protocol: ProtoH2, Streams: 10, TLS: true},
	}
	for _, cfg := range configs {
		f := FlagsOf(cfg)
		f.Output, f.EventsFD = "json", 3
		back, url := parseArgs(t, f.Args(cfg.URL))
		if !reflect.DeepEqual(back, f) {
			t.Errorf("flags %+v\nwritten and parsed: %+v", f, back)
		}
		got, err := back.Config(url)
		if err != nil {
			t.Fatal(err)
		}
		if len(cfg.Expect) == 0 {
			cfg.Expect = nil
		}
		if !reflect.DeepEqual(got, cfg) {
			t.Errorf("config %+v\nthrough argv: %+v", cfg, got)
		}
	}
}

// TestFlagsDefaultsRoundTrip: the defaults written out parse to themselves.
func TestFlagsDefaultsRoundTrip(t *testing.T) {
	def, _ := parseArgs(t, []string{"http://127.0.0.1/"})
	def.BodyFile, def.Requests, def.CACert = "body.json", "pool.jsonl", "ca.pem"
	back, _ := parseArgs(t, def.Args("http://127.0.0.1/"))
	if !reflect.DeepEqual(back, def) {
		t.Errorf("defaults %+v\nwritten and parsed: %+v", def, back)
	}
}
