package run

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/proc"
	"github.com/stackbench/stackbench/internal/run/runtest"
)

// countWindows counts the window records in a journal file as it grows.
func countWindows(path string) int {
	b, _ := os.ReadFile(path)
	return bytes.Count(b, []byte(`{"kind":"window"`))
}

// countFinalWindows counts the final window records in a journal file as it
// grows (a redone try is journaled too, not final).
func countFinalWindows(path string) int {
	b, _ := os.ReadFile(path)
	return bytes.Count(b, []byte(`"final":true`))
}

// TestKilledRunResumesToThePlannedWindows kills `stackbench run` with
// SIGKILL in the middle of a window, on the embedded database, and resumes
// it: the final windows are exactly the plan's, none measured twice, and
// nothing is left running.
func TestKilledRunResumesToThePlannedWindows(t *testing.T) {
	t.Parallel() // see "Parallel tests" in main_test.go
	path := writeFile(t, runtest.SaasFile("database: embedded\n", `  concurrency: [4]
  warmup: 100ms
  warmup_max: 100ms # see "Fixed warm-ups" at flakyFile
  window: 500ms
  rounds: 2
  cases: [health, user]
`, refStack("first")+`  - name: second            # shell syntax: sh stays the server's parent
    dir: `+refServerDir+`
    start: `+refServerBin+`; true
`))
	dir := filepath.Join(t.TempDir(), "results")
	var firstLog bytes.Buffer
	// The parity gate, which every invocation runs (2 stacks × 2 here),
	// is not what this test is about: TestParityFailureSendsNoLoad and the
	// wire tests check it.
	cmd := exec.Command(stackbenchBin, "run", "--skip-parity", "-f", path, "--out", dir)
	cmd.Stdout, cmd.Stderr = &firstLog, &firstLog
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	journalPath := filepath.Join(dir, journal.FileName)
	deadline := time.Now().Add(3 * time.Minute)
	for countWindows(journalPath) < 3 {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("no third window within 3 minutes:\n%s", firstLog.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	// Kill it inside the fourth window: once its load generator runs.
	for !loadRunning(cmd.Process.Pid) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("no fourth window's load within 3 minutes:\n%s", firstLog.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	before := countWindows(journalPath)
	if before != 3 {
		t.Fatalf("%d window records when the harness was killed in the fourth window's load, want 3", before)
	}
	b, _ := os.ReadFile(filepath.Join(dir, DBPathFile))
	firstDBDir := string(b)
	if before >= 8 {
		t.Fatalf("the run finished before it was killed:\n%s", firstLog.String())
	}
	res, err := journal.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var killedPIDs []int
	for _, w := range res.Windows {
		killedPIDs = append(killedPIDs, w.Process.PID)
	}
	orphans := 0
	for _, pid := range killedPIDs {
		// The kernel delivers the death signal as the harness dies; give
		// the server a moment to go.
		for end := time.Now().Add(5 * time.Second); running(pid) && time.Now().Before(end); {
			time.Sleep(10 * time.Millisecond)
		}
		if running(pid) {
			t.Errorf("server pid %d outlived the killed harness by 5 s", pid)
		}
		if groupAlive(pid) {
			orphans++ // the second stack's server, under its killed shell
		}
	}

	resume := exec.Command(stackbenchBin, "run", "--resume", dir, "-f", path)
	out, err := resume.CombinedOutput()
	if err != nil {
		t.Fatalf("resume: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "resumed") {
		t.Errorf("the resume did not say it resumed:\n%s", out)
	}
	for _, pid := range killedPIDs {
		if groupAlive(pid) {
			t.Errorf("process group %d, left by the killed run, outlived the resume", pid)
		}
	}
	if orphans > 0 && !strings.Contains(string(out), "left running by the stopped run") {
		t.Errorf("%d orphaned server groups, and the resume did not say it stopped them:\n%s", orphans, out)
	}
	t.Logf("%d server process groups outlived the killed harness and were stopped by the resume", orphans)
	again, err := exec.Command(stackbenchBin, "run", "--resume", dir, "-f", path).CombinedOutput()
	if err != nil || !strings.Contains(string(again), "the run is complete") {
		t.Errorf("resuming a finished run: %v\n%s", err, again)
	}
	byKey, res := runtest.Finals(t, dir)
	var want, got []string
	for _, w := range res.Plan.Plan.Windows {
		want = append(want, w.Key)
	}
	for k, w := range byKey {
		got = append(got, k)
		if w.Load == nil || w.Load.Successes == 0 {
			t.Errorf("%s has no successes after the resume", k)
		}
	}
	sort.Strings(want)
	sort.Strings(got)
	if strings.Join(want, " ") != strings.Join(got, " ") {
		t.Fatalf("final windows after resume:\n got %v\nwant %v", got, want)
	}
	// Process.Seq counts a stack's processes over the whole run: a resume
	// goes on from the stopped invocation's count.
	seqPID := map[string]int{}
	for _, w := range res.Windows {
		k := fmt.Sprintf("%s #%d", w.Stack, w.Process.Seq)
		if pid, ok := seqPID[k]; ok && pid != w.Process.PID {
			t.Errorf("%s names two processes, pids %d and %d", k, pid, w.Process.PID)
		}
		seqPID[k] = w.Process.PID
	}
	if len(res.Environments) != 2 {
		t.Errorf("%d environment records, want one per invocation (2)", len(res.Environments))
	}
	if _, err := os.Stat(filepath.Join(dir, DBPathFile)); !os.IsNotExist(err) {
		t.Errorf("the embedded cluster's path file is still there after the completed run: %v", err)
	}
	if dbDir := strings.TrimSpace(firstDBDir); dbDir == "" {
		t.Errorf("the killed run recorded no embedded cluster directory")
	} else if _, err := os.Stat(dbDir); !os.IsNotExist(err) {
		t.Errorf("the embedded cluster %s is still there after the completed run: %v", dbDir, err)
	}
	if _, err := os.Stat(filepath.Join(dir, journal.ResultsFile)); err != nil {
		t.Errorf("results.json: %v", err)
	}
}

// running reports whether pid is a live process (a zombie waiting for a
// reaper is dead).
// loadRunning reports whether a `stackbench load` process runs in the
// process tree of root.
func loadRunning(root int) bool {
	for _, pid := range proc.TreePIDs(root) {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if args := strings.Split(string(b), "\x00"); len(args) > 1 && args[1] == "load" {
			return true
		}
	}
	return false
}

func running(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(b, ')')
	return i > 0 && i+2 < len(b) && b[i+2] != 'Z' && b[i+2] != 'X'
}

// groupAlive reports whether any live process is in process group pgid.
func groupAlive(pgid int) bool {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(b, ')')
		f := strings.Fields(string(b[i+1:]))
		if len(f) > 2 && f[2] == strconv.Itoa(pgid) && f[0] != "Z" {
			return true
		}
	}
	return false
}
