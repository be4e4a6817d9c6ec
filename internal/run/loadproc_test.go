package run

import (
	"flag"
	"io"
	"reflect"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/agent"
	"github.com/stackbench/stackbench/internal/load"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/workload"
)

// TestLoadArgsParse: the command line the harness writes for a window is
// the one `stackbench load` parses into the case's request, every expected
// status included (a case expecting 201 or 202 once reached the generator
// as 202 alone).
func TestLoadArgsParse(t *testing.T) {
	c := workload.Case{Name: "buy", Method: "POST", Path: "/orders", Body: []byte(`{"sku":1}`),
		Header: []workload.Header{{Name: "Authorization", Value: "Bearer x"}}, Expect: []int{201, 202}}
	for _, pool := range []string{"", "/tmp/buy.jsonl"} {
		args := loadArgs("http://127.0.0.1:9", c, pool, 16, warmupSpan{time.Second, 4 * time.Second}, 2*time.Second, time.Minute)
		var f load.Flags
		fs := flag.NewFlagSet("load", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		f.Register(fs)
		if args[0] != "load" || fs.Parse(args[1:]) != nil || fs.NArg() != 1 {
			t.Fatalf("args %q do not parse", args)
		}
		cfg, err := f.Config(fs.Arg(0))
		if err != nil {
			t.Fatal(err)
		}
		want := load.Config{URL: "http://127.0.0.1:9/orders", Method: "POST", Body: c.Body,
			Headers: []load.Header{{Name: "Authorization", Value: "Bearer x"}}, Expect: []int{201, 202},
			Connections: 16, Warmup: time.Second, WarmupMax: 4 * time.Second, Duration: 2 * time.Second, Timeout: time.Minute}
		if pool != "" {
			want.URL, want.Method, want.Headers, want.Body = "http://127.0.0.1:9", "GET", nil, []byte{}
		}
		if !reflect.DeepEqual(cfg, want) || f.Requests != pool || f.Output != "json" || f.EventsFD != loadEventsFD {
			t.Errorf("pool %q: args %q\nparse to %+v (requests %q, -o %s, events %d)\nwant %+v", pool, args, cfg, f.Requests, f.Output, f.EventsFD, want)
		}
	}
}

// TestLoadArgsWire: a window on an h2c stack, on an h2 stack with its
// streams and the run's CA, and on a gRPC stack over TLS (its one message,
// or its pool of messages) parses to the engine's protocol, TLS, streams
// and call.
func TestLoadArgsWire(t *testing.T) {
	c := workload.Case{Name: "user", Method: "GET", Path: "/users/1", Expect: []int{200},
		GRPC: &workload.GRPCCall{Method: "saas.Users/GetUser", Message: `{"id": 1}`}}
	parse := func(args []string) (load.Flags, load.Config) {
		t.Helper()
		var f load.Flags
		fs := flag.NewFlagSet("load", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		f.Register(fs)
		if args[0] != "load" || fs.Parse(args[1:]) != nil || fs.NArg() != 1 {
			t.Fatalf("args %q do not parse", args)
		}
		cfg, err := f.Config(fs.Arg(0))
		if err != nil {
			t.Fatalf("args %q: %v", args, err)
		}
		return f, cfg
	}
	span := warmupSpan{time.Second, time.Second}
	_, cfg := parse(loadArgsAt("http://127.0.0.1:9", c, "", loadWire{wire: plan.Wire{Protocol: plan.WireH2C, Streams: 10}}, 4, 0, span, time.Second, time.Minute))
	if cfg.Protocol != load.ProtoH2C || cfg.Streams != 10 || cfg.TLS || cfg.URL != "http://127.0.0.1:9/users/1" {
		t.Errorf("h2c: %+v", cfg)
	}
	f, cfg := parse(loadArgsAt("https://127.0.0.1:9", c, "", loadWire{wire: plan.Wire{Protocol: plan.WireH2, TLS: true}, caFile: "/run/ca.pem"}, 4, 0, span, time.Second, time.Minute))
	if cfg.Protocol != load.ProtoH2 || !cfg.TLS || f.CACert != "/run/ca.pem" || cfg.URL != "https://127.0.0.1:9/users/1" {
		t.Errorf("h2: %+v, cacert %q", cfg, f.CACert)
	}
	grpc := loadWire{wire: plan.Wire{Protocol: plan.WireGRPC, TLS: true, Streams: 4}, caFile: "/run/ca.pem", proto: "/app/saas.proto"}
	f, cfg = parse(loadArgsAt("https://127.0.0.1:9", c, "/pool.jsonl", grpc, 4, 0, span, time.Second, time.Minute))
	if cfg.Protocol != load.ProtoGRPC || !cfg.TLS || cfg.Streams != 4 || f.GRPC != "saas.Users/GetUser" || f.Proto != "/app/saas.proto" ||
		f.Message != `{"id": 1}` || f.Requests != "" || f.CACert != "/run/ca.pem" || cfg.Expect != nil {
		t.Errorf("grpc: %+v, flags %+v", cfg, f)
	}
	grpc.messages, grpc.proto = "/msgs.jsonl", ""
	f, _ = parse(loadArgsAt("https://127.0.0.1:9", c, "", grpc, 4, 0, span, time.Second, time.Minute))
	if f.Messages != "/msgs.jsonl" || f.Message != "" || !f.Reflect {
		t.Errorf("grpc with a pool of messages and reflection: %+v", f)
	}
	// Metadata goes as the file the wire names (requestPools.grpcFiles
	// writes one for metadata as written too), never as -H; a templated
	// call's is the file beside its messages.
	md := c
	md.GRPC = &workload.GRPCCall{Method: "saas.Users/GetUser", Message: `{"id": 1}`, Metadata: []workload.Header{{Name: "authorization", Value: "Bearer t"}}}
	f, cfg = parse(loadArgsAt("https://127.0.0.1:9", md, "", loadWire{wire: plan.Wire{Protocol: plan.WireGRPC}, proto: "/app/saas.proto", metadata: "/lit.jsonl"}, 4, 0, span, time.Second, time.Minute))
	if len(cfg.Headers) != 0 || f.Metadata != "/lit.jsonl" {
		t.Errorf("grpc with metadata: headers %v, --metadata %q; want the file, no -H", cfg.Headers, f.Metadata)
	}
	md.GRPCTemplated = true
	grpc.metadata = "/md.jsonl"
	f, cfg = parse(loadArgsAt("https://127.0.0.1:9", md, "", grpc, 4, 0, span, time.Second, time.Minute))
	if len(cfg.Headers) != 0 || f.Metadata != "/md.jsonl" || f.Messages != "/msgs.jsonl" {
		t.Errorf("templated grpc with metadata: headers %v, flags %+v; want --messages and --metadata", cfg.Headers, f)
	}
}

// TestRemoteLoadArgsWire: a generator host's command line speaks the
// stack's wire — h2 over TLS, h2c with its streams, gRPC with its call —
// and leaves to the agent the flags of the files sent with the window
// (the CA, the descriptors, the messages), never asking for server
// reflection there: the descriptors go with the window.
func TestRemoteLoadArgsWire(t *testing.T) {
	c := workload.Case{Name: "user", Method: "GET", Path: "/users/1", Expect: []int{200},
		GRPC: &workload.GRPCCall{Method: "saas.Users/GetUser", Message: `{"id": 1}`}}
	parse := func(args []string) (load.Flags, string) {
		t.Helper()
		var f load.Flags
		fs := flag.NewFlagSet("load", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		f.Register(fs)
		if args[0] != "load" || fs.Parse(args[1:]) != nil || fs.NArg() != 1 {
			t.Fatalf("args %q do not parse", args)
		}
		if !f.AllowRemote || f.StartAt.IsZero() || f.Output != "json" || f.EventsFD != -1 {
			t.Errorf("args %q: allow-remote %v, start-at %v, -o %s, events %d; want a remote window's", args, f.AllowRemote, f.StartAt, f.Output, f.EventsFD)
		}
		return f, fs.Arg(0)
	}
	at := time.Now()
	ca := []byte("-----BEGIN CERTIFICATE-----\n")
	f, url := parse(remoteLoadArgs("https://10.9.9.9:9", c, plan.Wire{Protocol: plan.WireH2, TLS: true}, agent.LoadSpec{CACert: ca}, 4, 0, 0, time.Second, time.Second, time.Minute, at))
	if !f.H2 || !f.TLS || f.CACert != "" || url != "https://10.9.9.9:9/users/1" {
		t.Errorf("h2: %+v %s; want h2 over TLS, the CA left to the agent", f, url)
	}
	f, url = parse(remoteLoadArgs("http://10.9.9.9:9", c, plan.Wire{Protocol: plan.WireH2C, Streams: 8}, agent.LoadSpec{Requests: []byte("{}\n")}, 4, 0, 0, time.Second, time.Second, time.Minute, at))
	if !f.H2C || f.Streams != 8 || f.TLS || f.Requests != "" || url != "http://10.9.9.9:9" {
		t.Errorf("h2c with a pool: %+v %s; want h2c, 8 streams, the pool left to the agent, the base URL", f, url)
	}
	grpc := plan.Wire{Protocol: plan.WireGRPC, TLS: true, Proto: "reflect"}
	f, url = parse(remoteLoadArgs("https://10.9.9.9:9", c, grpc, agent.LoadSpec{CACert: ca, Descriptors: []byte{1}}, 4, 0, 0, time.Second, time.Second, time.Minute, at))
	if f.GRPC != "saas.Users/GetUser" || f.Message != `{"id": 1}` || f.Proto != "" || f.Reflect || f.CACert != "" || !f.TLS || url != "https://10.9.9.9:9/" {
		t.Errorf("grpc: %+v %s; want the call, its message, no reflection, the descriptors and CA left to the agent", f, url)
	}
	f, _ = parse(remoteLoadArgs("http://10.9.9.9:9", c, plan.Wire{Protocol: plan.WireGRPC}, agent.LoadSpec{Descriptors: []byte{1}, Messages: []byte("{}\n")}, 4, 0, 0, time.Second, time.Second, time.Minute, at))
	if f.Message != "" || f.Messages != "" || f.Proto != "" || f.Reflect || f.TLS {
		t.Errorf("grpc with messages: %+v; want neither --message nor --messages (the agent names the pool sent)", f)
	}
	tpl := c
	tpl.GRPCTemplated = true
	tpl.GRPC = &workload.GRPCCall{Method: "saas.Users/GetUser", Message: `{"id": 1}`, Metadata: []workload.Header{{Name: "authorization", Value: "Bearer ${token}"}}}
	f, _ = parse(remoteLoadArgs("http://10.9.9.9:9", tpl, plan.Wire{Protocol: plan.WireGRPC}, agent.LoadSpec{Descriptors: []byte{1}, Messages: []byte("{}\n"), Metadata: []byte("{}\n")}, 4, 0, 0, time.Second, time.Second, time.Minute, at))
	if f.Messages != "" || f.Metadata != "" || len(f.Headers) != 0 {
		t.Errorf("grpc with messages and metadata: %+v; want neither --metadata nor -H (the agent names the file sent)", f)
	}
}
