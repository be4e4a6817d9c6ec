// Package remote is the coordinator's reach to the other hosts of a
// comparison file: it connects over SSH (golang.org/x/crypto/ssh), checks
// every host key against known_hosts and refuses an unknown or changed one,
// copies stackbench's own binary to the host (cached there by its hash,
// cross-built when the host's OS or architecture differs), and runs
// `stackbench agent` on the session's stdin and stdout (internal/agent).
// Nothing is opened on the host but the SSH session.
package remote

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/crypto/ssh"
	sshagent "golang.org/x/crypto/ssh/agent"
	"golang.org/x/crypto/ssh/knownhosts"
)

// DefaultDialTimeout bounds the TCP connection and the SSH handshake, so
// that an unreachable host fails in seconds.
const DefaultDialTimeout = 5 * time.Second

// Host is one host of the file.
type Host struct {
	// Name is the host's name in the file (app1).
	Name string
	User string
	// Addr is the host name or address to dial, without the port.
	Addr string
	Port int
	// Identity is a private key file; empty means keys from the ssh-agent.
	Identity string
}

// Target is user@addr:port.
func (h Host) Target() string {
	return h.User + "@" + net.JoinHostPort(h.Addr, strconv.Itoa(h.port()))
}

func (h Host) port() int {
	if h.Port == 0 {
		return 22
	}
	return h.Port
}

func (h Host) hostPort() string { return net.JoinHostPort(h.Addr, strconv.Itoa(h.port())) }

// Options say how to reach hosts.
type Options struct {
	// KnownHosts are the known_hosts files host keys are checked against;
	// empty means ~/.ssh/known_hosts.
	KnownHosts []string
	// AgentSocket is the ssh-agent's socket (SSH_AUTH_SOCK); empty means
	// no agent.
	AgentSocket string
	// DialTimeout bounds the connection and the handshake;
	// DefaultDialTimeout when 0.
	DialTimeout time.Duration
	// Binary is the stackbench binary copied to hosts of this machine's
	// OS and architecture; empty means the running executable.
	Binary string
	// Source is the root of stackbench's source tree, used to cross-build
	// for a host of another OS or architecture; empty when there is none.
	Source string
}

func (o Options) knownHosts() ([]string, error) {
	if len(o.KnownHosts) > 0 {
		return o.KnownHosts, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return nil, fmt.Errorf("find ~/.ssh/known_hosts: %w", err)
	}
	return []string{filepath.Join(home, ".ssh", "known_hosts")}, nil
}

// HostKeyError is an SSH host key that known_hosts does not vouch for:
// Unknown when no key of the host is known, changed otherwise.
type HostKeyError struct {
	Host string // the host's name in the file
	Addr string // host:port as dialled
	// Type and Fingerprint (SHA256:…) are the key the host offered.
	Type        string
	Fingerprint string
	Unknown     bool
	// Known are the known_hosts lines (file:line) that hold other keys
	// of the host.
	Known      []string
	KnownHosts []string
}

func (e *HostKeyError) Error() string {
	host, port, _ := net.SplitHostPort(e.Addr)
	if e.Unknown {
		return fmt.Sprintf("host %s (%s) is not in %s: it offered a %s key with fingerprint %s; verify that fingerprint on the host (ssh-keygen -lf /etc/ssh/ssh_host_%s_key.pub), then add the key: ssh-keyscan -p %s %s >> %s",
			e.Host, e.Addr, strings.Join(e.KnownHosts, ", "), e.Type, e.Fingerprint, keyFileKind(e.Type), port, host, e.KnownHosts[0])
	}
	return fmt.Sprintf("host %s (%s) offered a %s key with fingerprint %s, which is not the key %s holds for it: if the host was reinstalled, verify the new fingerprint on the host and replace that line; otherwise someone may be between us and the host, so stackbench stops",
		e.Host, e.Addr, e.Type, e.Fingerprint, strings.Join(e.Known, ", "))
}

