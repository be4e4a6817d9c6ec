package load

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// TLS on the engine's own sockets. crypto/tls wants a net.Conn; fdConn is
// one over a connection's non-blocking descriptor, in two modes:
//
//   - blocking, for the handshake: reads and writes wait for the socket
//     with poll(2), up to a deadline. crypto/tls keeps a failed handshake's
//     error for good, so the handshake cannot be driven by readiness events;
//     it runs in the worker's goroutine instead, and the worker's other
//     connections wait for it. Handshakes are counted and timed apart
//     (Result.TLS), so a run with many of them in its window says so.
//   - non-blocking, after it: a read with nothing to read returns
//     errWouldBlock, a temporary net.Error, which crypto/tls passes up
//     without keeping (the bytes of a partial record stay in its buffer);
//     a write never fails for lack of room: what the socket does not take
//     is kept in out and sent when the socket is writable again (flush),
//     because crypto/tls keeps a failed write's error for good.
type fdConn struct {
	fd       int
	blocking bool
	// bounded: reads stop at record boundaries (recordBound), so that a
	// handshake leaves nothing unread inside crypto/tls (startRecords).
	bounded  bool
	bound    recordBound
	deadline int64 // blocking mode: nanotime after which I/O fails
	out      []byte
	// errno is the socket error that ended the connection, if any.
	errno unix.Errno
}

// errWouldBlock is a read that would block. A single value: returning it
// allocates nothing.
var errWouldBlock net.Error = wouldBlock{}

type wouldBlock struct{}

func (wouldBlock) Error() string   { return "read would block" }
func (wouldBlock) Timeout() bool   { return true }
func (wouldBlock) Temporary() bool { return true }

// errHandshakeTimeout is a handshake past its deadline.
var errHandshakeTimeout = errors.New("TLS handshake timed out")

func (f *fdConn) Read(p []byte) (int, error) {
	if f.bounded {
		p = f.bound.limit(p)
	}
	for {
		n, errno := rawRead(f.fd, p)
		switch {
		case errno == 0 && n == 0:
			return 0, io.EOF
		case errno == 0:
			if f.bounded {
				f.bound.advance(p[:n])
			}
			return n, nil
		case errno != unix.EAGAIN:
			f.errno = errno
			return 0, errno
		case !f.blocking:
			return 0, errWouldBlock
		}
		if err := f.wait(unix.POLLIN); err != nil {
			return 0, err
		}
	}
}

func (f *fdConn) Write(p []byte) (int, error) {
	if f.errno != 0 {
		return 0, f.errno
	}
	if !f.blocking {
		f.out = append(f.out, p...)
		if err := f.flush(); err != 0 {
			return 0, err
		}
		return len(p), nil
	}
	written := 0
	for written < len(p) {
		n, errno := rawWrite(f.fd, p[written:])
		if n > 0 {
			written += n
		}
		switch {
		case errno == unix.EAGAIN:
			if err := f.wait(unix.POLLOUT); err != nil {
				return written, err
			}
		case errno != 0:
			f.errno = errno
			return written, errno
		}
	}
	return written, nil
}

// flush sends what the socket takes of out; the rest waits for the next
// flush (when the socket is writable).
func (f *fdConn) flush() unix.Errno {
	for len(f.out) > 0 {
		n, errno := rawWrite(f.fd, f.out)
		if n > 0 {
			f.out = f.out[:copy(f.out, f.out[n:])]
		}
		switch {
		case errno == unix.EAGAIN:
			return 0
		case errno != 0:
			f.errno = errno
			return errno
		}
	}
	return 0
}

// pending reports whether bytes wait for the socket.
func (f *fdConn) pending() bool { return len(f.out) > 0 }

// wait polls the descriptor for events until the deadline.
func (f *fdConn) wait(events int16) error {
	left := (f.deadline - nanotime()) / int64(time.Millisecond)
	if left <= 0 {
		return errHandshakeTimeout
	}
	fds := []unix.PollFd{{Fd: int32(f.fd), Events: events}}
	_, err := unix.Poll(fds, int(min(left, 1000)))
	if err != nil && err != unix.EINTR {
		return err
	}
	return nil
}

func (f *fdConn) Close() error                     { return nil } // the worker closes the descriptor
func (f *fdConn) LocalAddr() net.Addr              { return fdAddr{} }
func (f *fdConn) RemoteAddr() net.Addr             { return fdAddr{} }
func (f *fdConn) SetDeadline(time.Time) error      { return nil }
func (f *fdConn) SetReadDeadline(time.Time) error  { return nil }
func (f *fdConn) SetWriteDeadline(time.Time) error { return nil }

type fdAddr struct{}

func (fdAddr) Network() string { return "tcp" }
func (fdAddr) String() string  { return "stackbench-load" }

// tlsSession is a connection's TLS state: crypto/tls's connection, and
// after a TLS 1.3 handshake the engine's own record layer (tls13.go).
type tlsSession struct {
	fd   fdConn
	conn *tls.Conn
	// engine: the engine's record layer carries the application data; rd
	// and wr protect the server's records and the engine's.
	engine bool
	rd, wr trafficKeys
	// in holds the records read: those from inStart to inEnd not yet
	// opened, and before them, from ptStart to ptEnd, the application
	// data of the last one opened not yet read.
	in                             []byte
	inStart, inEnd, ptStart, ptEnd int
	// hs is a post-handshake message not yet whole.
	hs []byte
	// short: the last read of the socket drained it. closed: the server
	// closed (close_notify, or the socket's end). failed: why the record
	// layer gave up on the connection.
	short, closed bool
	failed        error
	notes         *tlsNotes
}

