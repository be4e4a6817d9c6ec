package run

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/pprof/profile"

	"github.com/stackbench/stackbench/internal/fileutil"
	"github.com/stackbench/stackbench/internal/journal"
	"github.com/stackbench/stackbench/internal/netutil"
	"github.com/stackbench/stackbench/internal/pgfix"
	"github.com/stackbench/stackbench/internal/plan"
	"github.com/stackbench/stackbench/internal/proc"
	"github.com/stackbench/stackbench/internal/profiling"
	"github.com/stackbench/stackbench/internal/profiling/perfrec"
	"github.com/stackbench/stackbench/internal/workload"
)

// maxStatements bounds the statements kept per profile window.
const maxStatements = 10

// profilerTools is what the profiling phase samples with.
type profilerTools struct {
	// remotePerf is true when the servers run on another host, whose
	// agent records them with perf (windowMarks.serverPerf).
	remotePerf bool
	// perf is true when perf record works here (perfrec.Check), and
	// perfScope what it records.
	perf      bool
	perfScope perfrec.Scope
	// db is a connection of the phase's own for pg_stat_statements; nil
	// without a database or without the extension.
	db *pgfix.DB
	// caPEM is the run's throwaway authority (stack.TLSFiles), which a
	// stack with tls: on serves its pprof: endpoints under; nil when no
	// stack has TLS.
	caPEM []byte
}

func (t *profilerTools) close() {
	if t.db != nil {
		t.db.Close()
	}
}

// profileSession samples one profile window: started at the window's
// opening snapshot and stopped at its closing one (windowSampler hooks).
type profileSession struct {
	t         *profilerTools
	base      string
	client    *http.Client // over the stack's wire (workload.WireClient)
	clientErr error
	pprof     string
	serverPID int
	dbRoot    int
	usesDB    bool
	win       time.Duration
	dir, stem string

	wg       sync.WaitGroup
	started  bool
	closed   chan struct{}
	stopOnce sync.Once

	// What the sampling gave; read after wait.
	cpu, allocsBefore, allocsAfter []byte
	cpuErr, allocsErr              error
	perfData                       string
	perfErr                        error
	perfRec                        *perfrec.Recording
	// remoteProfile is the server host's perf profile of the server
	// (gzipped pprof), perfErr why there is none.
	remoteProfile []byte
	// opened and closed are the window's boundaries (wall clock), the
	// span of perf's samples kept.
	opened, closedAt   time.Time
	serverPIDs, dbPIDs map[int]bool
	stmts              []pgfix.Statement
	stmtErr            error
	// database is the name of the stack's own database, whose statements
	// are read.
	database string
}

// session prepares the sampling of one window of cur, reached at addr
// (127.0.0.1, or its server host's address), on case c; dbRoot is
// PostgreSQL's root process (0: none), dir and stem where its files go.
func (t *profilerTools) session(cur *server, addr string, c workload.Case, dbRoot int, win time.Duration, dir, stem string) *profileSession {
	base := cur.stack.Wire.Scheme() + "://" + net.JoinHostPort(addr, strconv.Itoa(cur.tree.Port()))
	s := &profileSession{t: t, base: base, pprof: strings.TrimSuffix(cur.stack.Pprof, "/"),
		serverPID: cur.tree.PID(), dbRoot: dbRoot, usesDB: c.Database, win: win, dir: dir, stem: stem, closed: make(chan struct{})}
	s.client, s.clientErr = pprofClient(cur.stack.Wire, t.caPEM)
	return s
}

// pprofClient reads a stack's pprof: endpoints over its own wire: HTTP/2
// with prior knowledge for h2c, TLS trusting caPEM (the run's authority)
// for a stack with tls: on; redirects followed on the loopback only.
func pprofClient(w plan.Wire, caPEM []byte) (*http.Client, error) {
	if !w.TLS {
		caPEM = nil
	}
	c, err := workload.WireClient(w.Protocol, caPEM, 0)
	if err != nil {
		return nil, err
	}
	c.CheckRedirect = netutil.LoopbackRedirects
	return c, nil
}

