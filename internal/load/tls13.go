package load

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/tls"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"slices"

	"golang.org/x/crypto/chacha20poly1305"
	"golang.org/x/sys/unix"
)

// The engine's own TLS 1.3 record layer. crypto/tls does the handshake and
// checks the certificate; after a TLS 1.3 handshake the engine carries the
// application data itself, with the connection's traffic secrets (which
// crypto/tls hands out through its key log). Per request crypto/tls's
// record layer costs about 0.6 µs of CPU besides the AEAD (locks, its
// buffers, an allocation per record read); this one seals a request into
// one record in the session's write buffer and opens the response in
// place in its read buffer (RFC 8446 §5).
//
// The stream position is exact: during the handshake fdConn hands
// crypto/tls at most the rest of the record it is reading (recordBound),
// so when the handshake returns crypto/tls holds nothing unread, and the
// sequence numbers of both directions start at 0.

const (
	recordHeaderBytes = 5
	// maxPlaintextBytes is a record's content at most; maxCiphertextBytes
	// its protected length at most (RFC 8446 §5.1, §5.2).
	maxPlaintextBytes  = 1 << 14
	maxCiphertextBytes = maxPlaintextBytes + 256
	// tlsInStartBytes is a session's first read buffer; it grows to a
	// whole record at most when a record needs it.
	tlsInStartBytes = 4 << 10
	// maxPostHandshakeBytes bounds a post-handshake message being
	// reassembled (a session ticket is a few hundred bytes).
	maxPostHandshakeBytes = 1 << 16

	recordAlert     byte = 21
	recordHandshake byte = 22
	recordAppData   byte = 23

	msgNewSessionTicket byte = 4
	msgKeyUpdate        byte = 24

	alertCloseNotify  byte = 0
	alertUserCanceled byte = 90
)

// errnoTLS is what a session's read or write returns when the TLS layer,
// not the socket, failed; classify counts it in the class tls. (No read
// or write on a TCP socket returns EBADMSG.)
const errnoTLS = unix.EBADMSG

// Why the engine's record layer gave up on a connection.
var (
	errRecordOverflow = errors.New("the server sent a TLS record longer than 2^14+256 bytes")
	errRecordType     = errors.New("the server sent a TLS record other than application data after the handshake")
	errBadRecordMAC   = errors.New("a TLS record from the server failed to decrypt (bad record MAC)")
	errNoContentType  = errors.New("a decrypted TLS record from the server has no content type")
	errInnerType      = errors.New("a TLS record from the server has an unknown content type")
	errAlertSyntax    = errors.New("the server sent a malformed TLS alert")
	errPostHandshake  = errors.New("the server sent a post-handshake message other than NewSessionTicket or KeyUpdate")
	errKeyUpdate      = errors.New("the server sent a malformed KeyUpdate, or one not at the end of its record")
)

// trafficKeys protects one direction of a connection: the AEAD and iv of
// its current traffic secret and the next record's sequence number.
type trafficKeys struct {
	suite     uint16
	secret    []byte
	aead      cipher.AEAD
	iv, nonce [12]byte
	seq       uint64
}

// suiteParams is a TLS 1.3 suite's hash and key length; ok false for a
// suite the engine's record layer does not carry.
func suiteParams(suite uint16) (h func() hash.Hash, keyBytes int, ok bool) {
	switch suite {
	case tls.TLS_AES_128_GCM_SHA256:
		return sha256.New, 16, true
	case tls.TLS_AES_256_GCM_SHA384:
		return sha512.New384, 32, true
	case tls.TLS_CHACHA20_POLY1305_SHA256:
		return sha256.New, chacha20poly1305.KeySize, true
	}
	return nil, 0, false
}

// expandLabel is HKDF-Expand-Label with an empty context (RFC 8446 §7.1).
func expandLabel(h func() hash.Hash, secret []byte, label string, n int) ([]byte, error) {
	info := binary.BigEndian.AppendUint16(nil, uint16(n))
	info = append(info, byte(len("tls13 ")+len(label)))
	info = append(info, "tls13 "...)
	info = append(info, label...)
	info = append(info, 0)
	return hkdf.Expand(h, secret, string(info), n)
}

