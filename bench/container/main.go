// Command container measures what running a server in a container costs
// in CPU per request, and where the cost comes from. It runs the same
// static binary (bench/load/server) as several variants, in rotated order
// every round, each under the same fixed offered rate:
//
//	native             the binary, pinned with affinity
//	native-cgroup      the same, moved into cgroups of its own (v1: cpu,
//	                   cpuacct, memory, pids; v2: one group): the cgroup's
//	                   scheduling and accounting without a container
//	docker             docker run, host network, FROM scratch (the default
//	                   seccomp profile)
//	docker-unconfined  the same with --security-opt seccomp=unconfined
//
// Each window's server CPU is read twice where it can be: from the cgroup's
// counter (cpuacct.usage, or cpu.stat's usage_usec) and from the process
// table (/proc/<pid>/stat of the server's tree), so a difference of
// accounting shows as a difference between the two columns of one variant,
// and a real cost as a difference between variants in both.
//
//	go run ./bench/container                         # 7 rounds × 3 s, 1,500 req/s, light server
//	go run ./bench/container -work 600 -rounds 5     # the CPU-heavy server of the test
//	go run ./bench/container -perf                   # also count syscalls and context switches per request
//	go run ./bench/container -spin                   # also the CPU cost of one system call in each variant
//	go run ./bench/container -duet                   # every variant loaded at once in each round: one set of neighbours for all
//
// It needs root (cgroups, docker) and a running docker daemon. The server
// is pinned to -server-cpu and this process (the load generator) to
// -generator-cpu; -server-cpu -1 pins nothing.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/stackbench/stackbench/internal/cpuset"
	"github.com/stackbench/stackbench/internal/load"
	"github.com/stackbench/stackbench/internal/netutil"
	"github.com/stackbench/stackbench/internal/platform/local"
	"github.com/stackbench/stackbench/internal/proc"
)

var allVariants = []string{"native", "native-cgroup", "docker", "docker-unconfined"}

type options struct {
	rounds              int
	window, warmup      time.Duration
	rate                float64
	conns               int
	work                int
	variants            []string
	serverCPU, genCPU   int
	perf, spin, duet    bool
	maxForeign          float64
	tries               int
	out                 string
	docker, tmp, image  string
	server, spinner     string
	cgroupRoot          string
	cgroupV1Controllers []string
	cgroupN             int
}

// window is one measured window of one variant.
type window struct {
	Variant  string  `json:"variant"`
	Round    int     `json:"round"`
	Requests int64   `json:"requests"`
	Seconds  float64 `json:"wall_s"`
	// CgroupCPU is the server's CPU by its cgroup's counter (0: none);
	// TreeCPU by the process table.
	CgroupCPU    float64 `json:"cgroup_cpu_s"`
	TreeCPU      float64 `json:"tree_cpu_s"`
	ForeignCores float64 `json:"foreign_cores"`
	HostBusy     float64 `json:"host_busy_cores"`
	// Switches is the server's context switches (voluntary and not, all
	// its threads) during the window: a light server's CPU per request
	// follows how many requests each wake-up serves.
	Switches int64 `json:"context_switches"`
	// Busy is set when every attempt saw more foreign CPU than -max-foreign.
	Busy bool `json:"busy"`
}

// primary is the figure a run would use: the cgroup's for a container,
// the tree's for a native stack.
func (w window) primary() float64 {
	if w.CgroupCPU > 0 {
		return w.CgroupCPU
	}
	return w.TreeCPU
}

func us(cpu float64, n int64) float64 { return cpu / float64(n) * 1e6 }

