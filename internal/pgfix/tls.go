package pgfix

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"
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
// a name: the one the clients dial and verify-full checks) and writes
// them. The CA's key is never written: nothing else can be signed by it
// once this returns.
func (c *Cluster) makeTLS(host string) error {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	now := time.Now()
	ca := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: "stackbench throwaway CA " + now.UTC().Format(time.RFC3339)},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(certLifetime),
		IsCA:                  true,
		BasicConstraintsValid: true,
		MaxPathLenZero:        true,
		KeyUsage:              x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		return fmt.Errorf("make the database's CA: %w", err)
	}
	ca, _ = x509.ParseCertificate(caDER)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	leaf := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: host},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(certLifetime),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	if ip := net.ParseIP(strings.Trim(host, "[]")); ip != nil {
		leaf.IPAddresses = []net.IP{ip}
	} else {
		leaf.DNSNames = []string{host}
	}
	leafDER, err := x509.CreateCertificate(rand.Reader, leaf, ca, &key.PublicKey, caKey)
	if err != nil {
		return fmt.Errorf("make the database's certificate: %w", err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return err
	}
	// PostgreSQL refuses a key that others may read, and reads both as
	// the server account.
	for name, block := range map[string]*pem.Block{
		serverCertFile: {Type: "CERTIFICATE", Bytes: leafDER},
		serverKeyFile:  {Type: "PRIVATE KEY", Bytes: keyDER},
	} {
		path := filepath.Join(c.dataDir(), name)
		if err := os.WriteFile(path, pem.EncodeToMemory(block), 0o600); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
		if err := os.Chmod(path, 0o600); err != nil { // an older file keeps its mode through WriteFile
			return err
		}
		if err := c.acct.own(path); err != nil {
			return err
		}
	}
	caPath := filepath.Join(c.dir, caFile)
	return os.WriteFile(caPath, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), 0o644)
}

func serial() *big.Int {
	n, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
	return n
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