// set derives the key and iv of secret (RFC 8446 §7.3) and restarts the
// sequence numbers.
func (k *trafficKeys) set(suite uint16, secret []byte) error {
	h, keyBytes, ok := suiteParams(suite)
	if !ok {
		return fmt.Errorf("cipher suite %s is not carried by the engine's record layer", tls.CipherSuiteName(suite))
	}
	key, err := expandLabel(h, secret, "key", keyBytes)
	if err != nil {
		return err
	}
	iv, err := expandLabel(h, secret, "iv", len(k.iv))
	if err != nil {
		return err
	}
	var aead cipher.AEAD
	if suite == tls.TLS_CHACHA20_POLY1305_SHA256 {
		aead, err = chacha20poly1305.New(key)
	} else {
		var block cipher.Block
		if block, err = aes.NewCipher(key); err == nil {
			aead, err = cipher.NewGCM(block)
		}
	}
	if err != nil {
		return err
	}
	k.suite, k.secret, k.aead, k.seq = suite, secret, aead, 0
	copy(k.iv[:], iv)
	return nil
}

// update moves to the next traffic secret (a KeyUpdate, RFC 8446 §7.2).
func (k *trafficKeys) update() error {
	h, _, _ := suiteParams(k.suite)
	next, err := expandLabel(h, k.secret, "traffic upd", len(k.secret))
	if err != nil {
		return err
	}
	return k.set(k.suite, next)
}

// nextNonce is the next record's nonce: the iv XOR its sequence number.
func (k *trafficKeys) nextNonce() []byte {
	k.nonce = k.iv
	binary.BigEndian.PutUint64(k.nonce[4:], binary.BigEndian.Uint64(k.iv[4:])^k.seq)
	k.seq++
	return k.nonce[:]
}

// seal appends to dst one record of content type typ carrying p (at most
// maxPlaintextBytes), encrypted where it lies.
func (k *trafficKeys) seal(dst []byte, typ byte, p []byte) []byte {
	n := len(p) + 1 + k.aead.Overhead()
	dst = slices.Grow(dst, recordHeaderBytes+n)
	start := len(dst)
	dst = append(dst, recordAppData, 3, 3, byte(n>>8), byte(n))
	dst = append(dst, p...)
	dst = append(dst, typ)
	body := start + recordHeaderBytes
	return k.aead.Seal(dst[:body], k.nextNonce(), dst[body:], dst[start:body])
}

// open decrypts the record rec (header and body) in place and returns its
// content type and content.
func (k *trafficKeys) open(rec []byte) (byte, []byte, error) {
	if rec[0] != recordAppData {
		return 0, nil, errRecordType
	}
	body := rec[recordHeaderBytes:]
	pt, err := k.aead.Open(body[:0], k.nextNonce(), body, rec[:recordHeaderBytes])
	if err != nil {
		return 0, nil, errBadRecordMAC
	}
	if len(pt) > maxPlaintextBytes+1 {
		return 0, nil, errRecordOverflow
	}
	i := len(pt) - 1
	for i >= 0 && pt[i] == 0 { // padding
		i--
	}
	if i < 0 {
		return 0, nil, errNoContentType
	}
	return pt[i], pt[:i], nil
}

// recordSize is the size of the record at the start of b: 0 while its
// header is incomplete, an error when it is longer than a record may be.
func recordSize(b []byte) (int, error) {
	if len(b) < recordHeaderBytes {
		return 0, nil
	}
	n := int(b[3])<<8 | int(b[4])
	if n > maxCiphertextBytes {
		return 0, errRecordOverflow
	}
	return recordHeaderBytes + n, nil
}

// recordBound keeps a reader of a TLS stream at record boundaries: limit
// cuts a read to the rest of the current header or record, advance counts
// what was read.
type recordBound struct {
	hdr        [recordHeaderBytes]byte
	have, left int
}

func (b *recordBound) limit(p []byte) []byte {
	if b.left > 0 {
		return p[:min(len(p), b.left)]
	}
	return p[:min(len(p), recordHeaderBytes-b.have)]
}

func (b *recordBound) advance(p []byte) {
	if b.left > 0 {
		b.left -= len(p)
		return
	}
	b.have += copy(b.hdr[b.have:], p)
	if b.have == recordHeaderBytes {
		b.left = int(b.hdr[3])<<8 | int(b.hdr[4])
		b.have = 0
	}
}

// atBoundary reports whether the reader stopped between two records.
func (b *recordBound) atBoundary() bool { return b.have == 0 && b.left == 0 }

