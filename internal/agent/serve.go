package agent

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/stackbench/stackbench/internal/pgfix"
	"github.com/stackbench/stackbench/internal/proc"
)

// stopGrace is how long a started tree may take to exit after SIGTERM
// before the agent kills it.
const stopGrace = 2 * time.Second

// maxLine bounds one request line.
const maxLine = 1 << 20

// Serve answers the requests read from r on w until r ends (EOF: the
// coordinator closed the session) or ctx is cancelled, then stops every
// process it started and returns. Requests are answered concurrently, so a
// clock exchange is not held up behind a sample that waits for its end.
func Serve(ctx context.Context, r io.Reader, w io.Writer) error {
	s := &server{enc: json.NewEncoder(w), procs: map[string]*proc.Process{}}
	s.binary = executableHash()
	defer s.run.remove() // after the processes that read its files stopped
	defer s.stopAll()
	defer s.syncs.closeAll()
	defer s.databases.stop()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	lines := make(chan []byte)
	readErr := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64<<10), maxLine)
		for sc.Scan() {
			line := append([]byte(nil), sc.Bytes()...)
			select {
			case lines <- line:
			case <-ctx.Done():
				return
			}
		}
		readErr <- sc.Err()
	}()
	var wg sync.WaitGroup
	defer wg.Wait()
	greeted := false
	for {
		var line []byte
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err := <-readErr:
			cancel() // a sample waiting for its end returns now
			return err
		case line = <-lines:
		}
		var req Request
		if err := json.Unmarshal(line, &req); err != nil {
			s.reply(Response{Error: fmt.Sprintf("agent: a request is not JSON: %v", err)})
			continue
		}
		if !greeted {
			if req.Op != OpHello {
				s.reply(Response{ID: req.ID, Error: fmt.Sprintf("agent: the first request must be %q, not %q", OpHello, req.Op)})
				return errors.New("agent: the coordinator did not say hello")
			}
			if req.Version != Version {
				err := versionError(req.Version, Version)
				s.reply(Response{ID: req.ID, Error: err.Error()})
				return err
			}
			greeted = true
			s.reply(Response{ID: req.ID, Hello: s.hello()})
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.reply(s.handle(ctx, req))
		}()
	}
}

// versionError refuses a peer that speaks another protocol version.
func versionError(coordinator, agent int) error {
	return fmt.Errorf("protocol version mismatch: the coordinator speaks version %d, the agent version %d; run the same stackbench on both sides", coordinator, agent)
}

type server struct {
	mu     sync.Mutex // guards enc and procs
	enc    *json.Encoder
	procs  map[string]*proc.Process
	binary string
	syncs  syncs // directory syncs (sync.go)
	// databases is the session's embedded cluster (database.go).
	databases databases
	// run holds the files sent for the started processes (rundir.go).
	run runDir
	// perfScope is how perf records on this host (perf.go).
	perfScope perfScope
}

func (s *server) reply(r Response) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.enc.Encode(r) // a broken stdout ends the session, and stdin with it
}

func (s *server) hello() *Hello {
	name, _ := os.Hostname()
	return &Hello{Version: Version, Binary: s.binary, OS: runtime.GOOS, Arch: runtime.GOARCH, Hostname: name, CPUs: runtime.NumCPU()}
}

func (s *server) handle(ctx context.Context, req Request) Response {
	resp := Response{ID: req.ID}
	var err error
	switch req.Op {
	case OpHello:
		err = errors.New("agent: hello was already said")
	case OpClock:
		resp.Now = time.Now()
	case OpFreePort:
		resp.Port, err = freePort()
	case OpPostgres:
		var b pgfix.Binaries
		if b, err = pgfix.LocateBinaries(); err == nil {
			resp.Postgres = b.String()
		}
	case OpSyncOpen, OpSyncManifest, OpSyncChunk, OpSyncClose:
		resp.Sync, err = s.syncs.handle(req.Op, req.Sync)
	case OpDatabase:
		resp.Database, err = s.databases.start(ctx, req.Database)
	case OpDatabaseStop:
		err = s.databases.stop()
	case OpStart:
		resp.PID, resp.Boot, resp.Container, err = s.start(ctx, req.Start)
	case OpRemoveContainer:
		resp.Removed, err = removeContainer(ctx, req.Container)
	case OpStop:
		err = s.stop(req.Name)
	case OpSample:
		resp.Sample, err = s.sample(ctx, req.Name, req.Ports, req.From, req.To)
	case OpLoad:
		resp.Result, err = runLoad(ctx, req.Load)
	case OpPerf:
		resp.Profile, err = s.perf(ctx, req.Perf)
	case OpImage:
		resp.Runtime, err = image(ctx, req.Image)
	default:
		err = fmt.Errorf("agent: unknown operation %q (protocol version %d)", req.Op, Version)
	}
	if err != nil {
		resp.Error = err.Error()
	}
	return resp
}

