package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/netip"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/stackbench/stackbench/internal/pgfix"
	"github.com/stackbench/stackbench/internal/plan"
)

func init() {
	register(Command{Name: "db", Short: "the workload's PostgreSQL for development: up, seed, reset, status, down",
		Order: 20, Run: runDB})
}

const (
	dbSynopsis = "up|seed|reset|status|down [--file FILE] [--dir DIR] [--database-url URL [--allow-remote]]"
	// devDatabase is the seeded database "db up" makes in its cluster.
	devDatabase  = "stackbench"
	defaultDBDir = ".stackbench/db"
)

// dbTarget is the database a db verb works on: the embedded cluster in
// dir, or the user's own server at url.
type dbTarget struct {
	dir string
	url string // set for a server given by --database-url (or, for status, DATABASE_URL)
	// file is the comparison file whose databases up and seed build in
	// the cluster; nil for the saas-slice seed.
	file *plan.File
}

func runDB(ctx context.Context, args []string, env Env) error {
	fs := newFlagSet("db", dbSynopsis, env)
	dir := fs.String("dir", defaultDBDir, "cluster directory, relative to the working directory")
	dbURL := fs.String("database-url", "", "a server of your own, for seed, reset and status (status alone falls back to $DATABASE_URL when --dir is not given)")
	allowRemote := fs.Bool("allow-remote", false, "let seed and reset change a database on a host that is not this machine")
	file := fs.String("file", "stackbench.yaml", "the comparison file whose databases up and seed build in the embedded cluster and reset resets with their own reset: statements: the workload's own (workload.database) and each stack's own (database:); without one, or for a built-in workload, the saas-slice seed and its orders")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	verbs := []string{"up", "seed", "reset", "status", "down"}
	switch {
	case len(rest) == 0:
		return usagef("name what to do: stackbench db %s", dbSynopsis)
	case !slices.Contains(verbs, rest[0]):
		return usagef("unknown verb %q; write one of %s: stackbench db %s", rest[0], strings.Join(verbs, ", "), dbSynopsis)
	case len(rest) > 1:
		return usagef("unexpected argument %q after db %s; name the cluster directory with --dir", rest[1], rest[0])
	}
	verb := rest[0]
	target := dbTarget{dir: resolvePath(env, *dir), url: *dbURL}
	if verb == "up" || verb == "down" {
		if target.url != "" {
			return usagef("db %s manages the embedded cluster in --dir; --database-url is for seed, reset and status", verb)
		}
	} else if verb == "status" && target.url == "" && !flagSet(fs, "dir") && env.Getenv != nil {
		target.url = env.Getenv("DATABASE_URL")
	}
	if verb == "seed" || verb == "reset" {
		if err := checkDestructiveTarget(ctx, verb, target, *allowRemote, env); err != nil {
			return err
		}
	}
	if verb == "up" || verb == "seed" || verb == "reset" {
		if target.url == "" || verb == "reset" {
			f, err := dbFile(env, resolvePath(env, *file), flagSet(fs, "file"))
			if err != nil {
				return err
			}
			target.file = f
		}
	}
	switch verb {
	case "up":
		return dbUp(ctx, target, env)
	case "seed":
		return dbSeed(ctx, target, env)
	case "reset":
		return dbReset(ctx, target, env)
	case "status":
		return dbStatus(ctx, target, env)
	default:
		return dbDown(ctx, target, env)
	}
}

func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// dbUp starts the cluster in dir unless it runs already, makes the seeded
// database if it is missing, and prints its URL.
func dbUp(ctx context.Context, t dbTarget, env Env) error {
	c, err := pgfix.Attach(t.dir)
	if err == nil {
		fmt.Fprintf(env.Stderr, "PostgreSQL already running in %s (pid %d, port %d)\n", c.Dir(), c.PostmasterPID(), c.Port())
	} else {
		c, err = pgfix.Start(ctx, pgfix.Options{Dir: t.dir, Log: env.Stderr})
		if err != nil {
			return err
		}
		fmt.Fprintf(env.Stderr, "PostgreSQL running in %s (pid %d, 127.0.0.1:%d); log %s\n", c.Dir(), c.PostmasterPID(), c.Port(), c.LogPath())
	}
	if t.file != nil {
		return seedFileDatabases(ctx, c, t.file, filepath.Join(filepath.Dir(t.dir), "logs"), true, env)
	}
	exists, err := pgfix.DatabaseExists(ctx, c.AdminURL(), devDatabase)
	if err != nil {
		return err
	}
	if !exists {
		if err := seedDevDatabase(ctx, c, env.Stderr); err != nil {
			return err
		}
	}
	fmt.Fprintf(env.Stdout, "DATABASE_URL=%s\n", c.URL(devDatabase))
	return nil
}

