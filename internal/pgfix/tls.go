package pgfix

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"github.com/stackbench/stackbench/internal/tlsca"
)

// Files of a cluster that listens beyond loopback: a throwaway CA made at
// every start (caFile, in the cluster directory, what clients verify the
// server against) and the server's certificate and key signed by it (in
// the data directory, where PostgreSQL reads them).
const (
	caFile         = "ca.crt"
	serverCertFile = "server.crt"
	serverKeyFile  = "server.key"
)

// certLifetime bounds the throwaway certificates: longer than any run.
const certLifetime = 30 * 24 * time.Hour

// makeTLS makes a new CA and a server certificate for host (an address or
// a name: the one the clients dial and verify-full checks), valid for 30
// days, and writes them: the certificate and key in the data directory
// (mode 0600, owned by the server account), the CA in the cluster
// directory (mode 0644). The CA's key is never written: nothing else can
// be signed by it once this returns.
func (c *Cluster) makeTLS(host string) error {
	is, err := tlsca.Issue(certLifetime, host)
	if err != nil {
		return fmt.Errorf("make the database's certificate: %w", err)
	}
	// PostgreSQL refuses a key that others may read, and reads both as
	// the server account.
	for name, data := range map[string][]byte{serverCertFile: is.CertPEM, serverKeyFile: is.KeyPEM} {
		path := filepath.Join(c.dataDir(), name)
		if err := tlsca.WriteFile(path, data, 0o600); err != nil {
			return err
		}
		if err := c.acct.own(path); err != nil {
			return err
		}
	}
	return tlsca.WriteFile(filepath.Join(c.dir, caFile), is.CAPEM, 0o644)
}

// tlsOn reports whether the cluster speaks TLS: it does whenever it
// listens beyond loopback.
func (c *Cluster) tlsOn() bool { return beyondLoopback(c.state.Listen) }

// CACertPEM is the CA the server's certificate chains to, PEM; nil for a
// cluster on loopback only, which speaks no TLS.
func (c *Cluster) CACertPEM() []byte {
	if !c.tlsOn() {
		return nil
	}
	b, err := os.ReadFile(filepath.Join(c.dir, caFile))
	if err != nil {
		return nil
	}
	return b
}

// WithRootCert returns dsn (a URL) with its sslrootcert set to path: the
// same database, verified against a CA file at path on the machine that
// connects. A dsn without TLS (no sslmode=verify-full) is returned as it
// is.
func WithRootCert(dsn, path string) (string, error) {
	u, err := url.Parse(dsn)
	if err != nil {
		return "", fmt.Errorf("database URL: %v", err)
	}
	q := u.Query()
	if q.Get("sslmode") != "verify-full" {
		return dsn, nil
	}
	q.Set("sslrootcert", path)
	u.RawQuery = q.Encode()
	return u.String(), nil
}
