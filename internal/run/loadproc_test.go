package run

import (
	"flag"
	"io"
	"reflect"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/load"
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