// start begins sampling; called with the window's opening snapshot,
// under the sampler's lock, so the work goes to a goroutine.
func (s *profileSession) start() {
	s.started = true
	s.opened = time.Now()
	s.wg.Add(1)
	go s.run()
}

// stop marks the window's end: the allocation profile is read again.
func (s *profileSession) stop() {
	s.stopOnce.Do(func() {
		s.closedAt = time.Now()
		close(s.closed)
	})
}

// remotePerfDone keeps the server host's perf profile of the window
// (windowMarks.serverPerf).
func (s *profileSession) remotePerfDone(profile []byte, err error) {
	s.remoteProfile, s.perfErr = profile, err
}

// wait waits for the sampling to end (at once when it never started),
// perf's included.
func (s *profileSession) wait() {
	s.stop()
	s.wg.Wait()
	s.stopPerf()
}

func (s *profileSession) run() {
	defer s.wg.Done()
	seconds := int(s.win / time.Second)
	if s.t.db != nil && s.usesDB {
		s.stmtErr = s.t.db.ResetStatements(context.Background())
	}
	var inner sync.WaitGroup
	if s.pprof != "" {
		s.allocsBefore, s.allocsErr = s.get(s.base+s.pprof+"/allocs", 10*time.Second)
		inner.Go(func() {
			s.cpu, s.cpuErr = s.get(s.base+s.pprof+"/profile?seconds="+strconv.Itoa(seconds), s.win+20*time.Second)
		})
	}
	<-s.closed
	if s.pprof != "" && s.allocsErr == nil {
		s.allocsAfter, s.allocsErr = s.get(s.base+s.pprof+"/allocs", 10*time.Second)
	}
	if s.t.db != nil && s.usesDB && s.stmtErr == nil {
		s.stmts, s.stmtErr = s.t.db.StatementsIn(context.Background(), s.database, maxStatements)
	}
	inner.Wait()
}

// startPerf starts perf record over every CPU (or, where only that is
// allowed, the server's and the database's processes: perfrec.Check) when
// the generator starts, before the warm-up: perf takes
// seconds to start on a busy host (it reads the processes' maps and the
// kernel's symbols), and started with the window it missed short
// windows entirely. Threads and processes forked later by those
// processes (a pool's new backends) are followed. The recording is
// stopped by stopPerf after the window closes; limit bounds it if that
// never comes. Its samples are kept from the window's opening to its
// closing (convertPerf), on perf's realtime clock.
func (s *profileSession) startPerf(limit time.Duration) {
	if !s.t.perf {
		return
	}
	s.serverPIDs, s.dbPIDs = perfrec.PIDSet(proc.TreePIDs(s.serverPID)), map[int]bool{}
	if s.dbRoot > 0 {
		s.dbPIDs = perfrec.PIDSet(proc.TreePIDs(s.dbRoot))
	}
	if err := os.MkdirAll(s.dir, privateDirMode); err != nil {
		s.perfErr = err
		return
	}
	var pids []int
	for _, set := range []map[int]bool{s.serverPIDs, s.dbPIDs} {
		for p := range set {
			pids = append(pids, p)
		}
	}
	s.perfRec, s.perfErr = perfrec.Start(s.t.perfScope, pids, filepath.Join(s.dir, "."+s.stem+".perf.data"), limit)
}

// stopPerf ends the recording and waits for it; the pids forked during
// the window join the filter.
func (s *profileSession) stopPerf() {
	if s.perfRec == nil {
		return
	}
	s.perfData, s.perfErr = s.perfRec.Stop()
	s.perfRec = nil
	for _, p := range proc.TreePIDs(s.serverPID) {
		s.serverPIDs[p] = true
	}
	if s.dbRoot > 0 {
		for _, p := range proc.TreePIDs(s.dbRoot) {
			s.dbPIDs[p] = true
		}
	}
}

// get fetches url over the stack's wire, an error unless it answers 200
// within timeout.
func (s *profileSession) get(url string, timeout time.Duration) ([]byte, error) {
	if s.clientErr != nil {
		return nil, fmt.Errorf("GET %s: %w", url, s.clientErr)
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", url, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s answered %d (%s): does the server serve Go's net/http/pprof at the stack's pprof: path?", url, resp.StatusCode, perfrec.FirstLine(body))
	}
	return body, nil
}

