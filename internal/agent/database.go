package agent

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/stackbench/stackbench/internal/pgfix"
)

// DatabaseProcess is the name under which sample measures the embedded
// cluster's processes (the postmaster and everything it forks, found
// again at every sample); start refuses it for a process of its own.
const DatabaseProcess = "database"

// DatabaseSpec is the embedded cluster to start on the agent's host.
type DatabaseSpec struct {
	// Host is the address of the agent's host that the coordinator and
	// the other hosts dial; it is the host of the URLs returned.
	Host string `json:"host"`
	// Clients are the hosts of the comparison file, the only ones
	// (besides the coordinator, whose SSH address the agent adds) that
	// may log in.
	Clients []string `json:"clients,omitempty"`
	// Listen is the server's listen_addresses; "" is "*", every address.
	Listen string `json:"listen,omitempty"`
}

// DatabaseInfo is the embedded cluster an agent started.
type DatabaseInfo struct {
	// AdminURL reaches the cluster's "postgres" database as its
	// superuser, with the cluster's random password, at DatabaseSpec.Host.
	AdminURL string `json:"admin_url"`
	Port     int    `json:"port"`
	// PostmasterPID is the server's main process on the agent's host.
	PostmasterPID int `json:"postmaster_pid"`
	// Version is the server binaries' version line, Binaries where they
	// were found and how.
	Version  string `json:"version"`
	Binaries string `json:"binaries"`
	// Dir is the cluster's directory on the agent's host (removed when the
	// cluster stops).
	Dir string `json:"dir"`
	// Settings are the server settings stackbench set.
	Settings map[string]string `json:"settings,omitempty"`
	// CACert is the throwaway CA (PEM) the server's certificate chains to:
	// AdminURL says sslmode=verify-full with sslrootcert at its path on
	// the agent's host, so a client elsewhere writes CACert to a file of
	// its own and names that instead (pgfix.WithRootCert).
	CACert string `json:"ca_cert,omitempty"`
}

// databases is the one embedded cluster of an agent session.
type databases struct {
	mu      sync.Mutex
	c       *pgfix.Cluster
	pending bool // a start is under way
}

// start makes and starts a throwaway cluster (pgfix.Start in a temporary
// directory) listening where spec says, with password authentication over
// TLS (a throwaway certificate for spec.Host). One per session.
func (d *databases) start(ctx context.Context, spec *DatabaseSpec) (*DatabaseInfo, error) {
	if spec == nil || spec.Host == "" {
		return nil, errors.New("agent: database names no host address for its URL")
	}
	d.mu.Lock()
	if d.c != nil || d.pending {
		d.mu.Unlock()
		return nil, errors.New("agent: a database is already running in this session; stop it first")
	}
	d.pending = true
	d.mu.Unlock()
	listen := spec.Listen
	if listen == "" {
		listen = "*"
	}
	bins, err := pgfix.LocateBinaries()
	if err != nil {
		d.mu.Lock()
		d.pending = false
		d.mu.Unlock()
		return nil, err
	}
	c, err := pgfix.Start(ctx, pgfix.Options{Listen: listen, Host: spec.Host, Clients: databaseClients(spec.Clients)})
	d.mu.Lock()
	defer d.mu.Unlock()
	d.pending = false
	if err != nil {
		return nil, fmt.Errorf("agent: start the embedded database: %w", err)
	}
	d.c = c
	return &DatabaseInfo{AdminURL: c.AdminURL(), Port: c.Port(), PostmasterPID: c.PostmasterPID(),
		Version: c.Version(), Binaries: bins.String(), Dir: c.Dir(), Settings: c.Settings(), CACert: string(c.CACertPEM())}, nil
}

// stop stops the cluster and removes its directory; nothing running is
// not an error.
func (d *databases) stop() error {
	d.mu.Lock()
	c := d.c
	d.c = nil
	d.mu.Unlock()
	if c == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := c.Destroy(ctx); err != nil {
		return fmt.Errorf("agent: stop the embedded database: %w", err)
	}
	return nil
}

// postmaster is the running cluster's postmaster pid; 0 when none runs.
func (d *databases) postmaster() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.c == nil {
		return 0
	}
	return d.c.PostmasterPID()
}

// StartDatabase starts an embedded PostgreSQL cluster on the agent's host,
// listening on spec.Listen (every address by default) with SCRAM password
// authentication and a random password, over TLS only, and returns its
// URL at spec.Host (sslmode=verify-full) with the CA to verify it by.
// The agent stops it and removes its directory on StopDatabase or when the
// session ends. Sample with DatabaseProcess measures its processes.
func (c *Client) StartDatabase(ctx context.Context, spec DatabaseSpec) (DatabaseInfo, error) {
	resp, err := c.call(ctx, Request{Op: OpDatabase, Database: &spec})
	if err != nil {
		return DatabaseInfo{}, err
	}
	if resp.Database == nil {
		return DatabaseInfo{}, fmt.Errorf("%s: the agent answered %s without the database", c.host, OpDatabase)
	}
	return *resp.Database, nil
}

// StopDatabase stops the cluster StartDatabase started and removes it.
func (c *Client) StopDatabase(ctx context.Context) error {
	_, err := c.call(ctx, Request{Op: OpDatabaseStop})
	return err
}

// databaseClients are the hosts that may log in to the cluster: those
// the coordinator names and the coordinator itself, as this session's
// SSH connection shows it (SSH_CONNECTION's first field).
func databaseClients(named []string) []string {
	out := slices.Clone(named)
	if f := strings.Fields(os.Getenv("SSH_CONNECTION")); len(f) > 0 && !slices.Contains(out, f[0]) {
		out = append(out, f[0])
	}
	return out
}