// freePort binds a TCP port on every address and releases it: the host
// lets us listen, and that port was free.
func freePort() (int, error) {
	l, err := net.Listen("tcp", ":0")
	if err != nil {
		return 0, fmt.Errorf("listen on a TCP port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func (s *server) start(ctx context.Context, spec *StartSpec) (pid int, boot time.Duration, container string, err error) {
	if spec == nil || spec.Name == "" {
		return 0, 0, "", errors.New("agent: start names no process")
	}
	if spec.Name == DatabaseProcess {
		return 0, 0, "", fmt.Errorf("agent: the name %q is the embedded database's; start the process under another", DatabaseProcess)
	}
	s.mu.Lock()
	_, dup := s.procs[spec.Name]
	if !dup {
		s.procs[spec.Name] = nil // reserved while it boots
	}
	s.mu.Unlock()
	if dup {
		return 0, 0, "", fmt.Errorf("agent: %q is already started; stop it first", spec.Name)
	}
	p, err := s.startTree(ctx, spec)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		delete(s.procs, spec.Name)
		return 0, 0, "", err
	}
	s.procs[spec.Name] = p
	if c := p.Container(); c != nil {
		container = c.Name
	}
	return p.PID(), p.BootDuration(), container, nil
}

// startTree starts spec's tree, with its log and, for a server with TLS,
// its certificate and key written first (removed again if it fails).
func (s *server) startTree(ctx context.Context, spec *StartSpec) (*proc.Process, error) {
	logPath, err := serverLogPath(spec.LogPath)
	if err != nil {
		return nil, err
	}
	env := spec.Env
	if spec.TLS != nil {
		tlsEnv, err := s.run.writeTLS(spec.Name, spec.TLS)
		if err != nil {
			return nil, err
		}
		env = append(append([]string{}, env...), tlsEnv...)
	}
	ps := proc.Spec{Name: spec.Name, Dir: spec.Dir, Command: spec.Command, Env: env,
		Port: spec.Port, HealthPath: spec.HealthPath, HealthProtocol: spec.HealthProtocol, HealthCA: spec.HealthCA,
		LogPath: logPath, BootTimeout: spec.BootTimeout}
	if spec.Container != nil {
		if ps.Command, ps.Container, err = containerStart(spec, env); err != nil {
			s.run.forget(spec.Name)
			return nil, err
		}
	}
	p, err := proc.Start(ctx, ps)
	if err != nil {
		s.run.forget(spec.Name)
		return nil, err
	}
	return p, nil
}

func (s *server) stop(name string) error {
	s.mu.Lock()
	p, ok := s.procs[name]
	if ok && p != nil {
		delete(s.procs, name)
	}
	s.mu.Unlock()
	if !ok || p == nil {
		return fmt.Errorf("agent: no process %q is running", name)
	}
	err := p.Stop(stopGrace)
	s.run.forget(name)
	return err
}

// stopAll stops every process still running; called when the session ends.
func (s *server) stopAll() {
	s.mu.Lock()
	procs := s.procs
	s.procs = map[string]*proc.Process{}
	s.mu.Unlock()
	var wg sync.WaitGroup
	for _, p := range procs {
		if p != nil {
			wg.Go(func() { p.Stop(stopGrace) })
		}
	}
	wg.Wait()
}

// sample measures the tree of a started process (a container's cgroup,
// for a server in a container) from the instant from to the instant to
// (both on this host's clock) with the samplers a local window uses;
// DatabaseProcess names the embedded cluster's. The trees listening on
// ports are sampled with it, apart (servicesGroups), and so is a
// container's runtime (runtimeGroups).
func (s *server) sample(ctx context.Context, name string, ports []int, from, to time.Time) (*Sample, error) {
	s.mu.Lock()
	p := s.procs[name]
	s.mu.Unlock()
	root := 0
	var server proc.Group
	switch {
	case p != nil:
		root, server = p.PID(), p.Group(name)
	case name == DatabaseProcess:
		root = s.databases.postmaster()
		server = proc.TreeGroup(name, root)
	}
	if root == 0 {
		return nil, fmt.Errorf("agent: no process %q is running", name)
	}
	if !to.After(from) {
		return nil, fmt.Errorf("agent: a sample must end after it starts (from %s, to %s)", from.Format(time.RFC3339Nano), to.Format(time.RFC3339Nano))
	}
	if err := sleepUntil(ctx, from); err != nil {
		return nil, err
	}
	var runtime []proc.Group
	if p != nil {
		runtime = runtimeGroups(p)
	}
	services, unheld := s.servicesGroups(p, root, runtime, ports)
	groups := append(append([]proc.Group{server}, runtime...), services...)
	groups = append(groups, proc.SelfGroup(agentGroup))
	smp := proc.NewSampler(0, groups...)
	smp.Start()
	err := sleepUntil(ctx, to)
	st := smp.Stop()
	if err != nil {
		return nil, err
	}
	g, _ := st.Group(name)
	out := &Sample{Wall: st.Wall, CPUSeconds: g.CPUSeconds, Cores: g.Cores, RSSMeanBytes: g.RSSMeanBytes,
		RSSPeakBytes: g.RSSPeakBytes, HostBusyCores: st.HostBusyCores,
		ForeignProcessCores: st.ForeignProcessCores, ForeignTickCores: st.ForeignTickCores}
	if a, ok := st.Group(agentGroup); ok {
		out.AgentCores = a.Cores
	}
	if len(runtime) > 0 {
		u := sumGroups(st, runtime)
		out.Runtime = &u
	}
	if len(ports) > 0 {
		u := sumGroups(st, services)
		out.Services = &ServicesSample{CPUSeconds: u.CPUSeconds, Cores: u.Cores, RSSMeanBytes: u.RSSMeanBytes,
			RSSPeakBytes: u.RSSPeakBytes, Processes: u.Processes, Unheld: unheld}
	}
	return out, nil
}

// sumGroups sums the figures of groups in st.
func sumGroups(st proc.WindowStats, groups []proc.Group) RuntimeSample {
	var out RuntimeSample
	for _, sg := range groups {
		g, _ := st.Group(sg.Name)
		out.CPUSeconds += g.CPUSeconds
		out.Cores += g.Cores
		out.RSSMeanBytes += g.RSSMeanBytes
		out.RSSPeakBytes += g.RSSPeakBytes
		out.Processes += g.Processes
	}
	return out
}

// servicesGroups are the sampler groups of the trees listening on ports,
// each once, leaving out a listener in the started process p (its tree at
// root, or its container), in the runtime's groups or in the embedded
// database's tree (groups must not overlap), and the ports nobody holds.
func (s *server) servicesGroups(p *proc.Process, root int, runtime []proc.Group, ports []int) (groups []proc.Group, unheld []int) {
	if len(ports) == 0 {
		return nil, nil
	}
	seen := map[int]bool{}
	for _, r := range []int{root, s.databases.postmaster()} {
		if r > 0 {
			for _, pid := range proc.TreePIDs(r) {
				seen[pid] = true
			}
		}
	}
	for _, g := range runtime {
		if g.PIDs != nil {
			for _, pid := range g.PIDs() {
				seen[pid] = true
			}
		}
	}
	for _, port := range ports {
		pid, _, ok := proc.PortHolder(port)
		switch {
		case !ok:
			unheld = append(unheld, port)
		case !seen[pid] && (p == nil || !p.Holds(pid)):
			seen[pid] = true
			groups = append(groups, proc.TreeGroup("service:"+strconv.Itoa(port), pid))
		}
	}
	return groups, unheld
}

func sleepUntil(ctx context.Context, t time.Time) error {
	d := time.Until(t)
	if d <= 0 {
		return nil
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// executableHash is the SHA-256 of the running binary, hex; "" when it
// cannot be read.
func executableHash() string {
	path, err := os.Executable()
	if err != nil {
		return ""
	}
	return fileSum(path)
}

// serverLogPath makes the log of a server the harness names (a bare
// name): a new file of this user's own, under proc.PrivateLogDir.
func serverLogPath(name string) (string, error) {
	dir, err := proc.PrivateLogDir()
	if err != nil {
		return "", fmt.Errorf("agent: %w", err)
	}
	path, err := proc.CreatePrivateLog(dir, name)
	if err != nil {
		return "", fmt.Errorf("agent: %w (the harness names a server's log by a bare name)", err)
	}
	return path, nil
}

// agentGroup names the agent's own process in its samples: the harness's
// overhead on its host, kept out of foreign CPU.
const agentGroup = "stackbench-agent"