// finish waits for the sampling, writes the profiles under resultsDir and
// returns them, the statements and what went wrong.
func (s *profileSession) finish(ctx context.Context, resultsDir string) ([]journal.ProfileFile, []journal.Statement, []string) {
	s.wait()
	if !s.started {
		if s.perfData != "" {
			os.Remove(s.perfData)
		}
		return nil, nil, []string{"the window never opened, so nothing was sampled"}
	}
	var files []journal.ProfileFile
	var problems []string
	keep := func(kind string, p *profile.Profile, err error) {
		if err == nil {
			var f journal.ProfileFile
			f, err = s.write(resultsDir, kind, p)
			if err == nil {
				files = append(files, f)
				return
			}
		}
		problems = append(problems, kind+": "+err.Error())
	}
	if s.pprof != "" {
		cpu, err := parseProfile(s.cpu, s.cpuErr)
		keep(journal.ProfileGoCPU, cpu, err)
		allocs, err := s.allocsDelta()
		keep(journal.ProfileGoAllocs, allocs, err)
	}
	if s.t.remotePerf {
		p, err := parseProfile(s.remoteProfile, s.perfErr)
		keep(journal.ProfilePerfServer, p, err)
	}
	if s.t.perf {
		server, db, err := s.convertPerf(ctx)
		keep(journal.ProfilePerfServer, server, err)
		if s.dbRoot > 0 {
			keep(journal.ProfilePerfDatabase, db, err)
		}
	}
	if s.stmtErr != nil {
		problems = append(problems, "statements: "+s.stmtErr.Error())
	}
	var stmts []journal.Statement
	for _, st := range s.stmts {
		stmts = append(stmts, journal.Statement{Query: st.Query, Calls: st.Calls, TotalMillis: st.TotalMillis, Rows: st.Rows})
	}
	return files, stmts, problems
}

func parseProfile(b []byte, err error) (*profile.Profile, error) {
	if err != nil {
		return nil, err
	}
	p, err := profile.ParseData(b)
	if err != nil {
		return nil, fmt.Errorf("not a pprof profile: %w", err)
	}
	return p, nil
}

// allocsDelta is the allocation profile's change over the window.
func (s *profileSession) allocsDelta() (*profile.Profile, error) {
	before, err := parseProfile(s.allocsBefore, s.allocsErr)
	if err != nil {
		return nil, err
	}
	after, err := parseProfile(s.allocsAfter, nil)
	if err != nil {
		return nil, err
	}
	return profiling.Delta(before, after)
}

// convertPerf turns the window's perf data into a profile of the server's
// processes and one of the database's.
func (s *profileSession) convertPerf(ctx context.Context) (server, db *profile.Profile, err error) {
	if s.perfErr != nil {
		return nil, nil, s.perfErr
	}
	ps, err := perfrec.Convert(ctx, s.perfData, s.opened, s.closedAt, s.serverPIDs, s.dbPIDs)
	if err != nil {
		return nil, nil, err
	}
	return ps[0], ps[1], nil
}

// write writes p as <dir>/<stem>.<kind>.pb.gz and describes it.
func (s *profileSession) write(resultsDir, kind string, p *profile.Profile) (journal.ProfileFile, error) {
	if err := os.MkdirAll(s.dir, privateDirMode); err != nil {
		return journal.ProfileFile{}, err
	}
	path := filepath.Join(s.dir, s.stem+"."+kind+".pb.gz")
	f, err := fileutil.OpenPath(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, privateFileMode)
	if err != nil {
		return journal.ProfileFile{}, err
	}
	if err := p.Write(f); err != nil {
		f.Close()
		return journal.ProfileFile{}, fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return journal.ProfileFile{}, err
	}
	rel, err := filepath.Rel(resultsDir, path)
	if err != nil {
		rel = path
	}
	pf := journal.ProfileFile{Kind: kind, Path: filepath.ToSlash(rel), Samples: profiling.Samples(p), Seconds: float64(p.DurationNanos) / 1e9}
	if p.Period > 0 && p.PeriodType != nil && p.PeriodType.Unit == "nanoseconds" {
		pf.RateHz = int(1e9 / p.Period)
	}
	return pf, nil
}
