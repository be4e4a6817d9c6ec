package stack

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/pgfix"
)

// A cluster kept in a results directory (a resume) is used as it is when
// it listens where it is asked to, and started again there when it
// listens elsewhere: a kept cluster on 127.0.0.1 becomes one on the link,
// over TLS.
func TestKeptClusterListensWhereAsked(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir := t.TempDir()
	for _, d := range []string{filepath.Dir(dir), dir} { // the server's account enters it
		if err := os.Chmod(d, 0o711); err != nil {
			t.Fatal(err)
		}
	}
	first, err := pgfix.Start(ctx, pgfix.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { first.Stop(context.Background()) })
	var said []string
	progress := func(s string) { said = append(said, s) }
	kept, err := openCluster(ctx, pgfix.Options{Dir: dir}, progress)
	if err != nil {
		t.Fatal(err)
	}
	if kept.PostmasterPID() != first.PostmasterPID() {
		t.Errorf("the kept cluster on 127.0.0.1, asked for on 127.0.0.1: postmaster %d; want %d, used as it is", kept.PostmasterPID(), first.PostmasterPID())
	}
	link := pgfix.Options{Dir: dir, Listen: "127.0.0.2", Host: "127.0.0.2", Clients: []string{"127.0.0.2"}}
	moved, err := openCluster(ctx, link, progress)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { moved.Stop(context.Background()) })
	if moved.PostmasterPID() == first.PostmasterPID() || !moved.Listens("127.0.0.2", "127.0.0.2") || moved.CACertPEM() == nil || !strings.Contains(moved.AdminURL(), "sslmode=verify-full") {
		t.Errorf("the kept cluster asked for on 127.0.0.2: postmaster %d (was %d), URL %s; want it started again there, over TLS", moved.PostmasterPID(), first.PostmasterPID(), moved.AdminURL())
	}
	if !strings.Contains(strings.Join(said, "\n"), "listens elsewhere: restarting it") {
		t.Errorf("progress said %q; want the restart said", said)
	}
	db, err := pgfix.Open(ctx, moved.AdminURL())
	if err != nil {
		t.Fatalf("connect over TLS at 127.0.0.2: %v", err)
	}
	db.Close()
}