func main() {
	var o options
	var variants string
	flag.IntVar(&o.rounds, "rounds", 7, "rounds; each runs every variant once, in rotated order")
	flag.DurationVar(&o.window, "window", 3*time.Second, "measured window")
	flag.DurationVar(&o.warmup, "warmup", time.Second, "unmeasured load before each window")
	flag.Float64Var(&o.rate, "rate", 1500, "offered rate, requests per second (open loop)")
	flag.IntVar(&o.conns, "c", 16, "connections")
	flag.IntVar(&o.work, "work", 0, "the server's SHA-256 rounds per request (0: the light server; the test's heavy one is 600)")
	flag.StringVar(&variants, "variants", strings.Join(allVariants, ","), "variants to run, comma-separated")
	flag.IntVar(&o.serverCPU, "server-cpu", 0, "CPU to pin the server to (-1: no pinning)")
	flag.IntVar(&o.genCPU, "generator-cpu", 1, "CPU to pin this process (the load generator) to")
	flag.BoolVar(&o.perf, "perf", false, "after the rounds, one window per variant under perf stat: syscalls and context switches per request")
	flag.BoolVar(&o.duet, "duet", false, "measure every variant at once in each round (the same neighbours for all), instead of one after the other")
	flag.BoolVar(&o.spin, "spin", false, "measure one system call's CPU cost natively, in docker and in docker without seccomp")
	flag.Float64Var(&o.maxForeign, "max-foreign", 0.5, "redo a window whose foreign CPU (other processes of the host) passed this many cores")
	flag.IntVar(&o.tries, "tries", 5, "the most attempts at one window before its last is kept (marked *)")
	flag.StringVar(&o.out, "o", "", "write every window as a JSON line to this file")
	flag.Parse()
	o.variants = strings.Split(variants, ",")
	for _, v := range o.variants {
		if !slices.Contains(allVariants, v) {
			fatalf("unknown variant %q; choose from %s", v, strings.Join(allVariants, ", "))
		}
	}
	if err := run(&o); err != nil {
		fatalf("%v", err)
	}
}

func fatalf(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "container: "+format+"\n", a...)
	os.Exit(1)
}

func run(o *options) error {
	docker, err := exec.LookPath("docker")
	if err != nil {
		return fmt.Errorf("no docker on PATH (Debian: apt-get install docker.io)")
	}
	if out, err := exec.Command(docker, "info", "--format", "{{.ServerVersion}}").CombinedOutput(); err != nil {
		return fmt.Errorf("docker info: %v: %s (start the daemon: dockerd &)", err, strings.TrimSpace(string(out)))
	}
	o.docker = docker
	if o.tmp, err = os.MkdirTemp("", "stackbench-container-"); err != nil {
		return err
	}
	defer os.RemoveAll(o.tmp)
	if err := build(o); err != nil {
		return err
	}
	defer exec.Command(docker, "rmi", "--force", o.image).Run()
	// Interrupted, it still removes its image, containers and cgroups.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sig
		out, _ := exec.Command(docker, "ps", "--all", "--quiet", "--filter", "name=stackbench-bench-"+strconv.Itoa(os.Getpid())).Output()
		for _, id := range strings.Fields(string(out)) {
			exec.Command(docker, "rm", "--force", id).Run()
		}
		exec.Command(docker, "rmi", "--force", o.image).Run()
		dirs, _ := filepath.Glob(filepath.Join(o.cgroupRoot, "*", fmt.Sprintf("stackbench-bench-%d-*", os.Getpid())))
		more, _ := filepath.Glob(filepath.Join(o.cgroupRoot, fmt.Sprintf("stackbench-bench-%d-*", os.Getpid())))
		time.Sleep(time.Second) // the native servers die with us (parent-death signal)
		for _, d := range append(dirs, more...) {
			os.Remove(d)
		}
		os.RemoveAll(o.tmp)
		os.Exit(130)
	}()
	if o.serverCPU >= 0 {
		if err := cpuset.Pin([]int{os.Getpid()}, cpuset.Of(o.genCPU)); err != nil {
			return fmt.Errorf("pin the generator to CPU %d: %w", o.genCPU, err)
		}
	}
	findCgroups(o)
	printHost(o)
	if o.spin {
		if err := spin(o); err != nil {
			return err
		}
	}
	var all []window
	for round := range o.rounds {
		if o.duet {
			order := append(slices.Clone(o.variants[round%len(o.variants):]), o.variants[:round%len(o.variants)]...)
			ws, err := measureDuet(o, order, round+1)
			if err != nil {
				return fmt.Errorf("round %d: %w", round+1, err)
			}
			for _, w := range ws {
				fmt.Printf("round %d  %-18s %6d req  cgroup %6.1f µs/req  tree %6.1f µs/req  %5.2f switches/req  foreign %.2f cores\n",
					w.Round, w.Variant, w.Requests, orNaN(w.CgroupCPU, w.Requests), us(w.TreeCPU, w.Requests), float64(w.Switches)/float64(w.Requests), w.ForeignCores)
			}
			all = append(all, ws...)
			continue
		}
		for i := range o.variants {
			v := o.variants[(i+round)%len(o.variants)]
			var w window
			for try := 1; ; try++ {
				w, err = measure(o, v, round+1, nil)
				if err != nil {
					return fmt.Errorf("round %d, %s: %w", round+1, v, err)
				}
				if w.ForeignCores <= o.maxForeign || try == o.tries {
					w.Busy = w.ForeignCores > o.maxForeign
					break
				}
				time.Sleep(2 * time.Second)
			}
			mark := " "
			if w.Busy {
				mark = "*"
			}
			fmt.Printf("round %d%s %-18s %6d req  cgroup %6.1f µs/req  tree %6.1f µs/req  %5.2f switches/req  foreign %.2f cores\n",
				w.Round, mark, w.Variant, w.Requests, orNaN(w.CgroupCPU, w.Requests), us(w.TreeCPU, w.Requests), float64(w.Switches)/float64(w.Requests), w.ForeignCores)
			all = append(all, w)
		}
	}
	if o.out != "" {
		if err := writeJSON(o.out, all); err != nil {
			return err
		}
	}
	summarize(o, all)
	if o.perf {
		return perfPass(o)
	}
	return nil
}