// keyLog takes crypto/tls's key log (tls.Config.KeyLogWriter) of one
// handshake at a time and keeps its application traffic secrets. Each
// worker has its own, on its own copy of the run's tls.Config: a worker's
// handshakes run one at a time in its goroutine, so the lines written
// between reset and the handshake's end are that connection's.
type keyLog struct {
	clientRandom, serverRandom string
	client, server             []byte
}

func (k *keyLog) reset() { *k = keyLog{} }

// Write reads one key log line ("LABEL <client random> <secret>", hex).
func (k *keyLog) Write(line []byte) (int, error) {
	f := bytes.Fields(line)
	if len(f) != 3 {
		return len(line), nil
	}
	secret, err := hex.DecodeString(string(f[2]))
	if err != nil {
		return len(line), nil
	}
	switch string(f[0]) {
	case "CLIENT_TRAFFIC_SECRET_0":
		k.clientRandom, k.client = string(f[1]), secret
	case "SERVER_TRAFFIC_SECRET_0":
		k.serverRandom, k.server = string(f[1]), secret
	}
	return len(line), nil
}

// secrets are the application traffic secrets, when both came from the
// same handshake.
func (k *keyLog) secrets() (client, server []byte, ok bool) {
	ok = k.client != nil && k.server != nil && k.clientRandom == k.serverRandom
	return k.client, k.server, ok
}

// startRecords moves the session onto the engine's record layer after a
// TLS 1.3 handshake whose suite it carries; false leaves it on
// crypto/tls's.
func (s *tlsSession) startRecords(st tls.ConnectionState, keys *keyLog) bool {
	client, server, ok := keys.secrets()
	if !ok || st.Version != tls.VersionTLS13 || !s.fd.bound.atBoundary() {
		return false
	}
	if s.rd.set(st.CipherSuite, server) != nil || s.wr.set(st.CipherSuite, client) != nil {
		return false
	}
	s.engine = true
	if s.in == nil {
		s.in = make([]byte, tlsInStartBytes)
	}
	return true
}

// engineRead is read on the engine's record layer: the application data
// of the whole records buffered, reading the socket only when none is.
func (s *tlsSession) engineRead(p []byte) (int, unix.Errno) {
	n := 0
	for {
		if s.ptStart < s.ptEnd {
			k := copy(p[n:], s.in[s.ptStart:s.ptEnd])
			n += k
			s.ptStart += k
			if n == len(p) {
				return n, 0
			}
		}
		switch {
		case n > 0 && (s.failed != nil || s.closed || s.fd.errno != 0):
			return n, 0
		case s.failed != nil:
			return 0, errnoTLS
		case s.fd.errno != 0:
			return 0, s.fd.errno
		case s.closed:
			return 0, 0
		}
		size, err := recordSize(s.in[s.inStart:s.inEnd])
		switch {
		case err != nil:
			s.fail(err)
			continue
		case size > 0 && s.inEnd-s.inStart >= size:
			s.nextRecord(size)
			continue
		case n > 0:
			return n, 0
		}
		if errno := s.fill(size); errno != 0 {
			return 0, errno
		}
	}
}

// fill reads the socket into the read buffer, making room for a record
// of size bytes (0: not known yet). At the peer's close (without
// close_notify) the session is closed; crypto/tls's path treats it so too.
func (s *tlsSession) fill(size int) unix.Errno {
	if s.inStart == s.inEnd {
		s.inStart, s.inEnd = 0, 0
	}
	if size > len(s.in) {
		grown := make([]byte, recordHeaderBytes+maxCiphertextBytes)
		s.inEnd = copy(grown, s.in[s.inStart:s.inEnd])
		s.in, s.inStart = grown, 0
	}
	if s.inStart > 0 && (len(s.in)-s.inStart < max(size, recordHeaderBytes) || len(s.in)-s.inEnd < len(s.in)/4) {
		s.inEnd = copy(s.in, s.in[s.inStart:s.inEnd])
		s.inStart = 0
	}
	space := len(s.in) - s.inEnd
	n, errno := rawRead(s.fd.fd, s.in[s.inEnd:])
	switch {
	case errno == unix.EAGAIN:
		s.short = true
		return errno
	case errno != 0:
		s.fd.errno = errno
		return errno
	case n == 0:
		s.closed = true
		return 0
	}
	s.inEnd += n
	s.short = n < space
	return 0
}

