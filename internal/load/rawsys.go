package load

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// The hot path's system calls. read and write on non-blocking sockets
// return at once, so they go through RawSyscall, which skips the Go
// scheduler's bookkeeping for calls that may block.
//
// epoll_wait does block. Through the ordinary Syscall, every wait longer
// than 20 µs lets the runtime's monitor take the worker's P away and hand
// it back, waking threads each time: on a busy event loop that cost more
// CPU than the requests. So when the program has a spare P (GOMAXPROCS
// above the number of workers; the load command arranges it) a worker
// waits through RawSyscall and keeps its P; the other goroutines run on the
// spare one. The runtime still preempts a worker that holds its P for more
// than 10 ms (a signal interrupts the wait with EINTR), so nothing starves.

func rawRead(fd int, p []byte) (int, unix.Errno) {
	n, _, e := unix.RawSyscall(unix.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	return int(n), e
}

func rawWrite(fd int, p []byte) (int, unix.Errno) {
	n, _, e := unix.RawSyscall(unix.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	return int(n), e
}

// epollWait waits for events; raw selects the RawSyscall form (see above).
func epollWait(epfd int, evs []unix.EpollEvent, msec int, raw bool) (int, unix.Errno) {
	if !raw {
		n, err := unix.EpollWait(epfd, evs, msec)
		if err != nil {
			return 0, err.(unix.Errno)
		}
		return n, 0
	}
	n, _, e := unix.RawSyscall6(unix.SYS_EPOLL_PWAIT, uintptr(epfd), uintptr(unsafe.Pointer(&evs[0])),
		uintptr(len(evs)), uintptr(msec), 0, 0)
	return int(n), e
}
