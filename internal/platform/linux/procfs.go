//go:build linux

package linux

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"syscall"

	"github.com/stackbench/stackbench/internal/platform"
	"golang.org/x/sys/unix"
)

// procStat is what the samplers and the supervisor read from
// /proc/<pid>/stat. CPU times are in clock ticks.
type procStat struct {
	pid   int
	ppid  int
	pgrp  int
	state byte
	// ownTicks is utime+stime: every thread of the process, live or exited.
	ownTicks int64
	// childTicks is cutime+cstime: children the process has waited for.
	childTicks int64
	rssPages   int64
	// startTicks is when the process started, in clock ticks since boot.
	startTicks int64
	threads    int
}

// alive reports whether the process still runs: zombies and dead
// processes are gone for our purposes (their parent just has not reaped them).
func (s procStat) alive() bool { return s.state != 'Z' && s.state != 'X' && s.state != 'x' }

func (s procStat) proc() platform.Proc {
	return platform.Proc{
		PID: s.pid, PPID: s.ppid, PGID: s.pgrp, Alive: s.alive(),
		OwnTicks: s.ownTicks, ChildTicks: s.childTicks, StartTicks: s.startTicks,
		RSSBytes: s.rssPages * pageSizeBytes, Threads: s.threads,
	}
}

// Reader reads /proc/<pid>/stat files into one reused buffer, so the
// sampler does not allocate per process and per tick.
type Reader struct {
	buf  [1024]byte
	path []byte

	kidsBuf [16 << 10]byte // a children file: room for ~2,500 pids

	// held: files kept open between reads while holding is on, read
	// again with pread from offset 0: 4 µs against 10 µs for an open,
	// a read and a close of a process's stat on this project's VM. An
	// open /proc file stays with its process: once it has exited, the
	// read fails (ESRCH) and the path is opened anew, as without holding.
	held    map[string]*heldFile
	holding bool
	maxHeld int
}

type heldFile struct {
	fd   int
	used bool // read since the last Sweep
}

// maxHeld bounds the files a Reader keeps open: 512, or an eighth of the
// open-file limit where that is lower, so that held files never starve
// the harness of descriptors.
func maxHeld() int {
	var rl unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &rl); err != nil {
		return 64
	}
	return int(min(512, rl.Cur/8))
}

// Hold turns holding files open on or off for the reads that follow
// (platform.Holder); the files already held stay until Sweep or Release.
func (r *Reader) Hold(on bool) {
	r.holding = on
	if on && r.held == nil {
		r.held = map[string]*heldFile{}
		r.maxHeld = maxHeld()
	}
}

// Sweep closes the held files not read since the last Sweep: those of
// processes that exited or are no longer watched.
func (r *Reader) Sweep() {
	for path, f := range r.held {
		if !f.used {
			syscall.Close(f.fd)
			delete(r.held, path)
			continue
		}
		f.used = false
	}
}

// Release closes every held file and turns holding off.
func (r *Reader) Release() {
	for path, f := range r.held {
		syscall.Close(f.fd)
		delete(r.held, path)
	}
	r.holding = false
}

// readFile reads a small file into buf: through its held file when
// holding (opening and holding it when there is room), else by path.
func (r *Reader) readFile(path []byte, buf []byte) (int, error) {
	if !r.holding {
		return readSmall(string(path), buf)
	}
	if f, ok := r.held[string(path)]; ok { // no allocation: a map lookup by []byte
		n, err := preadSmall(f.fd, buf)
		if err == nil {
			f.used = true
			return n, nil
		}
		syscall.Close(f.fd)
		delete(r.held, string(path))
	}
	if len(r.held) >= r.maxHeld {
		return readSmall(string(path), buf)
	}
	fd, err := syscall.Open(string(path), syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err == syscall.EMFILE || err == syscall.ENFILE {
		// Out of descriptors: give back what is held rather than take
		// the process for gone.
		r.Release()
		r.holding = true
		return readSmall(string(path), buf)
	}
	if err != nil {
		return 0, err
	}
	n, err := preadSmall(fd, buf)
	if err != nil {
		syscall.Close(fd)
		return 0, err
	}
	r.held[string(path)] = &heldFile{fd: fd, used: true}
	return n, nil
}

// preadSmall reads fd from offset 0 into buf.
func preadSmall(fd int, buf []byte) (int, error) {
	total := 0
	for total < len(buf) {
		n, err := syscall.Pread(fd, buf[total:], int64(total))
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return 0, err
		}
		if n == 0 {
			break
		}
		total += n
	}
	return total, nil
}

// Read returns the stat of pid; ok is false when the process is gone.
func (r *Reader) Read(pid int) (platform.Proc, bool) {
	st, ok := r.read(pid)
	if !ok {
		return platform.Proc{}, false
	}
	return st.proc(), true
}

