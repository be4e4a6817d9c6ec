package pgtest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stackbench/stackbench/internal/pgfix"
)

func TestMain(m *testing.M) { Main(m) }

func TestFreshDBIsSeededAndDropped(t *testing.T) {
	ctx := context.Background()
	var url string
	t.Run("user", func(t *testing.T) {
		url = FreshDB(t)
		db, err := pgfix.Open(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		st, err := db.Stats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if st.UsersRows != pgfix.SeedUsers || st.OrdersRows != pgfix.SeedOrders {
			t.Errorf("fresh database: %d users, %d orders", st.UsersRows, st.OrdersRows)
		}
	})
	name := filepath.Base(url[:len(url)-len("?sslmode=disable")])
	exists, err := pgfix.DatabaseExists(ctx, Cluster(t).AdminURL(), name)
	if err != nil || exists {
		t.Errorf("database %s after its test: exists=%v, %v; want dropped", name, exists, err)
	}
}

// TestSweepOrphans leaves a cluster whose owner has exited, as a killed
// test binary would, and checks that the next start removes it while a
// cluster with a live owner stays.
func TestSweepOrphans(t *testing.T) {
	ctx := context.Background()
	orphan, err := pgfix.Start(ctx, pgfix.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { orphan.Destroy(context.Background()) })
	exited := exec.Command("true")
	if err := exited.Run(); err != nil {
		t.Fatal(err)
	}
	writeOwner(t, orphan.Dir(), exited.Process.Pid)
	live := Cluster(t) // owned by this test binary
	pid := orphan.PostmasterPID()

	sweepOrphans(ctx)
	if _, err := os.Stat(orphan.Dir()); !os.IsNotExist(err) {
		t.Errorf("orphan cluster directory %s left: %v", orphan.Dir(), err)
	}
	if processExists(pid) {
		if b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); len(b) > 0 && !isZombie(string(b)) {
			t.Errorf("orphan postmaster %d still running", pid)
		}
	}
	if _, err := pgfix.Attach(live.Dir()); err != nil {
		t.Errorf("the live shared cluster was swept: %v", err)
	}
}

func writeOwner(t *testing.T, dir string, pid int) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, ownerFile), []byte(strconv.Itoa(pid)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func isZombie(stat string) bool {
	for i := len(stat) - 1; i > 0; i-- {
		if stat[i] == ')' {
			return i+2 < len(stat) && stat[i+2] == 'Z'
		}
	}
	return false
}

func TestIdentifierPart(t *testing.T) {
	if got := identifierPart("TestX/sub case-1"); got != "testx_sub_case_1" {
		t.Errorf("identifierPart = %q", got)
	}
	long := identifierPart("TestAVeryLongNameThatGoesOnAndOnBeyondFortyCharactersForSure")
	if len(long) != 40 {
		t.Errorf("len = %d, want 40", len(long))
	}
}

// The shared cluster lives in memoryDir when it has room, and an orphan
// left there by a killed test binary is swept like one on disk.
func TestSharedClusterInMemoryIsSwept(t *testing.T) {
	dir, err := clusterDir()
	if err != nil {
		t.Fatal(err)
	}
	if dir == "" {
		if _, err := os.Stat(memoryDir); err == nil {
			t.Logf("%s is short of %d bytes: the cluster is on disk", memoryDir, memoryRoomBytes)
		}
		if got := Cluster(t).Dir(); strings.HasPrefix(got, memoryDir+"/") {
			t.Errorf("the shared cluster is in %s though clusterDir chose the disk", got)
		}
		return
	}
	if got := Cluster(t).Dir(); filepath.Dir(got) != memoryDir || !strings.HasPrefix(filepath.Base(got), pgfix.TempDirPrefix) {
		t.Errorf("the shared cluster is in %s; want a %s* directory in %s", got, pgfix.TempDirPrefix, memoryDir)
	}
	ctx := context.Background()
	orphan, err := pgfix.Start(ctx, pgfix.Options{Dir: dir})
	if err != nil {
		os.RemoveAll(dir)
		t.Fatal(err)
	}
	t.Cleanup(func() { destroy(context.Background(), orphan) })
	exited := exec.Command("true")
	if err := exited.Run(); err != nil {
		t.Fatal(err)
	}
	writeOwner(t, dir, exited.Process.Pid)
	sweepOrphans(ctx)
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("orphan cluster directory %s left: %v", dir, err)
	}
}
