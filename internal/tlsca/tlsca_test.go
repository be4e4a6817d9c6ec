package tlsca

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func parse(t *testing.T, b []byte) *x509.Certificate {
	t.Helper()
	block, _ := pem.Decode(b)
	if block == nil || block.Type != "CERTIFICATE" {
		t.Fatalf("not a PEM certificate: %q", b)
	}
	c, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestIssueVerifiesForItsHostsOnly(t *testing.T) {
	const lifetime = 7 * 24 * time.Hour
	before := time.Now()
	is, err := Issue(lifetime, "127.0.0.1", "[::1]", "localhost")
	if err != nil {
		t.Fatal(err)
	}
	ca, leaf := parse(t, is.CAPEM), parse(t, is.CertPEM)
	if !ca.IsCA || !ca.MaxPathLenZero || ca.KeyUsage != x509.KeyUsageCertSign {
		t.Errorf("CA: IsCA %v, MaxPathLenZero %v, key usage %v; want a CA that signs leaves only", ca.IsCA, ca.MaxPathLenZero, ca.KeyUsage)
	}
	if leaf.IsCA {
		t.Error("the server's certificate is a CA")
	}
	if leaf.Subject.CommonName != "127.0.0.1" {
		t.Errorf("common name %q, want the first host", leaf.Subject.CommonName)
	}
	// Valid from an hour before the call for lifetime after it.
	for _, c := range []*x509.Certificate{ca, leaf} {
		if !c.NotBefore.Before(before.Add(-clockSkew+time.Second)) || c.NotBefore.Before(before.Add(-clockSkew-time.Minute)) {
			t.Errorf("%s: NotBefore %v, want about an hour before %v", c.Subject.CommonName, c.NotBefore, before)
		}
		if d := c.NotAfter.Sub(before); d < lifetime-time.Minute || d > lifetime+time.Minute {
			t.Errorf("%s: valid for %v after issue, want %v", c.Subject.CommonName, d, lifetime)
		}
	}
	if !is.NotAfter.Truncate(time.Second).Equal(leaf.NotAfter) {
		t.Errorf("NotAfter %v, the certificate says %v", is.NotAfter, leaf.NotAfter)
	}
	roots := x509.NewCertPool()
	roots.AddCert(ca)
	for _, name := range []string{"127.0.0.1", "::1", "localhost"} {
		if _, err := leaf.Verify(x509.VerifyOptions{DNSName: name, Roots: roots}); err != nil {
			t.Errorf("verify for %s: %v", name, err)
		}
	}
	if _, err := leaf.Verify(x509.VerifyOptions{DNSName: "10.0.0.1", Roots: roots}); err == nil {
		t.Error("the certificate verifies for 10.0.0.1, a host it was not issued for")
	}
	// Another CA does not vouch for it.
	other, err := Issue(time.Hour, "127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	otherRoots := x509.NewCertPool()
	otherRoots.AddCert(parse(t, other.CAPEM))
	if _, err := leaf.Verify(x509.VerifyOptions{DNSName: "127.0.0.1", Roots: otherRoots}); err == nil {
		t.Error("a second throwaway CA vouches for the first one's certificate")
	}
	// The key pairs with the certificate, as a server loads them.
	if _, err := tls.X509KeyPair(is.CertPEM, is.KeyPEM); err != nil {
		t.Errorf("load the key pair: %v", err)
	}
	if block, _ := pem.Decode(is.KeyPEM); block == nil || block.Type != "PRIVATE KEY" {
		t.Errorf("key PEM %q, want a PKCS #8 PRIVATE KEY block", is.KeyPEM)
	}
}

func TestIssueRefusesNoHostAndNoLifetime(t *testing.T) {
	if _, err := Issue(time.Hour); err == nil {
		t.Error("Issue with no host succeeded")
	}
	if _, err := Issue(0, "localhost"); err == nil {
		t.Error("Issue with a zero lifetime succeeded")
	}
}

func TestWriteFileSetsTheModeOfAnExistingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "key.pem")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, []byte("new"), 0o600); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", st.Mode().Perm())
	}
	if b, _ := os.ReadFile(path); string(b) != "new" {
		t.Errorf("content %q, want %q", b, "new")
	}
}