func (r *Reader) read(pid int) (procStat, bool) {
	r.path = append(r.path[:0], "/proc/"...)
	r.path = strconv.AppendInt(r.path, int64(pid), 10)
	r.path = append(r.path, "/stat"...)
	n, err := r.readFile(r.path, r.buf[:])
	if err != nil {
		return procStat{}, false
	}
	st, err := parseStat(r.buf[:n])
	if err != nil {
		return procStat{}, false
	}
	return st, true
}

// ExactCPU reads a process's CPU time from the scheduler's own count, in
// nanoseconds: the process's CPU-time clock (clock_gettime on the clock id
// clock_getcpuclockid(3) gives for pid), which is every thread's run time,
// live or exited, to the nanosecond, in one system call that any user may
// make. utime+stime in /proc/<pid>/stat are not that figure to a tick: on
// this project's VM a busy nine-thread process's stat lagged it by up to
// 53 ms, and a half-second window read from it was off by up to 9 %.
// (Summing the threads' /proc/<pid>/task/*/schedstat, as this did before,
// costs a file per thread and loses the time of threads that exited.)
//
// ok is false when the process is gone, and when the figure falls more
// than exitedSlack below the ticks read a moment before: the clock of
// another process that took its pid.
func (r *Reader) ExactCPU(p platform.Proc) (int64, bool) {
	if p.PID <= 0 || p.PID >= 1<<28 { // the clock id holds the pid in 29 bits
		return 0, false
	}
	var ts unix.Timespec
	if err := unix.ClockGettime(processCPUClock(p.PID), &ts); err != nil {
		return 0, false
	}
	ns := ts.Nano()
	if ns < p.OwnTicks*tickNanos-exitedSlack {
		return 0, false
	}
	return ns, true
}

// processCPUClock is the clock id of pid's CPU time, as glibc's
// clock_getcpuclockid makes it: the pid's complement shifted left by 3,
// with the scheduler's clock (CPUCLOCK_SCHED, 2) and no per-thread bit.
func processCPUClock(pid int) int32 { return int32(^pid<<3 | 2) }

// exitedSlack is how far the clock may fall below a process's ticks
// before it is taken for another process's: two ticks of truncation
// (utime and stime apart) and a tick of slack.
const exitedSlack = 3 * tickNanos

// tickNanos is one clock tick in nanoseconds.
const tickNanos = int64(1e9) / clockTicksPerSecond

// readSmall reads a small file into buf with raw syscalls (no *os.File,
// no allocation beyond the path string).
func readSmall(path string, buf []byte) (int, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return 0, err
	}
	defer syscall.Close(fd)
	return preadSmall(fd, buf)
}

var errBadStat = errors.New("malformed /proc/<pid>/stat")

// parseStat parses the line of /proc/<pid>/stat. The command name is in
// parentheses and may contain spaces and parentheses, so fields are counted
// from the last ')'.
func parseStat(b []byte) (procStat, error) {
	open := bytes.IndexByte(b, '(')
	close := bytes.LastIndexByte(b, ')')
	if open < 1 || close < open || close+2 >= len(b) {
		return procStat{}, errBadStat
	}
	var st procStat
	pid, ok := atoi(bytes.TrimSpace(b[:open]))
	if !ok {
		return procStat{}, errBadStat
	}
	st.pid = int(pid)
	rest := b[close+2:]
	// Field numbers as in proc(5), counted from 3 (state).
	field := 3
	for len(rest) > 0 && field <= 24 {
		end := bytes.IndexByte(rest, ' ')
		if end < 0 {
			end = len(rest)
		}
		tok := rest[:end]
		if end < len(rest) {
			rest = rest[end+1:]
		} else {
			rest = nil
		}
		if field == 3 {
			if len(tok) != 1 {
				return procStat{}, errBadStat
			}
			st.state = tok[0]
			field++
			continue
		}
		v, ok := atoi(tok)
		if !ok {
			return procStat{}, errBadStat
		}
		switch field {
		case 4:
			st.ppid = int(v)
		case 5:
			st.pgrp = int(v)
		case 14, 15:
			st.ownTicks += v
		case 16, 17:
			st.childTicks += v
		case 20:
			st.threads = int(v)
		case 22:
			st.startTicks = v
		case 24:
			st.rssPages = v
		}
		field++
	}
	if field <= 24 {
		return procStat{}, errBadStat
	}
	return st, nil
}

// atoi parses a decimal integer, possibly negative, without allocating.
func atoi(b []byte) (int64, bool) {
	if len(b) == 0 {
		return 0, false
	}
	neg := b[0] == '-'
	if neg {
		b = b[1:]
		if len(b) == 0 {
			return 0, false
		}
	}
	var v int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	if neg {
		v = -v
	}
	return v, true
}

// List appends the numeric entries of /proc: every process (not thread)
// visible to us.
func (r *Reader) List(dst []int) ([]int, error) {
	f, err := os.Open("/proc")
	if err != nil {
		return dst, err
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		return dst, err
	}
	for _, n := range names {
		if v, ok := atoi([]byte(n)); ok && v > 0 {
			dst = append(dst, int(v))
		}
	}
	return dst, nil
}
