// Package pgtest gives other packages' tests a real, seeded PostgreSQL:
// one cluster per test binary, started on first use, with the seeded
// template ready, and fresh databases copied from it in well under a
// second. Use it like this:
//
//	func TestMain(m *testing.M) { pgtest.Main(m) }
//
//	func TestOrders(t *testing.T) {
//		url := pgtest.FreshDB(t) // a seeded database of its own, dropped afterwards
//		...
//	}
//
// The cluster lives in a new directory in /dev/shm when that has room
// (memoryDir: no test waits on the disk's flushes), else in a temporary
// directory, and runs as the "postgres" account when the tests run as
// root. Nothing is skipped when PostgreSQL
// is missing: the test fails with the fixture's message.
package pgtest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stackbench/stackbench/internal/platform/local"

	"github.com/stackbench/stackbench/internal/pgfix"
)

var (
	mainCalled atomic.Bool
	once       sync.Once
	shared     *pgfix.Cluster // set by once
	startErr   error          // set by once
	seedReport pgfix.SeedReport
	startTime  time.Duration
	dbSeq      atomic.Int64
)

// Main runs the tests and then stops and removes the shared cluster, if a
// test started it. Call it from TestMain; it does not return.
func Main(m *testing.M) { os.Exit(Run(m)) }

// Run is Main for a TestMain that has more to do: it runs the tests, tears
// the shared cluster down, calls cleanups, and returns the exit code.
func Run(m *testing.M, cleanups ...func()) int {
	mainCalled.Store(true)
	code := m.Run()
	// m.Run has returned, so no test is inside once.Do any more.
	if shared != nil {
		if testing.Verbose() {
			fmt.Fprintf(os.Stderr, "pgtest: cluster started in %v, template seeded in %v\n",
				startTime.Round(time.Millisecond), seedReport.Duration.Round(time.Millisecond))
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		if err := destroy(ctx, shared); err != nil {
			fmt.Fprintf(os.Stderr, "pgtest: tear down the PostgreSQL cluster: %v\n", err)
			if code == 0 {
				code = 1
			}
		}
		cancel()
	}
	for _, c := range cleanups {
		c()
	}
	return code
}

// Cluster returns the test binary's shared cluster, starting it and
// seeding its template on first use. It fails the test with the fixture's
// message when PostgreSQL cannot be started.
func Cluster(tb testing.TB) *pgfix.Cluster {
	tb.Helper()
	if !mainCalled.Load() {
		tb.Fatal("pgtest: call pgtest.Main(m) from TestMain, so that the shared PostgreSQL cluster is torn down")
	}
	once.Do(startShared)
	if startErr != nil {
		tb.Fatalf("pgtest: PostgreSQL fixture: %v", startErr)
	}
	return shared
}

func startShared() {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	sweepOrphans(ctx)
	t0 := time.Now()
	dir, err := clusterDir()
	if err != nil {
		startErr = err
		return
	}
	c, err := pgfix.Start(ctx, pgfix.Options{Dir: dir})
	if err != nil {
		if dir != "" {
			os.RemoveAll(dir)
		}
		startErr = err
		return
	}
	startTime = time.Since(t0)
	if err := os.WriteFile(filepath.Join(c.Dir(), ownerFile), []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
		startErr = err
		destroy(context.Background(), c)
		return
	}
	seedReport, err = pgfix.EnsureTemplate(ctx, c.AdminURL())
	if err != nil {
		startErr = fmt.Errorf("%w (server log: %s)", err, c.LogPath())
		destroy(context.Background(), c)
		return
	}
	shared = c
}

// memoryDir is where the shared cluster lives when it has room: a tmpfs,
// whose fsync costs nothing. The tests' clusters keep fsync on (the
// settings a run records are a stock server's), but what each test pays
// for it is disk latency: every window's checkpoint, every copy of the
// template (CREATE DATABASE writes the copy through the WAL) and every
// reset of the orders waited on the disk's flushes, which a shared or
// busy disk makes slow (a checkpoint 0.35–0.8 s on disk against
// 0.03–0.07 s here, a copy 0.4–3 s against 0.1–0.2 s, measured on this
// project's 2-core machine at a load average of 17).
const memoryDir = "/dev/shm"

// memoryRoomBytes is the free space memoryDir must have for the cluster
// to go there: the seeded template, a few tests' copies of it and the
// WAL take some hundreds of MB.
const memoryRoomBytes = 2 << 30

// clusterDir returns a new directory in memoryDir for the shared
// cluster, or "" (pgfix's temporary directory on disk) when memoryDir is
// missing or short of room. Its name begins pgfix.TempDirPrefix, so that
// sweepOrphans finds it.
func clusterDir() (string, error) {
	if free, err := local.FreeBytes(memoryDir); err != nil || free < memoryRoomBytes {
		return "", nil
	}
	dir, err := os.MkdirTemp(memoryDir, pgfix.TempDirPrefix)
	if err != nil {
		return "", nil
	}
	// MkdirTemp makes it 0700; the server account must be able to enter it.
	if err := os.Chmod(dir, 0o711); err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	return dir, nil
}

// destroy stops c and removes its directory: pgfix removes only the
// temporary directories it made itself, not one in memoryDir.
func destroy(ctx context.Context, c *pgfix.Cluster) error {
	if err := c.Destroy(ctx); err != nil {
		return err
	}
	return os.RemoveAll(c.Dir())
}

// ownerFile, in a shared cluster's directory, holds the pid of the test
// binary that started it.
const ownerFile = "pgtest-owner"

// sweepOrphans stops and removes the clusters of earlier test binaries
// that died without tearing theirs down (a test timeout, a signal): those
// whose owner process is gone. Clusters without an owner file are not
// pgtest's and are left alone.
func sweepOrphans(ctx context.Context) {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), pgfix.TempDirPrefix+"*"))
	inMemory, _ := filepath.Glob(filepath.Join(memoryDir, pgfix.TempDirPrefix+"*"))
	dirs = append(dirs, inMemory...)
	for _, dir := range dirs {
		b, err := os.ReadFile(filepath.Join(dir, ownerFile))
		if err != nil {
			continue
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil || pid <= 0 || processExists(pid) {
			continue
		}
		if c, err := pgfix.Attach(dir); err == nil {
			if err := c.Stop(ctx); err != nil {
				continue
			}
		}
		os.RemoveAll(dir)
	}
}