// keyFileKind is the middle of sshd's host key file name for a key type.
func keyFileKind(keyType string) string {
	switch {
	case strings.Contains(keyType, "ed25519"):
		return "ed25519"
	case strings.Contains(keyType, "ecdsa"):
		return "ecdsa"
	default:
		return "rsa"
	}
}

// hostKeyCallback checks keys against the known_hosts files and returns,
// too, the key algorithms known for the host, so that the handshake asks
// for a key we can check instead of one of another type.
func hostKeyCallback(h Host, files []string) (ssh.HostKeyCallback, []string, error) {
	var present []string
	for _, f := range files {
		if _, err := os.Stat(f); err == nil {
			present = append(present, f)
		}
	}
	if len(present) == 0 {
		return nil, nil, fmt.Errorf("host %s: no known_hosts file (%s), so its host key cannot be checked; add the key: ssh-keyscan -p %d %s >> %s, after verifying its fingerprint on the host",
			h.Name, strings.Join(files, ", "), h.port(), h.Addr, files[0])
	}
	check, err := knownhosts.New(present...)
	if err != nil {
		return nil, nil, fmt.Errorf("read known_hosts: %w", err)
	}
	remote := &net.TCPAddr{IP: net.ParseIP(h.Addr), Port: h.port()}
	if remote.IP == nil {
		remote.IP = net.IPv4zero
	}
	var algos []string
	probe, _, _ := ed25519.GenerateKey(rand.Reader)
	probeKey, _ := ssh.NewPublicKey(probe)
	var ke *knownhosts.KeyError
	if err := check(h.hostPort(), remote, probeKey); errors.As(err, &ke) {
		for _, k := range ke.Want {
			algos = append(algos, algorithmsFor(k.Key.Type())...)
		}
	}
	cb := func(addr string, remote net.Addr, key ssh.PublicKey) error {
		err := check(addr, remote, key)
		var ke *knownhosts.KeyError
		if !errors.As(err, &ke) {
			return err
		}
		he := &HostKeyError{Host: h.Name, Addr: h.hostPort(), Type: key.Type(), Fingerprint: ssh.FingerprintSHA256(key),
			Unknown: len(ke.Want) == 0, KnownHosts: present}
		for _, k := range ke.Want {
			he.Known = append(he.Known, k.Filename+":"+strconv.Itoa(k.Line))
		}
		return he
	}
	return cb, dedupe(algos), nil
}

// algorithmsFor lists the signature algorithms of a key type.
func algorithmsFor(keyType string) []string {
	if keyType == ssh.KeyAlgoRSA {
		return []string{ssh.KeyAlgoRSASHA512, ssh.KeyAlgoRSASHA256, ssh.KeyAlgoRSA}
	}
	return []string{keyType}
}

