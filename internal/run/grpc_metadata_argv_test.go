package run

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/workload"
)

// A gRPC case's metadata written literally (a token in authorization)
// goes to the generator in a metadata file (0600), never on its command
// line, here or on a generator host, as an HTTP case's headers do.
func TestLiteralGRPCMetadataStaysOffTheCommandLine(t *testing.T) {
	r := &runner{opt: Options{Plan: &plan.Plan{}, PoolDir: t.TempDir()}}
	r.pools = &requestPools{r: r}
	cur := &server{stack: plan.Stack{Name: "a", Wire: plan.Wire{Protocol: plan.WireGRPC}}}
	c := workload.Case{Name: "user", GRPC: &workload.GRPCCall{Method: "saas.Users/GetUser", Message: `{"id": 1}`,
		Metadata: []workload.Header{{Name: "authorization", Value: "Bearer tok-LITERAL-88"}}}}
	const secret = "tok-LITERAL-88"

	lw, err := r.siteParts().loadWireOf(cur, c)
	if err != nil {
		t.Fatal(err)
	}
	local := loadArgsAt("http://127.0.0.1:9", c, "", lw, 4, 0, warmupSpan{floor: time.Second}, time.Second, time.Minute)
	h := &hostsSite{p: r.siteParts(), described: map[string][]byte{"a saas.Users/GetUser": {1}}}
	files, err := h.windowFiles(context.Background(), cur, c)
	if err != nil {
		t.Fatal(err)
	}
	remote := remoteLoadArgs("http://10.9.9.9:9", c, cur.stack.Wire, files, 4, 0, 0, time.Second, time.Second, time.Minute, time.Now())
	for name, args := range map[string][]string{"local": local, "remote": remote} {
		if line := strings.Join(args, " "); strings.Contains(line, secret) {
			t.Errorf("the %s generator's command line shows the metadata: %s", name, line)
		}
	}
	if !strings.Contains(strings.Join(local, " "), "--metadata "+lw.metadata) || lw.metadata == "" {
		t.Fatalf("local args %q: want --metadata naming a file", local)
	}
	b, err := os.ReadFile(lw.metadata)
	st, _ := os.Stat(lw.metadata)
	if err != nil || string(b) != `{"authorization":"Bearer tok-LITERAL-88"}`+"\n" || st.Mode().Perm() != 0o600 {
		t.Errorf("metadata file %s: %q (%v), mode %v; want the one line, 0600", lw.metadata, b, err, st.Mode().Perm())
	}
	if string(files.Metadata) != string(b) {
		t.Errorf("a generator host is sent metadata %q, want the file's %q", files.Metadata, b)
	}
}