// drained reports whether the session holds nothing to read and its last
// read of the socket drained it: the caller may wait for the poller.
// crypto/tls's path never says so (it may hold a record the socket no
// longer has).
func (s *tlsSession) drained() bool {
	if !s.engine || !s.short || s.ptStart < s.ptEnd || s.closed || s.failed != nil {
		return false
	}
	size, err := recordSize(s.in[s.inStart:s.inEnd])
	return err == nil && (size == 0 || s.inEnd-s.inStart < size)
}

// nextRecord opens the whole record of size bytes at the read buffer's
// start: application data becomes readable; an alert, a session ticket
// or a KeyUpdate is handled.
func (s *tlsSession) nextRecord(size int) {
	at := s.inStart
	s.inStart += size
	typ, content, err := s.rd.open(s.in[at : at+size])
	if err != nil {
		s.fail(err)
		return
	}
	switch typ {
	case recordAppData:
		s.ptStart = at + recordHeaderBytes
		s.ptEnd = s.ptStart + len(content)
	case recordAlert:
		switch {
		case len(content) != 2:
			s.fail(errAlertSyntax)
		case content[1] == alertCloseNotify:
			s.closed = true
		case content[1] != alertUserCanceled: // a warning; close_notify follows
			s.fail(fmt.Errorf("the server sent a TLS alert: %w", tls.AlertError(content[1])))
		}
	case recordHandshake:
		s.onHandshake(content)
	default:
		s.fail(errInnerType)
	}
}

// onHandshake handles post-handshake messages (RFC 8446 §4.6): session
// tickets are dropped (resumption, when asked for, keeps crypto/tls's
// record layer, whose cache takes them); a KeyUpdate moves the read keys
// on and, when the server asks, the write keys too.
func (s *tlsSession) onHandshake(content []byte) {
	s.hs = append(s.hs, content...)
	for len(s.hs) >= 4 {
		typ := s.hs[0]
		n := int(s.hs[1])<<16 | int(s.hs[2])<<8 | int(s.hs[3])
		if n > maxPostHandshakeBytes {
			s.fail(errPostHandshake)
			return
		}
		if len(s.hs) < 4+n {
			return
		}
		switch typ {
		case msgNewSessionTicket:
			s.hs = s.hs[:copy(s.hs, s.hs[4+n:])]
		case msgKeyUpdate:
			// The new keys protect the next record: the message must end
			// this one.
			if n != 1 || s.hs[4] > 1 || len(s.hs) != 5 {
				s.fail(errKeyUpdate)
				return
			}
			requested := s.hs[4] == 1
			s.hs = s.hs[:0]
			if err := s.rd.update(); err != nil {
				s.fail(err)
				return
			}
			if requested {
				if err := s.sendKeyUpdate(false); err != nil {
					s.fail(err)
				}
			}
			return
		default:
			s.fail(errPostHandshake)
			return
		}
	}
}

// sendKeyUpdate sends a KeyUpdate (asking the server for one when
// requested) and moves the write keys on.
func (s *tlsSession) sendKeyUpdate(requested bool) error {
	msg := [5]byte{msgKeyUpdate, 0, 0, 1, 0}
	if requested {
		msg[4] = 1
	}
	s.fd.out = s.wr.seal(s.fd.out, recordHandshake, msg[:])
	if err := s.wr.update(); err != nil {
		return err
	}
	s.fd.flush()
	return nil
}

// fail ends the session's reading for err; the first one is kept for the
// run's result.
func (s *tlsSession) fail(err error) {
	if s.failed == nil {
		s.failed = err
		if s.notes != nil {
			s.notes.noteRecordError(err)
		}
	}
}

// engineWrite seals p into records (one for a request of up to 16 KiB)
// appended to the session's write buffer and sends what the socket takes.
func (s *tlsSession) engineWrite(p []byte) (int, unix.Errno) {
	if s.fd.errno != 0 {
		return 0, s.fd.errno
	}
	for rest := p; len(rest) > 0; {
		k := min(len(rest), maxPlaintextBytes)
		s.fd.out = s.wr.seal(s.fd.out, recordAppData, rest[:k])
		rest = rest[k:]
	}
	return len(p), s.fd.flush()
}
