package pgfix

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/stackbench/stackbench/internal/cpuset"
	"github.com/stackbench/stackbench/internal/fileutil"
	"github.com/stackbench/stackbench/internal/netutil"
)

// Superuser is the role initdb creates; it owns every database of the cluster.
const Superuser = "stackbench"

// Files inside a cluster directory.
const (
	dataSubdir = "data"         // PGDATA
	logFile    = "postgres.log" // the server's log
	stateFile  = "cluster.json" // port, password, settings: what Attach needs
	confFile   = "stackbench.conf"
)

// Options configures Start.
type Options struct {
	// Dir holds the cluster (data/, postgres.log, cluster.json). "" makes a
	// temporary directory that Destroy removes. An existing cluster in Dir is
	// started again, not re-initialised.
	Dir string
	// Port is the TCP port on 127.0.0.1; 0 picks a free one (the cluster's
	// previous port when it is still free).
	Port int
	// Log receives progress messages; nil discards them.
	Log io.Writer
	// CPUs is the database's lane under placement: lanes: pg_ctl starts
	// with this affinity, so the postmaster and every backend it forks
	// inherit it. Empty leaves the caller's mask.
	CPUs cpuset.Set
	// Listen is the server's listen_addresses: "" is 127.0.0.1 only; "*"
	// (every address) or an address of the host lets other hosts connect,
	// with the superuser's password (SCRAM) as on loopback, over TLS
	// only: the server gets a throwaway certificate for Host, and its URLs
	// say sslmode=verify-full.
	Listen string
	// Clients are the addresses (or names) of the other hosts that may
	// log in when Listen goes beyond loopback: pg_hba.conf admits each
	// (/32, /128) and nobody else. Required then.
	Clients []string
	// Host is the address URL puts in the URLs it returns, the one the
	// clients dial; "" is 127.0.0.1.
	Host string
}

// Cluster is a PostgreSQL cluster run from the machine's own binaries,
// listening on 127.0.0.1 only (or where Options.Listen says), with no Unix
// socket.
type Cluster struct {
	dir     string
	temp    bool
	acct    account
	state   clusterState
	postPID int
	// launched is set when Start ran pg_ctl start, so that a failed Start
	// stops only a server it launched itself.
	launched bool
	// cpus is the affinity pg_ctl start gets (Options.CPUs).
	cpus cpuset.Set
}

// clusterState is cluster.json: what a later Attach needs to find and use
// a running cluster.
type clusterState struct {
	Port     int               `json:"port"`
	Password string            `json:"password"`
	BinDir   string            `json:"bin_dir"`
	Version  string            `json:"version"`
	Settings map[string]string `json:"settings"`
	// Listen is Options.Listen ("" for loopback only) and Host the
	// address in the cluster's URLs ("" for 127.0.0.1).
	Listen string `json:"listen,omitempty"`
	Host   string `json:"host,omitempty"`
	// Clients is Options.Clients.
	Clients []string `json:"clients,omitempty"`
	// OldBinDir is BinDir as clusters made before JSON keys were snake_case
	// recorded it; readState moves it to BinDir.
	OldBinDir string `json:"binDir,omitempty"`
}

// Start makes a cluster in opt.Dir (initdb when the directory has none),
// starts it on 127.0.0.1 and returns when it accepts connections. As root,
// the server runs as the unprivileged account "postgres".
func Start(ctx context.Context, opt Options) (*Cluster, error) {
	logw := opt.Log
	if logw == nil {
		logw = io.Discard
	}
	acct, err := serverAccount()
	if err != nil {
		return nil, err
	}
	c := &Cluster{acct: acct, cpus: opt.CPUs}
	if err := c.prepareDir(opt.Dir); err != nil {
		return nil, err
	}
	if err := c.start(ctx, opt, logw); err != nil {
		// A start cut short (ctx cancelled while pg_ctl waited) can leave
		// the server it launched running: stop it before giving up.
		if c.launched {
			stopCtx, cancel := context.WithTimeout(context.Background(), time.Minute)
			c.Stop(stopCtx)
			cancel()
		}
		if c.temp {
			os.RemoveAll(c.dir)
		}
		return nil, err
	}
	return c, nil
}

