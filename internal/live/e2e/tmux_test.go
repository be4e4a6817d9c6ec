package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stackbench/stackbench/internal/run"
)

// TestTerminalStatusUnderTmux runs stackbench in a tmux pane 80 columns
// wide and captures the pane as the run goes: while windows are measured
// the status holds at most six lines under the run's first line, none
// wrapped, with the progress bar, the round and the open step by name,
// and no window's line scrolls by; the full lines are in run.log.
func TestTerminalStatusUnderTmux(t *testing.T) {
	t.Parallel()
	tmux := tool(t, "tmux")
	file := comparison(t, 3)
	out := filepath.Join(t.TempDir(), "results")
	sock := filepath.Join(t.TempDir(), "tmux.sock")
	tm := func(args ...string) (string, error) {
		b, err := exec.Command(tmux, append([]string{"-S", sock}, args...)...).CombinedOutput()
		return string(b), err
	}
	script := bins.Stackbench + " run -f " + file + " --out " + out + " --skip-parity; echo STACKBENCH-EXIT=$?; sleep 120"
	if b, err := tm("new-session", "-d", "-x", "80", "-y", "40", "-s", "live", "sh", "-c", script); err != nil {
		t.Fatalf("tmux new-session: %v\n%s", err, b)
	}
	t.Cleanup(func() { tm("kill-server") })

	bar := regexp.MustCompile(`[█░]{20} +\d+% \d+/\d+ · round \d of 3 · ETA`)
	windowLine := regexp.MustCompile(`\[\d+/\d+\] r\d/`)
	var during []string
	openSeen := false
	deadline := time.Now().Add(90 * time.Second)
	var pane string
	for time.Now().Before(deadline) {
		var err error
		pane, err = tm("capture-pane", "-p", "-t", "live")
		if err != nil {
			t.Fatalf("tmux capture-pane: %v\n%s", err, pane)
		}
		if strings.Contains(pane, "STACKBENCH-EXIT=") {
			break
		}
		if bar.MatchString(pane) {
			during = append(during, pane)
			openSeen = openSeen || strings.Contains(pane, "open (1): flaky → flaky-b ok c=2")
		}
		time.Sleep(100 * time.Millisecond)
	}
	if !strings.Contains(pane, "STACKBENCH-EXIT=0") {
		t.Fatalf("the run did not end well within 90 s; the pane:\n%s", pane)
	}
	if len(during) == 0 {
		t.Fatalf("no capture showed the status while windows were measured; the last pane:\n%s", pane)
	}
	for _, p := range during {
		lines := strings.Split(strings.TrimRight(p, "\n "), "\n")
		first := -1
		for i, l := range lines {
			if first < 0 && bar.MatchString(l) {
				first = i
			}
		}
		status := lines[first:]
		if len(status) > run.StatusLines {
			t.Errorf("the status takes %d lines at 80 columns, want at most %d:\n%s", len(status), run.StatusLines, strings.Join(status, "\n"))
		}
		for _, l := range status {
			if utf8.RuneCountInString(l) >= 80 {
				t.Errorf("a status line fills the pane's 80 columns (it wrapped, or would): %q", l)
			}
		}
		if windowLine.MatchString(strings.Join(lines[:first], "\n")) {
			t.Errorf("a window's line scrolled onto the pane:\n%s", p)
		}
	}
	if !openSeen {
		t.Errorf("no capture named the open step; the last one during the windows:\n%s", during[len(during)-1])
	}
	log, err := os.ReadFile(filepath.Join(out, run.LogFile))
	if err != nil || !windowLine.Match(log) {
		t.Errorf("run.log holds no window's line (%v):\n%.500s", err, log)
	}
	t.Logf("a capture during the run:\n%s", during[len(during)-1])
}
