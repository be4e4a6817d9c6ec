package load

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/stackbench/stackbench/internal/tlsca"
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
// empty), valid for seven days (tlsca.Issue), and writes them as PEM files
// in dir: ca.pem, cert.pem and key.pem, each mode 0600 (whoever reads
// them — the stacks, the load generator — runs as this user), written
// through no link (tlsca.WriteFile). The CA's key is not kept, so
// nothing else can ever be signed by it; the run removes key.pem when it
// ends (stack.RemoveTLSKey).
func WriteThrowawayCA(dir string, hosts ...string) (ThrowawayCA, error) {
	if len(hosts) == 0 {
		hosts = []string{"127.0.0.1", "::1", "localhost"}
	}
	is, err := tlsca.Issue(throwawayLifetime, hosts...)
	if err != nil {
		return ThrowawayCA{}, err
	}
	out := ThrowawayCA{
		CAFile:   filepath.Join(dir, "ca.pem"),
		CertFile: filepath.Join(dir, "cert.pem"),
		KeyFile:  filepath.Join(dir, "key.pem"),
	}
	for _, f := range []struct {
		path string
		data []byte
		mode os.FileMode
	}{
		{out.CAFile, is.CAPEM, 0o600},
		{out.CertFile, is.CertPEM, 0o600},
		{out.KeyFile, is.KeyPEM, 0o600},
	} {
		if err := tlsca.WriteFile(f.path, f.data, f.mode); err != nil {
			return ThrowawayCA{}, fmt.Errorf("write throwaway TLS file: %w", err)
		}
	}
	return out, nil
}