func orNaN(cpu float64, n int64) float64 {
	if cpu == 0 {
		return 0
	}
	return us(cpu, n)
}

// build compiles the server and the spinner statically and puts both in
// an image FROM scratch.
func build(o *options) error {
	o.server, o.spinner = filepath.Join(o.tmp, "server"), filepath.Join(o.tmp, "spin")
	for bin, pkg := range map[string]string{o.server: "./bench/load/server", o.spinner: "./bench/container/spin"} {
		cmd := exec.Command("go", "build", "-o", bin, pkg)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go build %s (run from the repository's root): %v\n%s", pkg, err, out)
		}
	}
	df := "FROM scratch\nCOPY server /server\nCOPY spin /spin\nENTRYPOINT [\"/server\"]\n"
	if err := os.WriteFile(filepath.Join(o.tmp, "Dockerfile"), []byte(df), 0o644); err != nil {
		return err
	}
	o.image = "stackbench-bench-container:" + strconv.Itoa(os.Getpid())
	if out, err := exec.Command(o.docker, "build", "--quiet", "--tag", o.image, o.tmp).CombinedOutput(); err != nil {
		return fmt.Errorf("docker build: %v\n%s", err, out)
	}
	return nil
}

// findCgroups decides where native-cgroup makes its groups: under each v1
// controller that a container gets, or in the v2 tree.
func findCgroups(o *options) {
	o.cgroupRoot = "/sys/fs/cgroup"
	for _, c := range []string{"cpu", "cpuacct", "memory", "pids"} {
		if _, err := os.Stat(filepath.Join(o.cgroupRoot, c, "cgroup.procs")); err == nil {
			o.cgroupV1Controllers = append(o.cgroupV1Controllers, c)
		}
	}
}

func printHost(o *options) {
	f := local.OS.Facts()
	out, _ := exec.Command(o.docker, "info", "--format", "docker {{.ServerVersion}}, cgroup v{{.CgroupVersion}}, security {{.SecurityOptions}}").Output()
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Printf("host: %s, %s, %d CPUs; %s; load average %s", f.Kernel, f.CPUModel, f.CPUCount, strings.TrimSpace(string(out)), load)
	pin := "no pinning"
	if o.serverCPU >= 0 {
		pin = fmt.Sprintf("server on CPU %d, generator on CPU %d", o.serverCPU, o.genCPU)
	}
	fmt.Printf("%d rounds × %s (after %s warm-up), %.0f req/s over %d connections, work %d, %s; a window is redone (up to %d attempts) while foreign CPU passes %.2f cores\n\n",
		o.rounds, o.window, o.warmup, o.rate, o.conns, o.work, pin, o.tries, o.maxForeign)
}

