//go:build linux

package linux

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"syscall"

	"github.com/stackbench/stackbench/internal/platform"
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

	dents [8 << 10]byte // a task directory's entries: ~300 threads a read

	kidsBuf [16 << 10]byte // a children file: room for ~2,500 pids
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
	n, err := readSmall(string(r.path), r.buf[:])
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
// nanoseconds: /proc/<pid>/schedstat for a single-threaded process (its
// first field: the time it ran), and the sum of every thread's
// /proc/<pid>/task/<tid>/schedstat for one with more. utime+stime in
// /proc/<pid>/stat are not that figure to a tick: on this project's VM a
// busy nine-thread process's stat lagged the threads' sum by up to 53 ms,
// and a half-second window read from it was off by up to 9 %.
//
// The threads' sum leaves out threads that have exited (their time is in
// utime+stime only). So the sum is checked against the process's ticks:
// when it falls more than exitedSlack below them, time went with an
// exited thread and ok is false, so the caller goes on in ticks (the
// accounting then keeps what it measured exactly up to its last sample).
func (r *Reader) ExactCPU(p platform.Proc) (int64, bool) {
	if p.Threads == 1 {
		r.path = append(r.path[:0], "/proc/"...)
		r.path = strconv.AppendInt(r.path, int64(p.PID), 10)
		r.path = append(r.path, "/schedstat"...)
		n, err := readSmall(string(r.path), r.buf[:])
		if err != nil {
			return 0, false
		}
		return parseSchedstat(r.buf[:n])
	}
	if p.Threads < 1 {
		return 0, false
	}
	ns, ok := r.threadsCPU(p.PID)
	if !ok || ns < p.OwnTicks*tickNanos-exitedSlack {
		return 0, false
	}
	return ns, true
}

// exitedSlack is how far the threads' sum may fall below a process's
// ticks before it is taken to have lost an exited thread's time: two
// ticks of truncation (utime and stime apart) and a tick of slack.
const exitedSlack = 3 * tickNanos

// tickNanos is one clock tick in nanoseconds.
const tickNanos = int64(1e9) / clockTicksPerSecond

// threadsCPU sums the first field of every thread's schedstat of pid. It
// lists /proc/<pid>/task with getdents into a reused buffer, so that a
// sampler reading it five times a second allocates nothing.
func (r *Reader) threadsCPU(pid int) (int64, bool) {
	r.path = append(r.path[:0], "/proc/"...)
	r.path = strconv.AppendInt(r.path, int64(pid), 10)
	r.path = append(r.path, "/task"...)
	fd, err := syscall.Open(string(r.path), syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return 0, false
	}
	defer syscall.Close(fd)
	dir := len(r.path)
	var total int64
	seen := 0
	for {
		n, err := syscall.ReadDirent(fd, r.dents[:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return 0, false
		}
		if n <= 0 {
			break
		}
		for b := r.dents[:n]; len(b) >= 19; {
			// struct linux_dirent64: ino u64, off s64, reclen u16,
			// type u8, name (NUL-terminated).
			reclen := int(b[16]) | int(b[17])<<8
			if reclen < 19 || reclen > len(b) {
				return 0, false
			}
			name := b[19:reclen]
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			b = b[reclen:]
			if len(name) == 0 || name[0] < '0' || name[0] > '9' {
				continue // . and ..
			}
			r.path = append(r.path[:dir], '/')
			r.path = append(r.path, name...)
			r.path = append(r.path, "/schedstat"...)
			m, err := readSmall(string(r.path), r.buf[:])
			if err != nil {
				continue // the thread exited since the listing
			}
			ns, ok := parseSchedstat(r.buf[:m])
			if !ok {
				return 0, false
			}
			total += ns
			seen++
		}
	}
	return total, seen > 0
}

// parseSchedstat reads the first field of a schedstat line ("123456 789
// 12\n").
func parseSchedstat(b []byte) (int64, bool) {
	var ns int64
	i := 0
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		if ns > (1<<62)/10 {
			return 0, false
		}
		ns = ns*10 + int64(b[i]-'0')
	}
	return ns, i > 0 && i < len(b) && b[i] == ' '
}

// readSmall reads a small file into buf with raw syscalls (no *os.File,
// no allocation beyond the path string).
func readSmall(path string, buf []byte) (int, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return 0, err
	}
	defer syscall.Close(fd)
	total := 0
	for total < len(buf) {
		n, err := syscall.Read(fd, buf[total:])
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
