package run

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/proc"
)

// testMark is a mark of newMark's form for a stack named name.
func testMark(name string) string {
	b := make([]byte, 8)
	rand.Read(b)
	return fmt.Sprintf("%s.%d.%s", name, os.Getpid(), hex.EncodeToString(b))
}

// sleeper starts sleep in a process group of its own with env added; it
// returns its pid and a channel closed when it exits.
func sleeper(t *testing.T, env ...string) (int, chan struct{}) {
	t.Helper()
	cmd := exec.Command("sleep", "30")
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() { cmd.Process.Kill(); <-done })
	// Until sleep is exec'd, its environ may read as the shell's.
	for end := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", cmd.Process.Pid)); string(comm) == "sleep\n" {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("%d did not exec sleep", cmd.Process.Pid)
		}
	}
	return cmd.Process.Pid, done
}

// A results directory is data: a resume signals a process group only
// when a member of it, a process of this user, carries exactly the mark
// recorded with it (of a run's form, of a stack of the file), and only
// from a servers.pids this user wrote. Each case is a forgery that
// killed its victim before.
func TestResumeSignalsOnlyWhatCarriesTheRecordedMark(t *testing.T) {
	if proc.BootID() == "" {
		t.Skip("no boot ID here: nothing recorded is ever signalled")
	}
	stacks := []plan.Stack{{Name: "api"}}
	forge := func(t *testing.T, pid int, mark string) *runner {
		t.Helper()
		r := &runner{opt: Options{Dir: t.TempDir(), Plan: &plan.Plan{Stacks: stacks}}, progress: newProgress(io.Discard, false, 0)}
		ticks, _ := proc.StartTicks(pid)
		line := fmt.Appendf(nil, "%d %d %s %s\n", pid, ticks, proc.BootID(), mark)
		if err := os.WriteFile(filepath.Join(r.opt.Dir, serversFile), line, 0o600); err != nil {
			t.Fatal(err)
		}
		return r
	}
	survives := func(t *testing.T, r *runner, done chan struct{}) {
		t.Helper()
		leftoversOf(r).stop()
		select {
		case <-done:
			t.Fatal("the victim was killed by the resume")
		case <-time.After(150 * time.Millisecond):
		}
	}
	t.Run("an unrelated group with its pid, start time and boot", func(t *testing.T) {
		pid, done := sleeper(t)
		survives(t, forge(t, pid, testMark("api")), done)
	})
	t.Run("a mark not of a run's form", func(t *testing.T) {
		pid, done := sleeper(t, proc.MarkEnv+"=m1")
		survives(t, forge(t, pid, "m1"), done)
	})
	t.Run("a mark of no stack of the file", func(t *testing.T) {
		mark := testMark("other")
		pid, done := sleeper(t, proc.MarkEnv+"="+mark)
		survives(t, forge(t, pid, mark), done)
	})
	t.Run("the mark at the end of another variable", func(t *testing.T) {
		mark := testMark("api")
		pid, done := sleeper(t, "X_"+proc.MarkEnv+"="+mark)
		survives(t, forge(t, pid, mark), done)
	})
	t.Run("the mark as the start of a longer value", func(t *testing.T) {
		mark := testMark("api")
		pid, done := sleeper(t, proc.MarkEnv+"="+mark+"0")
		survives(t, forge(t, pid, mark), done)
	})
	t.Run("a servers.pids others may write", func(t *testing.T) {
		mark := testMark("api")
		pid, done := sleeper(t, proc.MarkEnv+"="+mark)
		r := forge(t, pid, mark)
		os.Chmod(filepath.Join(r.opt.Dir, serversFile), 0o666)
		survives(t, r, done)
	})
	t.Run("a servers.pids of another user", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Skip("needs root to chown")
		}
		mark := testMark("api")
		pid, done := sleeper(t, proc.MarkEnv+"="+mark)
		r := forge(t, pid, mark)
		os.Chown(filepath.Join(r.opt.Dir, serversFile), 65534, 65534)
		survives(t, r, done)
	})
	t.Run("the run's own server is stopped", func(t *testing.T) {
		mark := testMark("api")
		pid, done := sleeper(t, proc.MarkEnv+"="+mark)
		leftoversOf(forge(t, pid, mark)).stop()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatal("the run's own marked server survived the resume")
		}
	})
}
