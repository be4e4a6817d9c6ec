package run

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/proc"
)

// A resume stops the process groups a killed harness left running: a group
// whose leader still runs with the start time recorded, and a group whose
// leader is gone but whose members remain (the server under a shell with
// shell syntax). A live leader with another start time is a process that
// reused the pid, and is left alone.
func TestStopLeftovers(t *testing.T) {
	r := &runner{opt: Options{Dir: t.TempDir()}, progress: newProgress(io.Discard, false, 0)}
	path := filepath.Join(r.opt.Dir, serversFile)

	mark := testMark("api")
	leader := exec.Command("sleep", "30")
	leader.Env = append(os.Environ(), proc.MarkEnv+"="+mark)
	leader.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := leader.Start(); err != nil {
		t.Fatal(err)
	}
	waited := make(chan error, 1)
	go func() { waited <- leader.Wait() }()
	t.Cleanup(func() { leader.Process.Kill() })
	pid := leader.Process.Pid

	// The pid with another start time: a reused pid, not ours.
	ticks, ok := proc.StartTicks(pid)
	if !ok || ticks <= 0 {
		t.Fatalf("StartTicks(%d) = %d, %v: want the start time of a live process", pid, ticks, ok)
	}
	boot := proc.BootID()
	os.WriteFile(path, fmt.Appendf(nil, "%d %d %s -\n", pid, ticks+1, boot), 0o644)
	leftoversOf(r).stop()
	select {
	case err := <-waited:
		t.Fatalf("a live process whose start time differs was killed: %v", err)
	case <-time.After(200 * time.Millisecond):
	}
	if _, err := os.Stat(path); err == nil {
		t.Error("stopLeftovers left servers.pids behind")
	}

	// The same pid and start time recorded in another boot: not ours.
	os.WriteFile(path, fmt.Appendf(nil, "%d %d 00000000-0000-0000-0000-000000000000 -\n", pid, ticks), 0o644)
	leftoversOf(r).stop()
	select {
	case err := <-waited:
		t.Fatalf("a process recorded in another boot was killed: %v", err)
	case <-time.After(200 * time.Millisecond):
	}

	leftoversOf(r).rememberServer(pid, mark)
	b, _ := os.ReadFile(path)
	if want := fmt.Sprintf("%d %d %s %s\n", pid, ticks, boot, mark); string(b) != want {
		t.Fatalf("servers.pids = %q, want %q", b, want)
	}
	leftoversOf(r).stop()
	select {
	case <-waited:
	case <-time.After(5 * time.Second):
		t.Fatal("the recorded server group is still running after stopLeftovers")
	}

	// A leader that exited, leaving a member of its group running.
	sh := exec.Command("/bin/sh", "-c", "sleep 30 >/dev/null 2>&1 & echo $!")
	sh.Env = append(os.Environ(), proc.MarkEnv+"="+mark)
	sh.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var out bytes.Buffer
	sh.Stdout = &out
	if err := sh.Start(); err != nil {
		t.Fatal(err)
	}
	leftoversOf(r).rememberServer(sh.Process.Pid, mark)
	if err := sh.Wait(); err != nil {
		t.Fatal(err)
	}
	member, err := strconv.Atoi(strings.TrimSpace(out.String()))
	if err != nil {
		t.Fatalf("member pid %q: %v", out.String(), err)
	}
	t.Cleanup(func() { syscall.Kill(member, syscall.SIGKILL) })
	if !running(member) {
		t.Fatalf("the group's member %d is not running before stopLeftovers", member)
	}
	leftoversOf(r).stop()
	deadline := time.Now().Add(5 * time.Second)
	for running(member) {
		if time.Now().After(deadline) {
			t.Fatalf("member %d of a group whose leader exited survived stopLeftovers", member)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A resume stops what a killed stack daemonized: a process in a session of
// its own, whose parent is gone, found by its mark.
func TestStopLeftoversKillsMarkedDaemons(t *testing.T) {
	r := &runner{opt: Options{Dir: t.TempDir()}, progress: newProgress(io.Discard, false, 0)}
	mark := testMark("daemon")
	sh := exec.Command("/bin/sh", "-c", "(setsid sleep 31 >/dev/null 2>&1 & echo $!)")
	sh.Env = append(os.Environ(), proc.MarkEnv+"="+mark)
	sh.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := sh.Output()
	if err != nil {
		t.Fatal(err)
	}
	daemon, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		t.Fatalf("daemon pid %q: %v", out, err)
	}
	t.Cleanup(func() { syscall.Kill(daemon, syscall.SIGKILL) })
	// sh printed the daemon's pid as it forked it: wait until it is the
	// daemon a resume meets (sleep, exec'd), not a process between fork
	// and exec, whose environ may read empty for an instant (on a busy CI
	// host the scan once missed it).
	for end := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", daemon)); string(comm) == "sleep\n" {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("daemon %d did not exec sleep within 5 s", daemon)
		}
	}
	os.WriteFile(filepath.Join(r.opt.Dir, serversFile), fmt.Appendf(nil, "%d 1 %s %s\n", sh.Process.Pid, proc.BootID(), mark), 0o600)
	leftoversOf(r).stop()
	for end := time.Now().Add(5 * time.Second); running(daemon); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("daemon %d, carrying the stopped run's mark, survived stopLeftovers", daemon)
		}
	}
}

