package agent

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// ServerTLS is the certificate a started server serves: the agent writes
// CertPEM and KeyPEM (mode 0600) in its run directory and gives the
// server their paths in the environment variables CertEnv and KeyEnv.
type ServerTLS struct {
	CertPEM []byte `json:"cert_pem"`
	KeyPEM  []byte `json:"key_pem"`
	CertEnv string `json:"cert_env"`
	KeyEnv  string `json:"key_env"`
}

// runDir is a session's run directory: the private files the coordinator
// sends for the processes it starts (a server's certificate and key), one
// subdirectory per process. It is made on first use (mode 0700, under the
// system's temporary directory), a process's files go when it stops, and
// the directory with everything in it when the session ends.
type runDir struct {
	mu  sync.Mutex
	dir string
}

// processDir makes the directory of the process name (a bare name, as
// the coordinator names its trees), mode 0700, and returns its path.
func (d *runDir) processDir(name string) (string, error) {
	if name == "" || name != filepath.Base(name) || name == "." || name == ".." {
		return "", fmt.Errorf("agent: %q is not a bare name for a process's files", name)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.dir == "" {
		dir, err := os.MkdirTemp("", "stackbench-agent-run-")
		if err != nil {
			return "", fmt.Errorf("agent: the run directory: %w", err)
		}
		d.dir = dir
	}
	p := filepath.Join(d.dir, name)
	if err := os.Mkdir(p, 0o700); err != nil {
		return "", fmt.Errorf("agent: the files of %s: %w", name, err)
	}
	return p, nil
}

// writeTLS writes t's certificate and key (mode 0600) for the process
// name and returns the environment entries that name them.
func (d *runDir) writeTLS(name string, t *ServerTLS) ([]string, error) {
	if len(t.CertPEM) == 0 || len(t.KeyPEM) == 0 || t.CertEnv == "" || t.KeyEnv == "" {
		return nil, errors.New("agent: a server's TLS needs a certificate, a key and the two variables that name them")
	}
	dir, err := d.processDir(name)
	if err != nil {
		return nil, err
	}
	cert, key := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	for _, f := range []struct {
		path string
		data []byte
	}{{cert, t.CertPEM}, {key, t.KeyPEM}} {
		if err := os.WriteFile(f.path, f.data, 0o600); err != nil {
			d.forget(name)
			return nil, fmt.Errorf("agent: %w", err)
		}
	}
	return []string{t.CertEnv + "=" + cert, t.KeyEnv + "=" + key}, nil
}

// forget removes the files of the process name.
func (d *runDir) forget(name string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.dir != "" && name != "" && name == filepath.Base(name) && name != "." && name != ".." {
		os.RemoveAll(filepath.Join(d.dir, name))
	}
}

// remove removes the run directory and everything in it.
func (d *runDir) remove() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.dir != "" {
		os.RemoveAll(d.dir)
		d.dir = ""
	}
}