// server is one started variant.
type server struct {
	p       *proc.Process
	pid     int    // the server's own process
	cgroup  string // what the cgroup counter reads, "" for native
	cleanup func()
}

func start(o *options, variant string) (*server, error) {
	port, err := netutil.FreePort()
	if err != nil {
		return nil, err
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	args := fmt.Sprintf("-addr %s -work %d", addr, o.work)
	spec := proc.Spec{Name: variant, Dir: o.tmp, Command: o.server + " " + args, Port: port, HealthPath: "/",
		LogPath: filepath.Join(o.tmp, variant+".log"), BootTimeout: time.Minute}
	if o.serverCPU >= 0 {
		spec.CPUs = cpuset.Of(o.serverCPU)
	}
	if strings.HasPrefix(variant, "docker") {
		name := fmt.Sprintf("stackbench-bench-%d-%d", os.Getpid(), port)
		flags := "--rm --network host --name " + name
		if o.serverCPU >= 0 {
			flags += " --cpuset-cpus " + strconv.Itoa(o.serverCPU)
		}
		if variant == "docker-unconfined" {
			flags += " --security-opt seccomp=unconfined"
		}
		spec.Command = fmt.Sprintf("%s run %s %s %s", o.docker, flags, o.image, args)
		spec.Container = &proc.Container{Runtime: o.docker, Name: name}
		spec.CPUs = nil // the runtime's command is not the server
	}
	p, err := proc.Start(context.Background(), spec)
	if err != nil {
		return nil, err
	}
	s := &server{p: p, pid: p.PID(), cleanup: func() { p.Stop(5 * time.Second) }}
	if p.InContainer() {
		s.pid = p.ContainerPID()
		s.cgroup, _ = local.OS.Cgroup(s.pid)
		return s, nil
	}
	if variant == "native-cgroup" {
		dirs, err := ownCgroups(o, s.pid)
		if err != nil {
			p.Stop(5 * time.Second)
			return nil, err
		}
		s.cgroup, _ = local.OS.Cgroup(s.pid)
		s.cleanup = func() {
			p.Stop(5 * time.Second)
			for _, d := range dirs {
				os.Remove(d)
			}
		}
	}
	return s, nil
}

// ownCgroups moves pid (all its threads) into new cgroups and returns
// their directories, to remove once it has exited.
func ownCgroups(o *options, pid int) ([]string, error) {
	o.cgroupN++
	name := fmt.Sprintf("stackbench-bench-%d-%d", os.Getpid(), o.cgroupN)
	parents := []string{o.cgroupRoot}
	if len(o.cgroupV1Controllers) > 0 {
		parents = nil
		for _, c := range o.cgroupV1Controllers {
			parents = append(parents, filepath.Join(o.cgroupRoot, c))
		}
	}
	var dirs []string
	for _, parent := range parents {
		dir := filepath.Join(parent, name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			return dirs, fmt.Errorf("make a cgroup (needs root): %w", err)
		}
		dirs = append(dirs, dir)
		if err := os.WriteFile(filepath.Join(dir, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0o644); err != nil {
			return dirs, fmt.Errorf("move pid %d into %s: %w", pid, dir, err)
		}
	}
	return dirs, nil
}

// measure starts the variant, warms it up, and measures one window; with
// counters, the window also runs under perf stat (CPU figures then
// include perf's own cost and are not kept).
func measure(o *options, variant string, round int, counters *perfCounts) (window, error) {
	s, err := start(o, variant)
	if err != nil {
		return window{}, err
	}
	defer s.cleanup()
	url := "http://127.0.0.1:" + strconv.Itoa(s.p.Port()) + "/"
	cfg := load.Config{URL: url, Connections: o.conns, Rate: o.rate, Duration: o.warmup}
	if _, err := load.Run(context.Background(), cfg); err != nil {
		return window{}, fmt.Errorf("warm-up: %w", err)
	}
	groups := []proc.Group{proc.TreeGroup("tree", s.pid), proc.SelfGroup("harness")}
	if s.cgroup != "" {
		groups = append(groups, proc.CgroupGroup("cgroup", s.cgroup))
	}
	if g, ok := s.p.RuntimeGroup("runtime-cli"); ok {
		groups = append(groups, g, proc.DaemonsGroup("runtime-daemons"))
	}
	var perf *exec.Cmd
	if counters != nil {
		perf = exec.Command("perf", "stat", "-x", ",", "-e", "raw_syscalls:sys_enter,context-switches,cpu-migrations",
			"-p", strconv.Itoa(s.pid), "--", "sleep", strconv.FormatFloat(o.window.Seconds(), 'f', 3, 64))
		perf.Stderr = &counters.raw
		if err := perf.Start(); err != nil {
			return window{}, fmt.Errorf("perf stat: %w", err)
		}
		time.Sleep(100 * time.Millisecond) // attached before the load starts
	}
	sm := proc.NewSampler(0, groups...)
	switches := contextSwitches(s.pid)
	sm.Start()
	cfg.Duration = o.window
	res, err := load.Run(context.Background(), cfg)
	ws := sm.Stop()
	switches = contextSwitches(s.pid) - switches
	if err != nil {
		return window{}, err
	}
	if perf != nil {
		if err := perf.Wait(); err != nil {
			return window{}, fmt.Errorf("perf stat: %w: %s", err, counters.raw.String())
		}
	}
	tree, _ := ws.Group("tree")
	w := window{Variant: variant, Round: round, Requests: res.Successes, Seconds: ws.Wall.Seconds(),
		TreeCPU: tree.CPUSeconds, ForeignCores: ws.ForeignCores, HostBusy: ws.HostBusyCores, Switches: switches}
	if cg, ok := ws.Group("cgroup"); ok {
		w.CgroupCPU = cg.CPUSeconds
		// The tree and the cgroup are the same processes, counted twice
		// by the sampler: give foreign back the second count.
		w.ForeignCores += tree.Cores
	}
	if w.Requests < 100 {
		return w, fmt.Errorf("only %d requests succeeded; is the server answering?", w.Requests)
	}
	return w, nil
}

func writeJSON(path string, all []window) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(f)
	for _, w := range all {
		enc.Encode(w)
	}
	return f.Close()
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// summarize prints per variant the median CPU per request by each count,
// and the median of each round's ratio to native (paired by round).
func summarize(o *options, all []window) {
	byRound := map[int]map[string]window{}
	for _, w := range all {
		if byRound[w.Round] == nil {
			byRound[w.Round] = map[string]window{}
		}
		byRound[w.Round][w.Variant] = w
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Println()
	fmt.Fprintln(tw, "variant\tµs/req (run's count)\tcgroup µs/req\ttree µs/req\tcgroup ÷ tree\t÷ native, paired\tper round\tswitches/req\tforeign cores\t")
	for _, v := range o.variants {
		var prim, cg, tr, agree, ratio, foreign, sw []float64
		for round := 1; round <= o.rounds; round++ {
			w, ok := byRound[round][v]
			if !ok {
				continue
			}
			prim = append(prim, us(w.primary(), w.Requests))
			tr = append(tr, us(w.TreeCPU, w.Requests))
			foreign = append(foreign, w.ForeignCores)
			sw = append(sw, float64(w.Switches)/float64(w.Requests))
			if w.CgroupCPU > 0 {
				cg = append(cg, us(w.CgroupCPU, w.Requests))
				agree = append(agree, w.CgroupCPU/w.TreeCPU)
			}
			if n, ok := byRound[round]["native"]; ok {
				ratio = append(ratio, us(w.primary(), w.Requests)/us(n.primary(), n.Requests))
			}
		}
		rounds := make([]string, len(ratio))
		for i, r := range ratio {
			rounds[i] = fmt.Sprintf("%.2f", r)
		}
		fmt.Fprintf(tw, "%s\t%.1f\t%s\t%.1f\t%s\t%.2f×\t%s\t%.2f\t%.2f\t\n", v, median(prim), dash(median(cg)), median(tr),
			dashf(median(agree), "%.3f"), median(ratio), strings.Join(rounds, " "), median(sw), median(foreign))
	}
	tw.Flush()
}

func dash(x float64) string { return dashf(x, "%.1f") }

func dashf(x float64, format string) string {
	if x == 0 {
		return "—"
	}
	return fmt.Sprintf(format, x)
}