// A results directory is data: a container line of servers.pids is acted
// on only for a runtime and a name a stack of the file could have used,
// and embedded-db.path only for a cluster directory a run made.
func TestResumeActsOnlyOnWhatARunMade(t *testing.T) {
	r := &runner{opt: Options{Dir: t.TempDir(), Plan: &plan.Plan{Stacks: []plan.Stack{
		{Name: "Api", Container: &plan.Container{Runtime: "docker"}}, {Name: "native"}}}},
		progress: newProgress(io.Discard, false, 0)}
	for _, c := range []struct {
		runtime, name string
		want          bool
	}{
		{"docker", "stackbench-api-8080", true},
		{"/tmp/evil", "stackbench-api-8080", false},
		{"podman", "stackbench-api-8080", false},
		{"docker", "postgres", false},
		{"docker", "stackbench-native-8080", false},
		// As a server host's agent names the n-th process of a stack.
		{"docker", "stackbench-api.3-8080", true},
		{"docker", "stackbench-api.-8080", false},
		{"docker", "stackbench-api.x-8080", false},
		{"docker", "stackbench-api2-8080", false},
		{"docker", "stackbench-api-", false},
	} {
		if got := leftoversOf(r).containerAllowed(c.runtime, c.name); got != c.want {
			t.Errorf("container %s of %s allowed: %v, want %v", c.name, c.runtime, got, c.want)
		}
	}
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, "cluster.json"), []byte("{}"), 0o600)
	if got := keptCluster(home, r.event); got != "" {
		t.Errorf("a directory outside the temporary directory's stackbench-pg-* was kept: %s", got)
	}
	kept, err := os.MkdirTemp("", "stackbench-pg-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(kept)
	if got := keptCluster(kept, r.event); got != "" {
		t.Errorf("a directory without cluster.json was kept: %s", got)
	}
	os.WriteFile(filepath.Join(kept, "cluster.json"), []byte("{}"), 0o600)
	if got := keptCluster(kept, r.event); got != kept {
		t.Errorf("the run's own kept cluster %s was not taken: %q", kept, got)
	}
	// One of another user (remade on a shared /tmp), or writable by
	// others, is not: its cluster.json would name the binaries to run.
	os.Chmod(kept, 0o777)
	if got := keptCluster(kept, r.event); got != "" {
		t.Errorf("a kept cluster others may write was taken: %s", got)
	}
	os.Chmod(kept, 0o700)
	if os.Geteuid() == 0 {
		os.Chown(kept, 65534, 65534)
		if got := keptCluster(kept, r.event); got != "" {
			t.Errorf("another user's kept cluster was taken: %s", got)
		}
	}
}