func dedupe(xs []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// authMethods are the identity file's key, then the ssh-agent's keys.
func authMethods(h Host, o Options) ([]ssh.AuthMethod, func(), error) {
	var signers []ssh.Signer
	if h.Identity != "" {
		pem, err := os.ReadFile(h.Identity)
		if err != nil {
			return nil, nil, fmt.Errorf("host %s: read identity: %w", h.Name, err)
		}
		s, err := ssh.ParsePrivateKey(pem)
		var missing *ssh.PassphraseMissingError
		if errors.As(err, &missing) {
			return nil, nil, fmt.Errorf("host %s: identity %s is protected by a passphrase; load it into ssh-agent (ssh-add %s) and leave identity: out", h.Name, h.Identity, h.Identity)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("host %s: identity %s: %w", h.Name, h.Identity, err)
		}
		signers = append(signers, s)
	}
	closer := func() {}
	var agentSigners func() ([]ssh.Signer, error)
	if o.AgentSocket != "" {
		conn, err := net.Dial("unix", o.AgentSocket)
		if err != nil && h.Identity == "" {
			return nil, nil, fmt.Errorf("host %s: reach ssh-agent at SSH_AUTH_SOCK=%s: %w; start one (eval $(ssh-agent); ssh-add) or give the host an identity:", h.Name, o.AgentSocket, err)
		}
		if err == nil {
			agentSigners = sshagent.NewClient(conn).Signers
			closer = func() { conn.Close() }
		}
	}
	if len(signers) == 0 && agentSigners == nil {
		return nil, nil, fmt.Errorf("host %s: no SSH key to log in with: SSH_AUTH_SOCK is not set and the host has no identity:; start ssh-agent and ssh-add a key, or write identity: ~/.ssh/KEY", h.Name)
	}
	cb := func() ([]ssh.Signer, error) {
		out := append([]ssh.Signer(nil), signers...)
		if agentSigners != nil {
			more, err := agentSigners()
			if err != nil && len(out) == 0 {
				return nil, err
			}
			out = append(out, more...)
		}
		return out, nil
	}
	return []ssh.AuthMethod{ssh.PublicKeysCallback(cb)}, closer, nil
}

// Conn is an SSH connection to one host.
type Conn struct {
	Host   Host
	client *ssh.Client
	closer func()
}

// Dial connects to h and checks its host key. The connection and the
// handshake together take at most the dial timeout, so an unreachable host
// fails in seconds.
func Dial(ctx context.Context, h Host, o Options) (*Conn, error) {
	files, err := o.knownHosts()
	if err != nil {
		return nil, err
	}
	cb, algos, err := hostKeyCallback(h, files)
	if err != nil {
		return nil, err
	}
	auth, closer, err := authMethods(h, o)
	if err != nil {
		return nil, err
	}
	timeout := o.DialTimeout
	if timeout <= 0 {
		timeout = DefaultDialTimeout
	}
	cfg := &ssh.ClientConfig{User: h.User, Auth: auth, HostKeyCallback: cb, HostKeyAlgorithms: algos, Timeout: timeout}
	d := net.Dialer{Timeout: timeout}
	raw, err := d.DialContext(ctx, "tcp", h.hostPort())
	if err != nil {
		closer()
		return nil, fmt.Errorf("host %s (%s) is unreachable: %w; check the address in hosts: and that sshd runs there", h.Name, h.Target(), err)
	}
	raw.SetDeadline(time.Now().Add(timeout))
	sc, chans, reqs, err := ssh.NewClientConn(raw, h.hostPort(), cfg)
	if err != nil {
		raw.Close()
		closer()
		var he *HostKeyError
		if errors.As(err, &he) {
			return nil, he
		}
		if strings.Contains(err.Error(), "unable to authenticate") {
			return nil, fmt.Errorf("host %s (%s) refused our keys: %w; add the public key to ~%s/.ssh/authorized_keys there", h.Name, h.Target(), err, h.User)
		}
		return nil, fmt.Errorf("host %s (%s): SSH handshake: %w", h.Name, h.Target(), err)
	}
	raw.SetDeadline(time.Time{})
	return &Conn{Host: h, client: ssh.NewClient(sc, chans, reqs), closer: closer}, nil
}

// Close ends the connection, and with it every session on it.
func (c *Conn) Close() error {
	err := c.client.Close()
	c.closer()
	return err
}

// Output runs command on the host with the login shell and returns its
// stdout; an error carries its stderr.
func (c *Conn) Output(ctx context.Context, command string, stdin []byte) ([]byte, error) {
	s, err := c.client.NewSession()
	if err != nil {
		return nil, fmt.Errorf("host %s: open a session: %w", c.Host.Name, err)
	}
	defer s.Close()
	var stdout, stderr bytes.Buffer
	s.Stdout, s.Stderr = &stdout, &stderr
	if stdin != nil {
		s.Stdin = bytes.NewReader(stdin)
	}
	done := make(chan error, 1)
	go func() { done <- s.Run(command) }()
	select {
	case err = <-done:
	case <-ctx.Done():
		s.Close()
		return nil, ctx.Err()
	}
	if err != nil {
		return stdout.Bytes(), fmt.Errorf("host %s: %s: %w: %s", c.Host.Name, firstWord(command), err, strings.TrimSpace(stderr.String()))
	}
	return stdout.Bytes(), nil
}

func firstWord(s string) string {
	if i := strings.IndexByte(s, ' '); i > 0 {
		return s[:i]
	}
	return s
}