func processExists(pid int) bool {
	return local.Alive(pid)
}

// FreshDB returns the URL of a new database copied from the seeded
// template, dropped when the test ends.
func FreshDB(tb testing.TB) string {
	tb.Helper()
	c := Cluster(tb)
	name := fmt.Sprintf("t%d_%s", dbSeq.Add(1), identifierPart(tb.Name()))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	url, err := pgfix.FreshDatabase(ctx, c.AdminURL(), name)
	if err != nil {
		tb.Fatalf("pgtest: %v", err)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := pgfix.DropDatabase(ctx, c.AdminURL(), name); err != nil {
			tb.Errorf("pgtest: %v", err)
		}
	})
	return url
}

// identifierPart turns a test name into lowercase letters, digits and
// underscores, at most 40 of them.
func identifierPart(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if b.Len() == 40 {
			break
		}
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// FreshFixtureDB is FreshDB for a workload's own fixture (pgfix.TFBFixture,
// say): its template is built on the shared cluster on first use, and the
// new database is a copy of it, dropped when the test ends.
func FreshFixtureDB(tb testing.TB, fx pgfix.Fixture) string {
	tb.Helper()
	c := Cluster(tb)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, err := pgfix.EnsureFixture(ctx, c.AdminURL(), fx); err != nil {
		tb.Fatalf("pgtest: fixture %s: %v", fx.Name, err)
	}
	name := fmt.Sprintf("t%d_%s", dbSeq.Add(1), identifierPart(tb.Name()))
	url, err := pgfix.FreshDatabaseFrom(ctx, c.AdminURL(), fx.TemplateName(), name)
	if err != nil {
		tb.Fatalf("pgtest: %v", err)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := pgfix.DropDatabase(ctx, c.AdminURL(), name); err != nil {
			tb.Errorf("pgtest: %v", err)
		}
	})
	return url
}
