package cpuset

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The test binary doubles as a helper process: a Go program (so it has
// several threads) that starts a child and sleeps.
func TestMain(m *testing.M) {
	if os.Getenv("CPUSET_HELPER") == "1" {
		child := exec.Command("sleep", "30")
		if err := child.Start(); err != nil {
			os.Exit(3)
		}
		os.Stdout.WriteString(strconv.Itoa(child.Process.Pid) + "\n")
		time.Sleep(30 * time.Second)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func TestStartPinsTheTreeAndRestoresTheThread(t *testing.T) {
	avail, err := Affinity()
	if err != nil {
		t.Fatal(err)
	}
	if len(avail) < 2 {
		t.Skipf("this process may use only %s: a lane would be the whole mask, so pinning cannot be told apart", avail.Describe())
	}
	lane := Of(avail[len(avail)-1])
	for range 5 { // several spawns, so a thread left in the lane would show below
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "CPUSET_HELPER=1")
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := Start(cmd, lane); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		buf := make([]byte, 32)
		n, _ := out.Read(buf)
		childPID, err := strconv.Atoi(strings.TrimSpace(string(buf[:n])))
		if err != nil {
			t.Fatalf("helper printed %q, not its child's pid", buf[:n])
		}
		t.Cleanup(func() { syscallKill(childPID) })
		threads := threadAllowed(t, cmd.Process.Pid)
		if len(threads) < 2 {
			t.Errorf("the helper has %d thread(s); a Go process should have several by now", len(threads))
		}
		for tid, s := range threads {
			if !s.Equal(lane) {
				t.Errorf("helper thread %s runs on %s, want the lane %s", tid, s, lane)
			}
		}
		if got, err := Allowed(childPID); err != nil || !got.Equal(lane) {
			t.Errorf("the helper's child runs on %v (%v), want the lane %s", got, err, lane)
		}
		if got, err := Allowed(cmd.Process.Pid); err != nil || !got.Equal(lane) {
			t.Errorf("Allowed(helper) = %v (%v), want %s", got, err, lane)
		}
	}
	for tid, s := range threadAllowed(t, os.Getpid()) {
		if !s.Equal(avail) {
			t.Errorf("test thread %s was left on %s, want the whole mask %s", tid, s, avail)
		}
	}
}

func TestStartRefusesACPUOutsideTheMask(t *testing.T) {
	avail, err := Affinity()
	if err != nil {
		t.Fatal(err)
	}
	outside := Of(avail[len(avail)-1] + 1)
	if outside[0] > maxCPU {
		t.Skip("the mask already holds the highest CPU")
	}
	cmd := exec.Command("true")
	err = Start(cmd, outside)
	if err == nil {
		cmd.Wait()
		t.Fatalf("Start on %s (outside the mask %s) succeeded", outside, avail)
	}
	if !strings.Contains(err.Error(), "set CPU affinity") {
		t.Errorf("error %q does not say what failed", err)
	}
}

func TestStartWithoutASetLeavesTheMask(t *testing.T) {
	avail, _ := Affinity()
	cmd := exec.Command("sleep", "5")
	if err := Start(cmd, nil); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	if got, err := Allowed(cmd.Process.Pid); err != nil || !got.Equal(avail) {
		t.Errorf("unpinned child runs on %v (%v), want %s", got, err, avail)
	}
	if got := AllowedAll([]int{cmd.Process.Pid, 1 << 30}); !got.Equal(avail) {
		t.Errorf("AllowedAll with a missing pid = %v, want %s", got, avail)
	}
}

// threadAllowed reads each thread's Cpus_allowed_list.
func threadAllowed(t *testing.T, pid int) map[string]Set {
	t.Helper()
	dir := filepath.Join("/proc", strconv.Itoa(pid), "task")
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]Set{}
	for _, e := range ents {
		if s, err := statusAllowed(filepath.Join(dir, e.Name(), "status")); err == nil {
			out[e.Name()] = s
		}
	}
	return out
}

func statusAllowed(path string) (Set, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "Cpus_allowed_list:"); ok {
			return Parse(strings.TrimSpace(rest))
		}
	}
	return nil, fmt.Errorf("%s has no Cpus_allowed_list", path)
}

func syscallKill(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		p.Kill()
	}
}
