//go:build darwin

package load

import (
	"math"

	"golang.org/x/sys/unix"
)

// The macOS event loop: the epoll loop of poll_linux.go on kqueue. Each
// socket has a read filter and a write filter (level-triggered, like the
// epoll set); the write filter is enabled only while a request is being
// written or a connect completes. The open loop's timer is a one-shot
// EVFILT_TIMER in nanoseconds, re-armed for each due time.

// Readiness bits of an event, as worker.onEvent reads them.
const (
	evIn  = 1 << 0
	evOut = 1 << 1
	evErr = 1 << 2
)

// timerIdent is the ident of the open loop's timer.
const timerIdent = 1<<31 - 1

// poller is a worker's kqueue.
type poller struct {
	kq      int
	evs     []unix.Kevent_t
	changes [2]unix.Kevent_t
	timeout unix.Timespec
	// ids maps a socket to its connection (kqueue's udata is a pointer).
	ids []int32
}

func newPoller(withTimer bool) (*poller, error) {
	kq, err := unix.Kqueue()
	if err != nil {
		return nil, err
	}
	unix.CloseOnExec(kq)
	return &poller{kq: kq, evs: make([]unix.Kevent_t, 256)}, nil
}

func (p *poller) close() { unix.Close(p.kq) }

// newSocket opens a non-blocking TCP socket with Nagle off (macOS has no
// SOCK_NONBLOCK or SOCK_CLOEXEC flags to socket(2)).
func newSocket(family int) (int, error) {
	fd, err := unix.Socket(family, unix.SOCK_STREAM, 0)
	if err != nil {
		return -1, err
	}
	unix.CloseOnExec(fd)
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return -1, err
	}
	unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
	unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_NOSIGPIPE, 1)
	return fd, nil
}

func (p *poller) change(n int) error {
	_, err := unix.Kevent(p.kq, p.changes[:n], nil, nil)
	return err
}

// add watches a dialing socket for readability and writability; id comes
// back with its events.
func (p *poller) add(fd int, id int32) error {
	for fd >= len(p.ids) {
		p.ids = append(p.ids, -1)
	}
	p.ids[fd] = id
	unix.SetKevent(&p.changes[0], fd, unix.EVFILT_READ, unix.EV_ADD|unix.EV_ENABLE)
	unix.SetKevent(&p.changes[1], fd, unix.EVFILT_WRITE, unix.EV_ADD|unix.EV_ENABLE)
	return p.change(2)
}

// setOut enables or disables the write filter of fd.
func (p *poller) setOut(fd int, id int32, want bool) {
	flags := unix.EV_DISABLE
	if want {
		flags = unix.EV_ENABLE
	}
	unix.SetKevent(&p.changes[0], fd, unix.EVFILT_WRITE, flags)
	p.change(1)
}

// wait waits for events through kevent(2). macOS offers no raw system
// calls to programs (they go through libc), so raw is ignored.
func (p *poller) wait(msec int, raw bool) (int, unix.Errno) {
	p.timeout = unix.NsecToTimespec(int64(msec) * 1e6)
	n, err := unix.Kevent(p.kq, nil, p.evs, &p.timeout)
	if err != nil {
		return 0, err.(unix.Errno)
	}
	return n, 0
}

// event returns the k-th event of the last wait: the connection's id and
// its readiness bits, or timer true for the open loop's timer.
func (p *poller) event(k int) (id int32, events uint32, timer bool) {
	ev := &p.evs[k]
	if ev.Filter == unix.EVFILT_TIMER {
		return 0, 0, true
	}
	fd := int(ev.Ident)
	if fd >= len(p.ids) {
		return -1, 0, false
	}
	switch ev.Filter {
	case unix.EVFILT_READ:
		events = evIn
	case unix.EVFILT_WRITE:
		events = evOut
	}
	if ev.Flags&(unix.EV_EOF|unix.EV_ERROR) != 0 {
		events |= evErr
	}
	return p.ids[fd], events, false
}

// armTimer makes the timer fire at t (nanotime's clock), as a one-shot
// timer relative to now.
func (p *poller) armTimer(t int64) {
	p.changes[0] = unix.Kevent_t{
		Ident:  timerIdent,
		Filter: unix.EVFILT_TIMER,
		Flags:  unix.EV_ADD | unix.EV_ENABLE | unix.EV_ONESHOT,
		Fflags: unix.NOTE_NSECONDS,
		Data:   max(t-nanotime(), 0),
	}
	p.change(1)
}

func rawRead(fd int, b []byte) (int, unix.Errno) {
	n, err := unix.Read(fd, b)
	if err != nil {
		return n, err.(unix.Errno)
	}
	return n, 0
}

func rawWrite(fd int, b []byte) (int, unix.Errno) {
	n, err := unix.Write(fd, b)
	if err != nil {
		return n, err.(unix.Errno)
	}
	return n, 0
}

// runDelaySeconds: macOS does not report how long threads waited for a
// CPU, so the figure is NaN (not measured).
func runDelaySeconds() float64 { return math.NaN() }