func (c *Cluster) prepareDir(dir string) error {
	if dir == "" {
		tmp, err := os.MkdirTemp("", TempDirPrefix)
		if err != nil {
			return fmt.Errorf("make a temporary cluster directory: %w", err)
		}
		c.dir, c.temp = tmp, true
		// MkdirTemp makes it 0700; the server account must be able to enter it.
		if err := os.Chmod(tmp, 0o711); err != nil {
			os.RemoveAll(tmp)
			return err
		}
	} else {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(abs, 0o755); err != nil {
			return fmt.Errorf("make cluster directory: %w", err)
		}
		c.dir = abs
	}
	if err := c.acct.checkReachable(c.dir); err != nil {
		if c.temp {
			os.RemoveAll(c.dir)
		}
		return err
	}
	return nil
}

func (c *Cluster) start(ctx context.Context, opt Options, logw io.Writer) error {
	port := opt.Port
	if pid, ok := c.livePostmaster(); ok {
		return fmt.Errorf("a cluster is already running in %s (postmaster pid %d); "+
			"use it (stackbench db status --dir %s) or stop it (stackbench db down --dir %s)", c.dir, pid, c.dir, c.dir)
	}
	old, _ := readState(c.dir)
	dataVersion, hasData := c.dataVersion()
	if err := c.chooseBinaries(old, dataVersion, logw); err != nil {
		return err
	}
	c.state.Listen, c.state.Host, c.state.Clients = opt.Listen, opt.Host, opt.Clients
	if beyondLoopback(opt.Listen) {
		if _, err := hbaLines(opt.Clients); err != nil {
			return err
		}
	}
	if !hasData {
		c.state.Password = randomHex(16)
		if err := c.initdb(ctx, logw); err != nil {
			return err
		}
		// Saved now, so that a failed first start leaves a usable directory.
		if err := writeState(c.dir, c.state); err != nil {
			return err
		}
	} else if c.state.Password == "" {
		return fmt.Errorf("%s holds a data directory but no %s with its password; "+
			"remove %s to start afresh", c.dir, stateFile, c.dir)
	}
	if err := c.allowOtherHosts(); err != nil {
		return err
	}
	if c.tlsOn() {
		if err := c.makeTLS(c.host()); err != nil {
			return err
		}
	}
	logPath := filepath.Join(c.dir, logFile)
	if err := c.prepareLog(logPath); err != nil {
		return err
	}
	for attempt := 1; ; attempt++ {
		p := port
		if p == 0 {
			p = pickPort(old.Port)
			old.Port = 0 // a retry never reuses a port that just failed
		}
		err := c.startOnPort(ctx, p, logPath, logw)
		if err == nil || port != 0 || attempt == 3 || !errors.Is(err, errPortInUse) {
			return err
		}
	}
}

var errPortInUse = errors.New("port in use")

// dataVersion returns the major version in data/PG_VERSION, and whether
// the directory holds a cluster at all.
func (c *Cluster) dataVersion() (string, bool) {
	b, err := os.ReadFile(filepath.Join(c.dataDir(), "PG_VERSION"))
	if err != nil {
		return "", false
	}
	return strings.TrimSpace(string(b)), true
}

// chooseBinaries sets the binaries, version and password for this start:
// an existing cluster keeps the binaries that made it while they are
// installed in one of the places LocateBinaries looks (installedBinaries:
// the bin_dir of cluster.json alone is never run); otherwise
// LocateBinaries decides, and their major version must match the data's.
func (c *Cluster) chooseBinaries(old clusterState, dataVersion string, logw io.Writer) error {
	recorded := old.BinDir
	if dataVersion == "" {
		recorded = ""
	}
	found, err := installedBinaries(recorded)
	if err != nil {
		return err
	}
	binDir := found.Dir
	if binDir != recorded {
		fmt.Fprintf(logw, "PostgreSQL server binaries: %s\n", found)
	}
	version, err := serverVersion(binDir)
	if err != nil {
		return err
	}
	if dataVersion != "" && majorVersion(version) != dataVersion {
		return fmt.Errorf("the cluster in %s is PostgreSQL %s but the binaries found (%s) are %q; "+
			"install PostgreSQL %s or remove %s to start afresh", c.dir, dataVersion, binDir, version, dataVersion, c.dir)
	}
	c.state = clusterState{BinDir: binDir, Version: version, Password: old.Password}
	return nil
}