// tlsClientConfig builds the client's TLS configuration: the target's name
// checked against roots (cfg.CACertPEM, or the system's when empty),
// ALPN offering alpn, session resumption only when asked for.
func tlsClientConfig(cfg Config, t target, alpn []string) (*tls.Config, error) {
	tc := &tls.Config{
		ServerName: t.url.Hostname(),
		MinVersion: tls.VersionTLS12,
		NextProtos: alpn,
	}
	if len(cfg.CACertPEM) > 0 {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(cfg.CACertPEM) {
			return nil, configErrorf("cacert", "holds no PEM certificate; give the CA file the server's certificate is signed by")
		}
		tc.RootCAs = pool
	}
	if cfg.TLSResume {
		tc.ClientSessionCache = tls.NewLRUClientSessionCache(max(cfg.Connections, 64))
	}
	return tc, nil
}

// workerTLSConfig is a worker's TLS configuration: without resumption, a
// copy of the run's whose key log goes to keys (the engine's record layer
// needs the traffic secrets); with it, the run's own (its session cache
// takes the tickets that come through crypto/tls's record layer).
func workerTLSConfig(tc *tls.Config, resume bool, keys *keyLog) *tls.Config {
	if tc == nil || resume {
		return tc
	}
	tc = tc.Clone()
	tc.KeyLogWriter = keys
	return tc
}

// handshake runs the TLS handshake of the connection on fd, blocking (see fdConn), and
// returns the negotiated state, or the class of its failure.
func (w *worker) handshake(fd int, sp **tlsSession, now int64) (ok bool, class errorClass) {
	s := *sp
	if s == nil {
		s = &tlsSession{}
		*sp = s
	}
	err := s.handshake(fd, w.tlsConfig, &w.keys, now+int64(w.r.cfg.Timeout), &w.r.tlsNotes)
	done := nanotime()
	if err != nil {
		w.tlsFailures++
		if s.fd.errno != 0 {
			return false, classify(s.fd.errno)
		}
		if errors.Is(err, errHandshakeTimeout) {
			return false, classTimeout
		}
		if w.r.h2 && strings.Contains(err.Error(), "application protocol") {
			err = fmt.Errorf("the server refused HTTP/2 through ALPN (%v); load it as HTTP/1.1 (without --h2)", err)
		}
		w.r.noteTLSError(err)
		return false, classTLS
	}
	st := s.conn.ConnectionState()
	w.hHandshake.RecordMicros((done - now) / 1000)
	w.handshakes++
	if st.DidResume {
		w.resumed++
	}
	if done >= w.r.warmEnd.Load() && done < w.r.measEnd.Load() {
		w.windowHandshakes++
	}
	w.r.noteTLSState(st, s.engine)
	return true, 0
}

// handshake runs crypto/tls's handshake on fd with conf, blocking until
// deadline, and moves the session onto the engine's record layer when it
// can (conf has a key log to keys).
func (s *tlsSession) handshake(fd int, conf *tls.Config, keys *keyLog, deadline int64, notes *tlsNotes) error {
	engine := conf.KeyLogWriter == keys
	*s = tlsSession{fd: fdConn{fd: fd, blocking: true, bounded: engine, deadline: deadline, out: s.fd.out[:0]}, in: s.in, notes: notes}
	keys.reset()
	s.conn = tls.Client(&s.fd, conf)
	err := s.conn.HandshakeContext(context.Background())
	s.fd.blocking, s.fd.bounded = false, false
	if err == nil && engine {
		s.startRecords(s.conn.ConnectionState(), keys)
	}
	return err
}

// read reads decrypted bytes into p; EAGAIN when none are ready, (0, 0)
// at the peer's close.
func (s *tlsSession) read(p []byte) (int, unix.Errno) {
	if s.engine {
		return s.engineRead(p)
	}
	n, err := s.conn.Read(p)
	switch {
	case err == nil:
		return n, 0
	case err == errWouldBlock:
		return 0, unix.EAGAIN
	case s.fd.errno != 0:
		return 0, s.fd.errno
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return 0, 0
	}
	s.fail(err)
	return 0, errnoTLS
}

// write encrypts p and sends what the socket takes; the rest waits in
// fd.out. An empty p only flushes.
func (s *tlsSession) write(p []byte) (int, unix.Errno) {
	if len(p) == 0 {
		return 0, s.fd.flush()
	}
	if s.engine {
		return s.engineWrite(p)
	}
	n, err := s.conn.Write(p)
	switch {
	case err == nil:
		return n, 0
	case s.fd.errno != 0:
		return n, s.fd.errno
	}
	s.fail(err)
	return n, errnoTLS
}

// tlsNotes is what the run learned of TLS: the first negotiated state and
// the first handshake error (a certificate the CA file does not vouch for,
// say), for the result.
type tlsNotes struct {
	mu       sync.Mutex
	state    *tls.ConnectionState
	engine   bool // the first handshake's session went onto the engine's record layer
	firstErr string
	// firstRecordErr is the first record-layer failure after a handshake
	// (a record that failed to decrypt, an alert).
	firstRecordErr string
}

func (r *run) noteTLSState(st tls.ConnectionState, engine bool) {
	r.tlsNotes.mu.Lock()
	if r.tlsNotes.state == nil {
		r.tlsNotes.state, r.tlsNotes.engine = &st, engine
	}
	r.tlsNotes.mu.Unlock()
}

func (n *tlsNotes) noteRecordError(err error) {
	n.mu.Lock()
	if n.firstRecordErr == "" {
		n.firstRecordErr = err.Error()
	}
	n.mu.Unlock()
}

func (r *run) noteTLSError(err error) {
	r.tlsNotes.mu.Lock()
	if r.tlsNotes.firstErr == "" {
		r.tlsNotes.firstErr = err.Error()
	}
	r.tlsNotes.mu.Unlock()
}
