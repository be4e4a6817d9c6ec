package run

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/proc"
)

// A stack is in servers.pids, with its mark, as soon as it is spawned,
// before its health poll: a harness killed while a daemonizing stack
// boots leaves a record the resume acts on. Here the stack daemonizes a
// sleep and never answers; while its boot is polled, servers.pids
// already names it, and a resume's stop ends the daemon.
func TestServerRecordedAtSpawnBeforeItsHealth(t *testing.T) {
	if proc.BootID() == "" {
		t.Skip("no boot ID here: nothing recorded is ever signalled")
	}
	dir := t.TempDir()
	if err := os.MkdirAll(logsDir(dir), 0o700); err != nil {
		t.Fatal(err)
	}
	pidFile := filepath.Join(t.TempDir(), "daemon.pid")
	st := plan.Stack{Name: "api", Dir: t.TempDir(), Health: "/health", BootTimeout: 30 * time.Second,
		Start: "(setsid sleep 31 >/dev/null 2>&1 & echo $! > " + pidFile + "); exec sleep 32"}
	r := &runner{opt: Options{Dir: dir, Plan: &plan.Plan{Stacks: []plan.Stack{st}}}, serving: serving{seq: map[string]int{}},
		progress: newProgress(io.Discard, false, 0)}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	booted := make(chan error, 1)
	go func() {
		_, err := newLocalSite(r.siteParts()).startStack(ctx, st)
		booted <- err
	}()
	var line string
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		b, _ := os.ReadFile(filepath.Join(dir, serversFile))
		daemon, _ := os.ReadFile(pidFile)
		if len(b) > 0 && len(daemon) > 0 {
			line = strings.TrimSpace(string(b))
			break
		}
		select {
		case err := <-booted:
			t.Fatalf("the boot ended before servers.pids named the stack: %v", err)
		default:
		}
		if time.Now().After(end) {
			t.Fatalf("10 s into the boot, servers.pids reads %q: the stack is not recorded before its health answers", b)
		}
	}
	f := strings.Fields(line)
	if len(f) != 4 {
		t.Fatalf("servers.pids line %q, want PID START BOOT MARK", line)
	}
	if name, ok := proc.ParseMark(f[3]); !ok || name != "api" {
		t.Errorf("recorded mark %q, want one of stack api", f[3])
	}
	b, _ := os.ReadFile(pidFile)
	daemon := strings.TrimSpace(string(b))
	leftoversOf(r).stop() // what a resume does first
	for end := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat("/proc/" + daemon); err != nil {
			break
		}
		if stat, _ := os.ReadFile("/proc/" + daemon + "/stat"); strings.Contains(string(stat), ") Z ") {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("the daemon %s the stack started survived the resume's stop", daemon)
		}
	}
	cancel()
	<-booted
}