// seedDevDatabase (re)creates the development database as a copy of the
// seeded template, seeding the template first when needed.
func seedDevDatabase(ctx context.Context, c *pgfix.Cluster, w io.Writer) error {
	t0 := time.Now()
	rep, err := pgfix.EnsureTemplate(ctx, c.AdminURL())
	if err != nil {
		return err
	}
	if !rep.Reused {
		fmt.Fprintf(w, "seeded the template: %d users, %d orders in %v\n", rep.Users, rep.Orders, rep.Duration.Round(time.Millisecond))
	}
	// Every database of a cluster stackbench made is its own; a
	// development database made before databases carried the mark gets
	// it here, so that FreshDatabase may replace it.
	if exists, err := pgfix.DatabaseExists(ctx, c.AdminURL(), devDatabase); err != nil {
		return err
	} else if exists {
		if err := pgfix.MarkOwned(ctx, c.AdminURL(), devDatabase); err != nil {
			return err
		}
	}
	if _, err := pgfix.FreshDatabase(ctx, c.AdminURL(), devDatabase); err != nil {
		return err
	}
	fmt.Fprintf(w, "database %s ready (%v)\n", devDatabase, time.Since(t0).Round(time.Millisecond))
	return nil
}

func dbSeed(ctx context.Context, t dbTarget, env Env) error {
	if t.url != "" {
		rep, err := pgfix.Reseed(ctx, t.url)
		if err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "seeded %s: %d users, %d orders in %v\n", pgfix.Redact(t.url), rep.Users, rep.Orders, rep.Duration.Round(time.Millisecond))
		return nil
	}
	c, err := pgfix.Attach(t.dir)
	if err != nil {
		return withDatabaseURLHint(err, env)
	}
	if err := c.CheckDataDirectory(ctx); err != nil {
		return err
	}
	if t.file != nil {
		return seedFileDatabases(ctx, c, t.file, filepath.Join(filepath.Dir(t.dir), "logs"), false, env)
	}
	if err := seedDevDatabase(ctx, c, env.Stderr); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "re-seeded database %s (its sessions were disconnected)\n", devDatabase)
	return nil
}

func dbReset(ctx context.Context, t dbTarget, env Env) error {
	if t.file != nil {
		return resetFileDatabases(ctx, t, env)
	}
	url := t.url
	if url == "" {
		c, err := pgfix.Attach(t.dir)
		if err != nil {
			return withDatabaseURLHint(err, env)
		}
		if err := c.CheckDataDirectory(ctx); err != nil {
			return err
		}
		url = c.URL(devDatabase)
	} else if err := pgfix.CheckOwned(ctx, url, "reset"); err != nil {
		return err
	}
	db, err := pgfix.Open(ctx, url)
	if err != nil {
		return err
	}
	defer db.Close()
	t0 := time.Now()
	if err := db.ResetOrders(ctx); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "orders reset to %d rows, next id %d, vacuumed (%v)\n", pgfix.SeedOrders, pgfix.SeedOrders+1, time.Since(t0).Round(time.Millisecond))
	return nil
}

