package remote

import (
	"context"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"

	"golang.org/x/crypto/ssh"

	"github.com/stackbench/stackbench/internal/agent"
)

// Session is a running agent on one host.
type Session struct {
	Conn  *Conn
	Agent *agent.Client
	Hello agent.Hello
	// Platform is the host's; Binary the local file that was copied, and
	// Copied whether it had to be (false: the host's cache had it).
	Platform Platform
	Binary   string
	Copied   bool

	ssh    *ssh.Session
	stderr *tail
}

// Connect dials h, copies the binary for its platform and starts the
// agent; the session's hello has been exchanged and the agent's binary
// checked against the copied one.
func Connect(ctx context.Context, h Host, o Options) (*Session, error) {
	conn, err := Dial(ctx, h, o)
	if err != nil {
		return nil, err
	}
	s, err := start(ctx, conn, o)
	if err != nil {
		conn.Close()
		return nil, err
	}
	return s, nil
}

func start(ctx context.Context, conn *Conn, o Options) (*Session, error) {
	// Our own binary is the usual one: ask for the platform and whether
	// the host has it at once.
	own, err := BinaryFor(ctx, Local(), o)
	if err != nil {
		return nil, err
	}
	ownHash, err := fileHash(own)
	if err != nil {
		return nil, err
	}
	p, cached, err := conn.survey(ctx, ownHash)
	if err != nil {
		return nil, err
	}
	bin, path, copied := own, agentPath(ownHash), false
	switch {
	case p != Local():
		if bin, err = BinaryFor(ctx, p, o); err != nil {
			return nil, fmt.Errorf("host %s: %w", conn.Host.Name, err)
		}
		if path, copied, err = conn.Install(ctx, bin); err != nil {
			return nil, err
		}
	case !cached:
		if err := conn.copyBinary(ctx, own, ownHash); err != nil {
			return nil, err
		}
		copied = true
	}
	s := &Session{Conn: conn, Platform: p, Binary: bin, Copied: copied, stderr: &tail{}}
	if s.ssh, err = conn.client.NewSession(); err != nil {
		return nil, fmt.Errorf("host %s: open a session: %w", conn.Host.Name, err)
	}
	stdin, err := s.ssh.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := s.ssh.StdoutPipe()
	if err != nil {
		return nil, err
	}
	s.ssh.Stderr = s.stderr
	if err := s.ssh.Start(path + " agent"); err != nil {
		return nil, fmt.Errorf("host %s: start the agent: %w", conn.Host.Name, err)
	}
	s.Agent = agent.NewClient(conn.Host.Name, stdout, stdin)
	hello, err := s.Agent.Hello(ctx)
	if err != nil {
		s.Agent.Close()
		s.ssh.Wait()
		if t := s.stderr.String(); t != "" {
			err = fmt.Errorf("%w (the agent said: %s)", err, t)
		}
		return nil, err
	}
	s.Hello = hello
	want, err := fileHash(bin)
	if err == nil && hello.Binary != want {
		s.Close()
		return nil, fmt.Errorf("host %s runs an agent whose binary hash %.16s is not that of the copied %s (%.16s); remove %s there and retry",
			conn.Host.Name, hello.Binary, bin, want, path)
	}
	return s, nil
}

// Stderr is the last of what the agent wrote to its stderr.
func (s *Session) Stderr() string { return s.stderr.String() }

// Close closes the agent's stdin (it stops what it started and exits),
// waits for it, and closes the connection.
func (s *Session) Close() error {
	s.Agent.Close()
	<-s.Agent.Done()
	s.ssh.Wait()
	return s.Conn.Close()
}

// LocalIP is this machine's address on the link to the host: the local
// end of the SSH connection, which the host reaches this machine at.
func (c *Conn) LocalIP() string {
	if a, ok := c.client.LocalAddr().(*net.TCPAddr); ok {
		return a.IP.String()
	}
	host, _, _ := net.SplitHostPort(c.client.LocalAddr().String())
	return host
}

// Drop ends the connection at once, as a network failure would: the agent
// sees its stdin close. Tests use it to provoke a lost session.
func (s *Session) Drop() error { return s.Conn.client.Close() }

// tail keeps the last 4 KiB written to it.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

const tailMax = 4 << 10

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > tailMax {
		t.buf = t.buf[len(t.buf)-tailMax:]
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.buf))
}

var _ io.Writer = (*tail)(nil)
