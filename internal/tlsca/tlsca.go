// Package tlsca makes throwaway certificate authorities: a CA that signs
// one server certificate and whose key is then dropped, so that nothing
// else can ever be signed by it. The run's stacks serve such a
// certificate (load.WriteThrowawayCA) and so does a database that listens
// beyond loopback (pgfix); each trusts only its own CA.
package tlsca

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"strings"
	"time"

	"github.com/stackbench/stackbench/internal/fileutil"
)

// Issued is a server certificate and the CA that signed it, PEM-encoded.
type Issued struct {
	// CAPEM is the CA's certificate: what clients verify the server
	// against.
	CAPEM []byte
	// CertPEM is the server's certificate and KeyPEM its private key
	// (PKCS #8, "PRIVATE KEY": what Go, OpenSSL, PostgreSQL and rustls
	// all read).
	CertPEM, KeyPEM []byte
	// NotAfter is when both stop being valid.
	NotAfter time.Time
}

// clockSkew is how far before now the certificates start to be valid, so
// that a client whose clock is a little behind still accepts them.
const clockSkew = time.Hour

// Issue makes a new CA and a server certificate it signs for hosts (IP
// addresses, bracketed or not, and DNS names; the first is also the
// certificate's common name), both valid from an hour ago for lifetime
// from now. The CA's key lives only inside this call.
func Issue(lifetime time.Duration, hosts ...string) (Issued, error) {
	if len(hosts) == 0 {
		return Issued{}, errors.New("tlsca: a server certificate needs at least one host name or address")
	}
	if lifetime <= 0 {
		return Issued{}, fmt.Errorf("tlsca: lifetime %v is not positive", lifetime)
	}
	now := time.Now()
	notBefore, notAfter := now.Add(-clockSkew), now.Add(lifetime)
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return Issued{}, err
	}
	caTmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: "stackbench throwaway CA " + now.UTC().Format(time.RFC3339)},
		NotBefore:             notBefore,
		NotAfter:              notAfter,
		IsCA:                  true,
		BasicConstraintsValid: true,
		MaxPathLenZero:        true,
		KeyUsage:              x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return Issued{}, fmt.Errorf("tlsca: make the CA: %w", err)
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return Issued{}, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return Issued{}, err
	}
	leaf := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: hosts[0]},
		NotBefore:    notBefore,
		NotAfter:     notAfter,
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	for _, h := range hosts {
		if ip := net.ParseIP(strings.Trim(h, "[]")); ip != nil {
			leaf.IPAddresses = append(leaf.IPAddresses, ip)
		} else {
			leaf.DNSNames = append(leaf.DNSNames, h)
		}
	}
	leafDER, err := x509.CreateCertificate(rand.Reader, leaf, ca, &key.PublicKey, caKey)
	if err != nil {
		return Issued{}, fmt.Errorf("tlsca: make the server's certificate: %w", err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return Issued{}, err
	}
	return Issued{
		CAPEM:    pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}),
		CertPEM:  pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: leafDER}),
		KeyPEM:   pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}),
		NotAfter: notAfter,
	}, nil
}

// WriteFile writes data to path with exactly mode: a file that was there
// already gets mode too (os.WriteFile keeps an existing file's mode, and
// PostgreSQL refuses a key others may read), and a symbolic link in its
// place is refused, not followed (fileutil.WritePath).
func WriteFile(path string, data []byte, mode os.FileMode) error {
	return fileutil.WritePath(path, data, mode)
}

// serial is a random 120-bit certificate serial number.
func serial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
	if err != nil {
		panic(err) // crypto/rand does not fail on a supported system
	}
	return n
}
