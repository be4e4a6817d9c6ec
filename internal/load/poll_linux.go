//go:build linux

package load

import (
	"math"
	"os"
	"strconv"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The Linux event loop: one epoll instance per worker, level-triggered,
// and a timerfd for the open loop's schedule. poll_darwin.go is the same
// loop on kqueue; worker.go, the parser, the encoder and the accounting
// are shared.

// Readiness bits of an event, as worker.onEvent reads them.
const (
	evIn  = unix.EPOLLIN
	evOut = unix.EPOLLOUT
	evErr = unix.EPOLLERR | unix.EPOLLHUP
)

// timerIndex marks the timerfd's epoll events.
const timerIndex = -1

// poller is a worker's epoll instance and its open-loop timer.
type poller struct {
	epfd  int
	timer int // timerfd (open loop), or -1
	evs   []unix.EpollEvent
}

func newPoller(withTimer bool) (*poller, error) {
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, err
	}
	p := &poller{epfd: epfd, timer: -1, evs: make([]unix.EpollEvent, 256)}
	if withTimer {
		p.timer, err = unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
		if err == nil {
			err = unix.EpollCtl(epfd, unix.EPOLL_CTL_ADD, p.timer,
				&unix.EpollEvent{Events: unix.EPOLLIN, Fd: timerIndex})
		}
		if err != nil {
			p.close()
			return nil, err
		}
	}
	return p, nil
}

func (p *poller) close() {
	if p.timer >= 0 {
		unix.Close(p.timer)
	}
	unix.Close(p.epfd)
}

// newSocket opens a non-blocking TCP socket with Nagle off.
func newSocket(family int) (int, error) {
	fd, err := unix.Socket(family, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
	return fd, nil
}

// add watches a dialing socket for readability and writability; id comes
// back with its events.
func (p *poller) add(fd int, id int32) error {
	return unix.EpollCtl(p.epfd, unix.EPOLL_CTL_ADD, fd,
		&unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLOUT, Fd: id})
}

// setOut watches fd for readability, and for writability when want.
func (p *poller) setOut(fd int, id int32, want bool) {
	ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: id}
	if want {
		ev.Events |= unix.EPOLLOUT
	}
	unix.EpollCtl(p.epfd, unix.EPOLL_CTL_MOD, fd, &ev)
}

// wait waits for events; raw selects the RawSyscall form (see below).
//
// read and write on non-blocking sockets return at once, so they go
// through RawSyscall, which skips the Go scheduler's bookkeeping for calls
// that may block. epoll_wait does block. Through the ordinary Syscall,
// every wait longer than 20 µs lets the runtime's monitor take the
// worker's P away and hand it back, waking threads each time: on a busy
// event loop that cost more CPU than the requests. So when the program has
// a spare P (GOMAXPROCS above the number of workers; the load command
// arranges it) a worker waits through RawSyscall and keeps its P; the other
// goroutines run on the spare one. The runtime still preempts a worker that
// holds its P for more than 10 ms (a signal interrupts the wait with
// EINTR), so nothing starves.
func (p *poller) wait(msec int, raw bool) (int, unix.Errno) {
	if !raw {
		n, err := unix.EpollWait(p.epfd, p.evs, msec)
		if err != nil {
			return 0, err.(unix.Errno)
		}
		return n, 0
	}
	n, _, e := unix.RawSyscall6(unix.SYS_EPOLL_PWAIT, uintptr(p.epfd), uintptr(unsafe.Pointer(&p.evs[0])),
		uintptr(len(p.evs)), uintptr(msec), 0, 0)
	return int(n), e
}

// event returns the k-th event of the last wait: the connection's id and
// its readiness bits, or timer true for the open loop's timer (which it
// clears).
func (p *poller) event(k int) (id int32, events uint32, timer bool) {
	ev := &p.evs[k]
	if ev.Fd == timerIndex {
		var b [8]byte
		unix.Read(p.timer, b[:]) // clears the expiry count
		return 0, 0, true
	}
	return ev.Fd, ev.Events, false
}

// armTimer makes the timer fire at t (nanotime's clock, CLOCK_MONOTONIC).
func (p *poller) armTimer(t int64) {
	spec := unix.ItimerSpec{Value: unix.NsecToTimespec(t)}
	unix.TimerfdSettime(p.timer, unix.TFD_TIMER_ABSTIME, &spec, nil)
}

func rawRead(fd int, p []byte) (int, unix.Errno) {
	n, _, e := unix.RawSyscall(unix.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	return int(n), e
}

func rawWrite(fd int, p []byte) (int, unix.Errno) {
	n, _, e := unix.RawSyscall(unix.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	return int(n), e
}

// runDelaySeconds is the time this process's threads have spent runnable
// but waiting for a CPU, summed over its threads (the second field of
// /proc/self/task/*/schedstat); NaN where the kernel does not say.
func runDelaySeconds() float64 {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return math.NaN()
	}
	var ns int64
	for _, t := range tasks {
		b, err := os.ReadFile("/proc/self/task/" + t.Name() + "/schedstat")
		if err != nil {
			continue // the thread exited
		}
		f := strings.Fields(string(b))
		if len(f) < 2 {
			return math.NaN()
		}
		v, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			return math.NaN()
		}
		ns += v
	}
	return float64(ns) / 1e9
}
