package load

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/net/http2/hpack"
)

// A gRPC run's metadata goes into each request's header block, encoded
// once before the window: Config.Headers on every call, then the
// metadata set of the call's message, lower-cased; requests with equal
// blocks share one; a name the engine or gRPC sets is refused.
func TestGRPCMetadataEncoding(t *testing.T) {
	tg, err := resolveTarget(context.Background(), "http://127.0.0.1:9/", false)
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{
		Headers: []Header{{Name: "X-Tenant", Value: "t1"}},
		GRPC: &GRPCCall{Method: "saas.Users/GetUser", Messages: [][]byte{{8, 1}, {8, 2}, {8, 3}},
			Metadata: [][]Header{{{Name: "Authorization", Value: "Bearer a"}}, {{Name: "authorization", Value: "Bearer b"}}, {{Name: "authorization", Value: "Bearer a"}}}},
	}
	reqs, err := encodeGRPC(cfg, tg, false)
	if err != nil {
		t.Fatal(err)
	}
	dec := hpack.NewDecoder(4096, nil)
	for k, want := range []string{"Bearer a", "Bearer b", "Bearer a"} {
		fields, err := dec.DecodeFull(reqs[k].h2block)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		var names []string
		for _, f := range fields {
			got[f.Name] = f.Value
			names = append(names, f.Name)
		}
		if got[":method"] != "POST" || got[":path"] != "/saas.Users/GetUser" || got["content-type"] != "application/grpc" ||
			got["te"] != "trailers" || got["x-tenant"] != "t1" || got["authorization"] != want || len(fields) != 10 {
			t.Errorf("request %d's fields %v, want gRPC's, x-tenant and authorization %q", k+1, fields, want)
		}
		if strings.Join(names, ",") != ":method,:scheme,:authority,:path,content-type,te,x-tenant,authorization,user-agent,content-length" {
			t.Errorf("request %d's fields in order %v", k+1, names)
		}
	}
	if &reqs[0].h2block[0] != &reqs[2].h2block[0] || &reqs[0].h2block[0] == &reqs[1].h2block[0] {
		t.Errorf("equal blocks not shared, or different ones shared")
	}

	for _, tc := range []struct {
		headers  []Header
		metadata [][]Header
		want     string
	}{
		{[]Header{{Name: "Content-Type", Value: "application/json"}}, nil, `"Content-Type" is set by the engine`},
		{nil, [][]Header{{{Name: "grpc-timeout", Value: "1S"}}}, `"grpc-timeout": names starting with grpc- are reserved by gRPC`},
		{nil, [][]Header{{{Name: ":authority", Value: "x"}}}, `":authority" is a pseudo-header`},
		{nil, [][]Header{{{Name: "TE", Value: "trailers"}}}, `"TE" is set by the engine`},
		{nil, [][]Header{{{Name: "connection", Value: "close"}}}, `"connection" is a connection-specific header`},
		{nil, [][]Header{{{Name: "host", Value: "x"}}}, `"host": the engine sends the target's host and port as :authority`},
		{nil, [][]Header{{{Name: "x-a", Value: "1\n2"}}}, `the value holds a line break`},
		{nil, [][]Header{{}, {}}, `2 sets of metadata for 1 messages`},
	} {
		c := Config{Headers: tc.headers, GRPC: &GRPCCall{Method: "saas.Users/GetUser", Message: []byte{8, 1}, Metadata: tc.metadata}}
		_, err := encodeGRPC(c, tg, false)
		var ce *ConfigError
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("headers %v, metadata %v: %v; want a ConfigError saying %s", tc.headers, tc.metadata, err, tc.want)
		}
	}
}

// A server that requires metadata (UNAUTHENTICATED without it, as a
// gRPC service behind an auth interceptor answers): calls carrying it
// succeed, every call without it counts as grpc_unauthenticated, and a
// pool's metadata goes with its own message.
func TestGRPCMetadataRequiredByServer(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]int{}
	url := h2cServer(t, func(w http.ResponseWriter, r *http.Request) {
		b := make([]byte, 16)
		n, _ := r.Body.Read(b)
		mu.Lock()
		seen[r.Header.Get("Authorization")+" "+string(b[5:n])]++
		mu.Unlock()
		w.Header().Set("Content-Type", "application/grpc")
		w.Write([]byte{0, 0, 0, 0, 0})
		if r.Header.Get("Authorization") != "Bearer s3cret" && r.Header.Get("Authorization") != "Bearer other" {
			w.Header().Set(http.TrailerPrefix+"Grpc-Status", "16")
			return
		}
		w.Header().Set(http.TrailerPrefix+"Grpc-Status", "0")
	})
	call := &GRPCCall{Method: "saas.Users/GetUser", Message: []byte("\x08\x01")}
	res := runLoad(t, url, Config{Protocol: ProtoGRPC, GRPC: call, Connections: 1, Streams: 4, Duration: 200 * time.Millisecond})
	if res.Successes != 0 || res.Attempts == 0 || res.Errors["grpc_unauthenticated"] != res.Attempts {
		t.Errorf("without metadata: %d successes, errors %v in %d attempts; want every call grpc_unauthenticated", res.Successes, res.Errors, res.Attempts)
	}
	res = runLoad(t, url, Config{Protocol: ProtoGRPC, GRPC: call, Connections: 1, Streams: 4, Duration: 200 * time.Millisecond,
		Headers: []Header{{Name: "Authorization", Value: "Bearer s3cret"}}})
	if res.Successes == 0 || res.ErrorCount() != 0 {
		t.Errorf("with -H metadata: %d successes, errors %v", res.Successes, res.Errors)
	}
	pool := &GRPCCall{Method: "saas.Users/GetUser", Messages: [][]byte{[]byte("\x08\x01"), []byte("\x08\x02")},
		Metadata: [][]Header{{{Name: "authorization", Value: "Bearer s3cret"}}, {{Name: "authorization", Value: "Bearer other"}}}}
	mu.Lock()
	clear(seen)
	mu.Unlock()
	res = runLoad(t, url, Config{Protocol: ProtoGRPC, GRPC: pool, Connections: 1, Streams: 4, Duration: 200 * time.Millisecond})
	mu.Lock()
	defer mu.Unlock()
	if res.Successes == 0 || res.ErrorCount() != 0 || len(seen) != 2 || seen["Bearer s3cret \x08\x01"] == 0 || seen["Bearer other \x08\x02"] == 0 {
		t.Errorf("a pool with metadata: %d successes, errors %v, seen %v", res.Successes, res.Errors, seen)
	}
}