// majorVersion returns "15" from "postgres (PostgreSQL) 15.18 (Debian …)"
// (and "9.6" from a 9.6.x line, as PG_VERSION spells it).
func majorVersion(versionLine string) string {
	f := strings.Fields(strings.TrimPrefix(versionLine, "postgres (PostgreSQL) "))
	if len(f) == 0 {
		return ""
	}
	parts := strings.Split(f[0], ".")
	if len(parts) > 2 && parts[0] == "9" {
		return parts[0] + "." + parts[1]
	}
	end := strings.IndexFunc(parts[0], func(r rune) bool { return r < '0' || r > '9' })
	if end < 0 {
		return parts[0]
	}
	return parts[0][:end]
}

func (c *Cluster) startOnPort(ctx context.Context, port int, logPath string, logw io.Writer) error {
	c.state.Settings = serverSettings(port, c.state.Listen)
	addStatementsLibrary(c.state.Settings, c.state.BinDir) // statements.go
	if err := c.writeConf(); err != nil {
		return err
	}
	logStart := fileSize(logPath)
	fmt.Fprintf(logw, "pgfix: starting PostgreSQL in %s on %s port %d\n", c.dir, c.state.Settings["listen_addresses"], port)
	c.launched = true
	out, err := c.runOn(ctx, c.cpus, "pg_ctl", "start", "-w", "-t", "120", "-D", c.dataDir(), "-l", logPath)
	if err != nil {
		tail := fileutil.Tail(logPath, logStart)
		if strings.Contains(tail, "could not bind") || strings.Contains(tail, "already in use") {
			return fmt.Errorf("start PostgreSQL on port %d: %w by another process; choose another port, "+
				"or none for a free one\n%s", port, errPortInUse, tail)
		}
		return fmt.Errorf("start PostgreSQL in %s: %v\n%s\nserver log %s:\n%s", c.dir, err, out, logPath, tail)
	}
	c.state.Port = port
	pid, ok := c.livePostmaster()
	if !ok {
		return fmt.Errorf("PostgreSQL in %s reported ready but its postmaster is not running; see %s", c.dir, logPath)
	}
	c.postPID = pid
	return writeState(c.dir, c.state)
}

func (c *Cluster) initdb(ctx context.Context, logw io.Writer) error {
	data := c.dataDir()
	if err := os.MkdirAll(data, 0o700); err != nil {
		return fmt.Errorf("make data directory: %w", err)
	}
	if err := c.acct.own(data); err != nil {
		return err
	}
	pwPath := filepath.Join(c.dir, "initdb.pw")
	if err := fileutil.WritePath(pwPath, []byte(c.state.Password+"\n"), 0o600); err != nil {
		return err
	}
	defer os.Remove(pwPath)
	if err := c.acct.own(pwPath); err != nil {
		return err
	}
	fmt.Fprintf(logw, "pgfix: initdb %s (%s)\n", data, c.state.Version)
	out, err := c.run(ctx, "initdb", "-D", data, "-U", Superuser, "--pwfile", pwPath,
		"--auth=scram-sha-256", "--encoding=UTF8", "--locale=C", "--no-sync")
	if err != nil {
		return fmt.Errorf("initdb %s: %v\n%s", data, err, out)
	}
	return c.includeConf()
}

