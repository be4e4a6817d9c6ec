package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
)

// perfCounts is perf stat's CSV output for one window.
type perfCounts struct{ raw bytes.Buffer }

// count returns the value of event ("" when perf did not count it).
func (p *perfCounts) count(event string) float64 {
	for _, line := range strings.Split(p.raw.String(), "\n") {
		f := strings.Split(line, ",")
		if len(f) >= 3 && f[2] == event {
			v, err := strconv.ParseFloat(f[0], 64)
			if err == nil {
				return v
			}
		}
	}
	return -1
}

// perfPass runs one window per variant under perf stat and prints system
// calls, context switches and migrations per request: if they are the
// same in every variant, a difference of CPU per request is a difference
// of cost per event, not of work.
func perfPass(o *options) error {
	if _, err := exec.LookPath("perf"); err != nil {
		return fmt.Errorf("-perf needs perf (Debian: apt-get install linux-perf)")
	}
	fmt.Println("\none window per variant under perf stat (its CPU figures include perf's and are not kept):")
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "variant\trequests\tsyscalls/req\tcontext switches/req\tmigrations/req\t")
	for _, v := range o.variants {
		var c perfCounts
		w, err := measure(o, v, 0, &c)
		if err != nil {
			return fmt.Errorf("perf window, %s: %w", v, err)
		}
		n := float64(w.Requests)
		fmt.Fprintf(tw, "%s\t%d\t%.1f\t%.2f\t%.3f\t\n", v, w.Requests,
			c.count("raw_syscalls:sys_enter")/n, c.count("context-switches")/n, c.count("cpu-migrations")/n)
	}
	return tw.Flush()
}

// spin measures one getppid's CPU cost natively, in docker and in docker
// without seccomp: five runs each, alternating, the median kept.
func spin(o *options) error {
	const calls = "5000000"
	cpu := strconv.Itoa(max(o.serverCPU, 0))
	cmds := map[string][]string{
		"native":            {"taskset", "-c", cpu, o.spinner, "-n", calls},
		"docker":            {o.docker, "run", "--rm", "--network", "host", "--cpuset-cpus", cpu, "--entrypoint", "/spin", o.image, "-n", calls},
		"docker-unconfined": {o.docker, "run", "--rm", "--network", "host", "--cpuset-cpus", cpu, "--security-opt", "seccomp=unconfined", "--entrypoint", "/spin", o.image, "-n", calls},
	}
	order := []string{"native", "docker", "docker-unconfined"}
	got := map[string][]float64{}
	for range 5 {
		for _, v := range order {
			out, err := exec.Command(cmds[v][0], cmds[v][1:]...).CombinedOutput()
			if err != nil {
				return fmt.Errorf("spin, %s: %v: %s", v, err, out)
			}
			ns, err := strconv.ParseFloat(strings.TrimSpace(string(out)), 64)
			if err != nil {
				return fmt.Errorf("spin, %s: output %q", v, out)
			}
			got[v] = append(got[v], ns)
		}
	}
	fmt.Println("one system call (getppid), CPU ns per call, median of 5 runs:")
	for _, v := range order {
		fmt.Printf("  %-18s %6.1f ns  (runs %.1f)\n", v, median(got[v]), got[v])
	}
	fmt.Println()
	return nil
}

// contextSwitches is the sum of voluntary and involuntary context
// switches of pid's threads now (from /proc/<pid>/task/*/status).
func contextSwitches(pid int) int64 {
	tasks, _ := filepath.Glob(filepath.Join("/proc", strconv.Itoa(pid), "task", "*", "status"))
	var n int64
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			k, v, ok := strings.Cut(line, ":")
			if ok && (k == "voluntary_ctxt_switches" || k == "nonvoluntary_ctxt_switches") {
				x, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
				n += x
			}
		}
	}
	return n
}
