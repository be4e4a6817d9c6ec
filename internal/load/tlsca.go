package load

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
	"os"
	"path/filepath"
	"time"
)

// ThrowawayCA names the files WriteThrowawayCA wrote: the CA's certificate
// (what the load generator trusts, --cacert) and the server's certificate
// and key (what the stack serves).
type ThrowawayCA struct {
	CAFile, CertFile, KeyFile string
}

// throwawayLifetime is how long a throwaway certificate is valid: a run's
// length, with room.
const throwawayLifetime = 7 * 24 * time.Hour

// WriteThrowawayCA makes a certificate authority for one run and a server
// certificate it signs for hosts (names or IP addresses; loopback's when
// empty), and writes them as PEM files in dir: ca.pem, cert.pem and
// key.pem (mode 0600). The CA's key is not kept, so nothing else can ever
// be signed by it.
func WriteThrowawayCA(dir string, hosts ...string) (ThrowawayCA, error) {
	if len(hosts) == 0 {
		hosts = []string{"127.0.0.1", "::1", "localhost"}
	}
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return ThrowawayCA{}, err
	}
	now := time.Now().Add(-time.Hour) // a clock a little behind still accepts it
	caTmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: "stackbench throwaway CA"},
		NotBefore:             now,
		NotAfter:              now.Add(throwawayLifetime),
		KeyUsage:              x509.KeyUsageCertSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLenZero:        true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return ThrowawayCA{}, err
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return ThrowawayCA{}, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return ThrowawayCA{}, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: hosts[0]},
		NotBefore:    now,
		NotAfter:     now.Add(throwawayLifetime),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return ThrowawayCA{}, err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return ThrowawayCA{}, err
	}
	out := ThrowawayCA{
		CAFile:   filepath.Join(dir, "ca.pem"),
		CertFile: filepath.Join(dir, "cert.pem"),
		KeyFile:  filepath.Join(dir, "key.pem"),
	}
	for _, f := range []struct {
		path, kind string
		der        []byte
		mode       os.FileMode
	}{
		{out.CAFile, "CERTIFICATE", caDER, 0o644},
		{out.CertFile, "CERTIFICATE", der, 0o644},
		{out.KeyFile, "EC PRIVATE KEY", keyDER, 0o600},
	} {
		data := pem.EncodeToMemory(&pem.Block{Type: f.kind, Bytes: f.der})
		if err := os.WriteFile(f.path, data, f.mode); err != nil {
			return ThrowawayCA{}, fmt.Errorf("write throwaway TLS file: %w", err)
		}
	}
	return out, nil
}

// serial is a random certificate serial number.
func serial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
	if err != nil {
		panic(err) // crypto/rand does not fail on a supported system
	}
	return n
}
