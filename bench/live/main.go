// Command live measures what the live page costs: it replays a journal
// into a fresh results directory at a run's pace, with `stackbench report
// --live DIR` following it in its own process and one page's event stream
// connected, and reads that process's CPU time from /proc. The code that
// follows is the code `run --live` runs in the harness's process, so the
// figure is the harness's extra CPU with a page open (the browser's own is
// not in it).
//
//	go build -o /tmp/sb ./cmd/stackbench
//	go run ./bench/live -stackbench /tmp/sb -duration 9m
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/platform/local"
)

func main() {
	src := flag.String("journal", "internal/report/testdata/run/journal.jsonl", "the journal to replay")
	sb := flag.String("stackbench", "", "the stackbench binary (go build -o /tmp/sb ./cmd/stackbench)")
	dur := flag.Duration("duration", 9*time.Minute, "how long the replayed windows take, first to last")
	flag.Parse()
	if *sb == "" {
		fmt.Fprintln(os.Stderr, "name the stackbench binary: -stackbench PATH")
		os.Exit(2)
	}
	if err := measure(*src, *sb, *dur); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func measure(src, sb string, dur time.Duration) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	lines := bytes.SplitAfter(b, []byte("\n"))
	first := 0
	for i, l := range lines {
		if bytes.Contains(l, []byte(`"kind":"window"`)) {
			first = i
			break
		}
	}
	windows := 0
	for _, l := range lines[first:] {
		if bytes.Contains(l, []byte(`"kind":"window"`)) {
			windows++
		}
	}
	dir, err := os.MkdirTemp("", "live-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	// Hold the directory as a run does, so the page sees a run going on.
	lock, err := os.OpenFile(filepath.Join(dir, ".lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	if err := local.TryLock(lock); err != nil {
		return err
	}
	j, err := os.OpenFile(filepath.Join(dir, journal.FileName), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	j.Write(bytes.Join(lines[:first], nil))

	cmd := exec.Command(sb, "report", "--live", dir)
	stderr, _ := cmd.StderrPipe()
	cmd.Stdout = io.Discard
	if err := cmd.Start(); err != nil {
		return err
	}
	defer cmd.Process.Kill()
	url := make(chan string, 1)
	go func() {
		re := regexp.MustCompile(`live page: (\S+)`)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				url <- m[1]
			}
		}
	}()
	u := <-url
	resp, err := http.Get(strings.Replace(u, "/?", "/events?", 1))
	if err != nil {
		return err
	}
	var events, bytesIn, reports atomic.Int64
	done := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			line := sc.Text()
			bytesIn.Add(int64(len(line) + 1))
			if strings.HasPrefix(line, "event: ") {
				events.Add(1)
				if line == "event: report" {
					reports.Add(1)
				}
				if line == "event: done" {
					close(done)
					return
				}
			}
		}
	}()
	cpu0, t0 := cpuSeconds(cmd.Process.Pid), time.Now()
	gap := dur / time.Duration(max(windows, 1))
	for _, l := range lines[first:] {
		if _, err := j.Write(l); err != nil {
			return err
		}
		if bytes.Contains(l, []byte(`"kind":"window"`)) {
			time.Sleep(gap)
		}
	}
	j.Close()
	// The run ends: results.json, the lock released.
	os.WriteFile(filepath.Join(dir, journal.ResultsFile), []byte("{}"), 0o600)
	lock.Close()
	select {
	case <-done:
	case <-time.After(time.Minute):
		return fmt.Errorf("the page never said done")
	}
	cpu, wall := cpuSeconds(cmd.Process.Pid)-cpu0, time.Since(t0)
	cmd.Process.Signal(syscall.SIGINT)
	cmd.Wait()
	fmt.Printf("replayed %d windows over %s (one every %s); %d events, %d reports, %.1f MiB sent\n",
		windows, wall.Round(time.Second), gap.Round(time.Millisecond), events.Load(), reports.Load(), float64(bytesIn.Load())/(1<<20))
	fmt.Printf("report --live CPU: %.2f s over %s = %.3f %% of a core; %.1f ms per window\n",
		cpu, wall.Round(time.Second), 100*cpu/wall.Seconds(), 1000*cpu/float64(windows))
	return nil
}

// cpuSeconds is a process's user+system CPU time, from /proc/PID/stat.
func cpuSeconds(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	ut, _ := strconv.ParseFloat(f[11], 64)
	st, _ := strconv.ParseFloat(f[12], 64)
	return (ut + st) / 100 // USER_HZ
}