// includeConf appends to the data directory's postgresql.conf the line
// that includes confFile. The data directory is the server account's: a
// link it left in place of the file is refused, not followed (as root,
// stackbench would otherwise append to any file of the machine), and so
// for every file stackbench writes there.
func (c *Cluster) includeConf() error {
	f, err := fileutil.OpenIn(c.dataDir(), "postgresql.conf", os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(f, "\n# stackbench: the settings of this cluster, rewritten at every start\ninclude '%s'\n", confFile)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// serverSettings are the settings stackbench sets; everything else is
// PostgreSQL's default (fsync, synchronous_commit, shared_buffers...), so
// the database behaves like a stock server.
func serverSettings(port int, listen string) map[string]string {
	if listen == "" {
		listen = "127.0.0.1"
	}
	settings := map[string]string{
		"listen_addresses":        listen,
		"port":                    strconv.Itoa(port),
		"unix_socket_directories": "",
		"max_connections":         "200", // room for several stacks' pools
		"fsync":                   "on",
		"synchronous_commit":      "on",
		"full_page_writes":        "on",
		"timezone":                "UTC",
		"log_timezone":            "UTC",
		"log_checkpoints":         "on",
	}
	if beyondLoopback(listen) {
		// The other hosts speak TLS to it (pg_hba.conf admits them by
		// hostssl only), with the throwaway certificate of makeTLS.
		settings["ssl"] = "on"
		settings["ssl_cert_file"] = serverCertFile
		settings["ssl_key_file"] = serverKeyFile
	}
	return settings
}

func (c *Cluster) writeConf() error {
	var b bytes.Buffer
	b.WriteString("# Written by stackbench at every start; edits are overwritten.\n")
	for _, k := range slices.Sorted(maps.Keys(c.state.Settings)) {
		fmt.Fprintf(&b, "%s = '%s'\n", k, strings.ReplaceAll(c.state.Settings[k], "'", "''"))
	}
	path := filepath.Join(c.dataDir(), confFile)
	if err := fileutil.WriteIn(c.dataDir(), confFile, b.Bytes(), 0o600); err != nil {
		return err
	}
	return c.acct.own(path)
}

func (c *Cluster) prepareLog(path string) error {
	f, err := fileutil.OpenPath(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o640)
	if err != nil {
		return fmt.Errorf("open server log: %w", err)
	}
	f.Close()
	return c.acct.own(path)
}

// run runs one of the server binaries as the server account.
func (c *Cluster) run(ctx context.Context, name string, args ...string) (string, error) {
	return c.runOn(ctx, nil, name, args...)
}

// runOn is run with the process's CPU affinity set to cpus at spawn (empty:
// the harness's own).
func (c *Cluster) runOn(ctx context.Context, cpus cpuset.Set, name string, args ...string) (string, error) {
	cmd := c.acct.command(ctx, filepath.Join(c.state.BinDir, name), args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.WaitDelay = 5 * time.Second
	if err := cpuset.Start(cmd, cpus); err != nil {
		return "", err
	}
	err := cmd.Wait()
	return strings.TrimSpace(out.String()), err
}

// Pin moves the running server (the postmaster and every process it has
// forked) to cpus, for a cluster that was started before its lane was
// known (Attach); the backends it forks later inherit them.
func (c *Cluster) Pin(cpus cpuset.Set) error {
	parents, err := parentMap()
	if err != nil {
		return err
	}
	return cpuset.Pin(append([]int{c.postPID}, descendants(parents, c.postPID)...), cpus)
}

// Attach returns the cluster already running in dir, as left by
// "stackbench db up --dir dir". Stopping it is up to the caller.
func Attach(dir string) (*Cluster, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	st, err := readState(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("no stackbench cluster in %s; start one with: stackbench db up --dir %s", abs, abs)
	}
	if err != nil {
		return nil, fmt.Errorf("no stackbench cluster in %s (%v); start one with: stackbench db up --dir %s", abs, err, abs)
	}
	acct, err := serverAccount()
	if err != nil {
		return nil, err
	}
	// Stop runs pg_ctl: from where LocateBinaries looks, never from
	// wherever cluster.json says (a cluster directory is data).
	recorded := st.BinDir
	st.BinDir = ""
	if b, err := installedBinaries(recorded); err == nil {
		st.BinDir = b.Dir
	}
	c := &Cluster{dir: abs, acct: acct, state: st}
	pid, ok := c.livePostmaster()
	if !ok {
		return nil, fmt.Errorf("the cluster in %s is not running; start it with: stackbench db up --dir %s", abs, abs)
	}
	c.postPID = pid
	if port := c.pidFilePort(); port != 0 {
		c.state.Port = port
	}
	return c, nil
}

// Dir returns the cluster directory.
func (c *Cluster) Dir() string { return c.dir }

// Port returns the TCP port the server listens on.
func (c *Cluster) Port() int { return c.state.Port }

// Version returns the server binaries' version line.
func (c *Cluster) Version() string { return c.state.Version }

// Listens reports whether the cluster listens on listen and names host in
// its URLs, as Options.Listen and Options.Host say ("" for 127.0.0.1).
func (c *Cluster) Listens(listen, host string) bool {
	return c.state.Listen == listen && c.host() == cmp.Or(host, "127.0.0.1")
}

// LogPath returns the server log's path.
func (c *Cluster) LogPath() string { return filepath.Join(c.dir, logFile) }

// URL returns the connection URL of a database of the cluster, as superuser:
// without TLS on loopback, and beyond it with sslmode=verify-full against
// the cluster's throwaway CA (sslrootcert names its file here; a client on
// another machine gives its own copy's path, WithRootCert).
func (c *Cluster) URL(database string) string {
	q := url.Values{"sslmode": {"disable"}}
	if c.tlsOn() {
		q = url.Values{"sslmode": {"verify-full"}, "sslrootcert": {filepath.Join(c.dir, caFile)}}
	}
	u := url.URL{
		Scheme:   "postgres",
		User:     url.UserPassword(Superuser, c.state.Password),
		Host:     net.JoinHostPort(c.host(), strconv.Itoa(c.state.Port)),
		Path:     "/" + database,
		RawQuery: q.Encode(),
	}
	return u.String()
}

// host is the address in the cluster's URLs.
func (c *Cluster) host() string {
	if c.state.Host != "" {
		return c.state.Host
	}
	return "127.0.0.1"
}

// AdminURL returns the URL of the cluster's "postgres" database, the one to
// give EnsureTemplate and FreshDatabase.
func (c *Cluster) AdminURL() string { return c.URL("postgres") }

// PostmasterPID returns the server's main process id.
func (c *Cluster) PostmasterPID() int { return c.postPID }

// Settings returns the server settings stackbench set (a copy), to be
// recorded with results; the rest are PostgreSQL's defaults.
func (c *Cluster) Settings() map[string]string { return maps.Clone(c.state.Settings) }

// Stop stops the server (fast shutdown: sessions are disconnected) and
// waits until its processes are gone. Stopping a stopped cluster is a no-op.
func (c *Cluster) Stop(ctx context.Context) error {
	pid, ok := c.livePostmaster()
	if !ok {
		return nil
	}
	out, err := c.run(ctx, "pg_ctl", "stop", "-w", "-t", "60", "-m", "fast", "-D", c.dataDir())
	if err != nil {
		return fmt.Errorf("stop PostgreSQL in %s: %v\n%s", c.dir, err, out)
	}
	// pg_ctl returns when postmaster.pid is gone, a moment before the
	// process itself.
	if !waitExited(pid, 10*time.Second) {
		return fmt.Errorf("stop PostgreSQL in %s: postmaster %d still running 10s after shutdown", c.dir, pid)
	}
	return nil
}

// Destroy stops the server and, when Start made a temporary directory for
// it, removes the directory.
func (c *Cluster) Destroy(ctx context.Context) error {
	if err := c.Stop(ctx); err != nil {
		return err
	}
	if c.temp {
		if err := os.RemoveAll(c.dir); err != nil {
			return fmt.Errorf("remove cluster directory: %w", err)
		}
	}
	return nil
}

func (c *Cluster) dataDir() string { return filepath.Join(c.dir, dataSubdir) }

func readState(dir string) (clusterState, error) {
	var st clusterState
	b, err := os.ReadFile(filepath.Join(dir, stateFile))
	if err != nil {
		return st, err
	}
	if err := json.Unmarshal(b, &st); err != nil {
		return st, fmt.Errorf("read %s: %w", filepath.Join(dir, stateFile), err)
	}
	if st.BinDir == "" {
		st.BinDir, st.OldBinDir = st.OldBinDir, ""
	}
	return st, nil
}

func writeState(dir string, st clusterState) error {
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	return fileutil.WriteFile(filepath.Join(dir, stateFile), append(b, '\n'), 0o600)
}

// pickPort returns preferred when it is free, else a free loopback port.
func pickPort(preferred int) int {
	if preferred != 0 && netutil.PortFree(preferred) {
		return preferred
	}
	port, _ := netutil.FreePort()
	return port
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// hbaMark starts the lines allowOtherHosts adds to pg_hba.conf.
const hbaMark = "# stackbench: other hosts"

// allowOtherHosts lets the clients of Options.Clients log in with the
// password (initdb's pg_hba.conf admits loopback only) when the server
// listens beyond loopback: each address alone (/32, /128), never a
// network. The lines are written again at every such start, replacing
// the previous start's (its clients may have been others); a later
// start on loopback only keeps them, and cannot be reached from
// elsewhere anyway.
func (c *Cluster) allowOtherHosts() error {
	if !beyondLoopback(c.state.Listen) {
		return nil
	}
	lines, err := hbaLines(c.state.Clients)
	if err != nil {
		return err
	}
	path := filepath.Join(c.dataDir(), "pg_hba.conf")
	f, err := fileutil.OpenIn(c.dataDir(), "pg_hba.conf", os.O_RDONLY, 0)
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	b, err := io.ReadAll(io.LimitReader(f, 1<<20))
	f.Close()
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	if i := bytes.Index(b, []byte("\n"+hbaMark)); i >= 0 {
		b = b[:i]
	}
	b = fmt.Appendf(b, "\n%s, over TLS, with the superuser's password (SCRAM)\n%s", hbaMark, lines)
	return fileutil.WriteIn(c.dataDir(), "pg_hba.conf", b, 0o600)
}

// TempDirPrefix begins the name of a cluster directory Start makes in the
// system's temporary directory (Options.Dir "").
const TempDirPrefix = "stackbench-pg-"

// IsTempCluster reports whether dir is a cluster directory Start made in
// the temporary directory (CheckTempCluster returns no error). A results
// directory names the cluster it kept for a resume; only such a
// directory is reused, and removed once the run is done.
func IsTempCluster(dir string) bool { return CheckTempCluster(dir) == nil }

// CheckTempCluster returns why dir is not a cluster directory Start made
// in the temporary directory, nil when it is one: named TempDirPrefix…,
// directly in os.TempDir(), a directory (not a symlink) holding
// cluster.json, both owned by the user stackbench runs as and writable by
// no one else. On a shared /tmp anyone can make a directory of that name;
// one that is not this user's own is data of another user, never reused.
func CheckTempCluster(dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if filepath.Dir(abs) != filepath.Clean(os.TempDir()) || !strings.HasPrefix(filepath.Base(abs), TempDirPrefix) {
		return fmt.Errorf("%s is not a %s* directory directly in %s", abs, TempDirPrefix, os.TempDir())
	}
	if !IsClusterDir(abs) {
		return fmt.Errorf("%s is not a directory holding %s", abs, stateFile)
	}
	for _, p := range []string{abs, filepath.Join(abs, stateFile)} {
		if err := fileutil.CheckOwnPrivate(p); err != nil {
			return err
		}
	}
	return nil
}

// IsClusterDir reports whether dir is a directory (not a symlink) that
// holds a cluster's cluster.json.
func IsClusterDir(dir string) bool {
	fi, err := os.Lstat(dir)
	if err != nil || !fi.IsDir() {
		return false
	}
	st, err := os.Lstat(filepath.Join(dir, stateFile))
	return err == nil && st.Mode().IsRegular()
}

// hbaLines are the pg_hba.conf lines admitting each client host alone,
// over TLS only: its addresses (a name is resolved) as /32 or /128.
func hbaLines(clients []string) (string, error) {
	if len(clients) == 0 {
		return "", errors.New("the server would listen beyond loopback with no client host named: name the hosts that may connect (Options.Clients)")
	}
	var b strings.Builder
	seen := map[netip.Addr]bool{}
	for _, h := range clients {
		var addrs []netip.Addr
		if a, err := netip.ParseAddr(strings.Trim(h, "[]")); err == nil {
			addrs = []netip.Addr{a.Unmap()}
		} else {
			ips, err := net.DefaultResolver.LookupNetIP(context.Background(), "ip", h)
			if err != nil || len(ips) == 0 {
				return "", fmt.Errorf("client host %q does not resolve: %v", h, err)
			}
			for _, a := range ips {
				addrs = append(addrs, a.Unmap())
			}
		}
		for _, a := range addrs {
			if seen[a] {
				continue
			}
			seen[a] = true
			fmt.Fprintf(&b, "hostssl all all %s scram-sha-256\n", netip.PrefixFrom(a, a.BitLen()))
		}
	}
	return b.String(), nil
}

// beyondLoopback reports whether listen_addresses reach past loopback.
func beyondLoopback(listen string) bool {
	return listen != "" && listen != "127.0.0.1" && listen != "localhost"
}