func dbStatus(ctx context.Context, t dbTarget, env Env) error {
	w := env.Stdout
	url := t.url
	if url == "" {
		c, err := pgfix.Attach(t.dir)
		if err != nil {
			fmt.Fprintf(w, "cluster     not running (%s)\n", t.dir)
			return &ExitError{Code: ExitGateFailed, Msg: err.Error()}
		}
		url = c.URL(devDatabase)
		fmt.Fprintf(w, "cluster     running, pid %d, 127.0.0.1:%d, %s\n", c.PostmasterPID(), c.Port(), c.Dir())
		fmt.Fprintf(w, "server log  %s\n", c.LogPath())
	}
	fmt.Fprintf(w, "database    %s\n", pgfix.Redact(url))
	db, err := pgfix.Open(ctx, url)
	if err != nil {
		return err
	}
	defer db.Close()
	st, err := db.Stats(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "server      PostgreSQL %s\n", st.ServerVersion)
	fmt.Fprintf(w, "users       %d rows\n", st.UsersRows)
	fmt.Fprintf(w, "orders      %d rows (statistics: %d live, %d dead tuples), %s, autovacuum runs %d\n",
		st.OrdersRows, st.OrdersLiveTuples, st.OrdersDeadTuples, mebibytes(st.OrdersSizeBytes), st.OrdersAutovacuumCount)
	fmt.Fprintf(w, "checkpoints %d (timed %d, requested %d)\n", st.Checkpoints, st.CheckpointsTimed, st.CheckpointsRequested)
	var settings []string
	for _, k := range []string{"max_connections", "shared_buffers", "fsync", "synchronous_commit", "max_wal_size", "TimeZone"} {
		settings = append(settings, k+"="+st.Settings[k])
	}
	fmt.Fprintf(w, "settings    %s\n", strings.Join(settings, " "))
	switch {
	case st.OrdersRows > pgfix.SeedOrders:
		fmt.Fprintf(w, "note        %d orders inserted since the seed; 'stackbench db reset' removes them\n", st.OrdersRows-pgfix.SeedOrders)
	case st.OrdersRows < pgfix.SeedOrders:
		fmt.Fprintf(w, "note        %d seeded orders are missing; 'stackbench db seed' restores them\n", pgfix.SeedOrders-st.OrdersRows)
	}
	return nil
}

func mebibytes(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

func dbDown(ctx context.Context, t dbTarget, env Env) error {
	c, err := pgfix.Attach(t.dir)
	if err != nil {
		fmt.Fprintf(env.Stdout, "no cluster running in %s\n", t.dir)
		return nil
	}
	pid := c.PostmasterPID()
	if err := c.Stop(ctx); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "stopped PostgreSQL (pid %d) in %s; its data stays there for the next 'stackbench db up'\n", pid, c.Dir())
	return nil
}

// checkDestructiveTarget refuses a seed or reset of a server given by URL
// on a host other than this machine unless allowRemote. (Whether the
// database is stackbench's own is checked once connected.)
func checkDestructiveTarget(ctx context.Context, verb string, t dbTarget, allowRemote bool, env Env) error {
	if t.url == "" || allowRemote {
		return nil
	}
	host, err := pgfix.URLHost(t.url)
	if err != nil {
		return usagef("--database-url: %v", err)
	}
	local, addr, err := isLocalHost(ctx, host)
	if err != nil {
		return usagef("--database-url: %v", err)
	}
	if !local {
		return usagef("refusing to %s a database on %s (%s), which is not this machine: db %s deletes data; "+
			"if that server is one you keep for benchmarks, add --allow-remote", verb, host, addr, verb)
	}
	return nil
}

// isLocalHost reports whether a database host is this machine: a Unix
// socket directory, or a name whose every address is a loopback one.
func isLocalHost(ctx context.Context, host string) (local bool, addr string, err error) {
	if strings.HasPrefix(host, "/") {
		return true, "a Unix socket", nil
	}
	if ip, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		return ip.Unmap().IsLoopback(), ip.String(), nil
	}
	addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil || len(addrs) == 0 {
		return false, "", fmt.Errorf("cannot resolve host %q: %v", host, err)
	}
	for _, a := range addrs {
		if !a.Unmap().IsLoopback() {
			return false, a.Unmap().String(), nil
		}
	}
	return true, addrs[0].Unmap().String(), nil
}

// withDatabaseURLHint adds to the error of a seed or reset without a
// cluster that $DATABASE_URL is not used for them, when it is set.
func withDatabaseURLHint(err error, env Env) error {
	if env.Getenv == nil || env.Getenv("DATABASE_URL") == "" {
		return err
	}
	return fmt.Errorf("%w (db seed and db reset delete data, so they never take $DATABASE_URL from the environment: "+
		"to change that database, name it with --database-url)", err)
}
