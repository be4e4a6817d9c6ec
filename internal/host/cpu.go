package host

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"syscall"
)

// clockTicksPerSecond is USER_HZ, the unit of /proc/stat.
const clockTicksPerSecond = 100

// CPUTimes is the host's cumulative CPU time since boot, all CPUs summed,
// from the first line of /proc/stat.
type CPUTimes struct {
	// BusyTicks is user+nice+system+irq+softirq+steal. Steal counts as
	// busy: a hypervisor that takes our CPUs contends like a process does.
	BusyTicks int64
	// IdleTicks is idle+iowait.
	IdleTicks int64
}

// BusySeconds returns BusyTicks in seconds.
func (t CPUTimes) BusySeconds() float64 { return float64(t.BusyTicks) / clockTicksPerSecond }

// BusySecondsSince returns the busy CPU seconds between an earlier reading
// and t.
func (t CPUTimes) BusySecondsSince(earlier CPUTimes) float64 {
	return float64(t.BusyTicks-earlier.BusyTicks) / clockTicksPerSecond
}

// ReadCPU reads /proc/stat. It allocates nothing but the path, so samplers
// can call it cheaply.
func ReadCPU() (CPUTimes, error) {
	var buf [512]byte
	fd, err := syscall.Open("/proc/stat", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return CPUTimes{}, fmt.Errorf("read host CPU: %w", err)
	}
	defer syscall.Close(fd)
	n, err := syscall.Read(fd, buf[:])
	if err != nil {
		return CPUTimes{}, fmt.Errorf("read host CPU: %w", err)
	}
	return parseCPULine(buf[:n])
}

var errBadProcStat = errors.New("read host CPU: /proc/stat does not start with an aggregate cpu line")

// parseCPULine parses "cpu  user nice system idle iowait irq softirq steal guest guest_nice".
// guest and guest_nice are already included in user and nice.
func parseCPULine(b []byte) (CPUTimes, error) {
	if nl := bytes.IndexByte(b, '\n'); nl >= 0 {
		b = b[:nl]
	}
	fields := bytes.Fields(b)
	if len(fields) < 5 || string(fields[0]) != "cpu" {
		return CPUTimes{}, errBadProcStat
	}
	var v [8]int64
	for i := 0; i < len(v) && i+1 < len(fields); i++ {
		n, err := strconv.ParseInt(string(fields[i+1]), 10, 64)
		if err != nil {
			return CPUTimes{}, errBadProcStat
		}
		v[i] = n
	}
	user, nice, system, idle, iowait, irq, softirq, steal := v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]
	return CPUTimes{
		BusyTicks: user + nice + system + irq + softirq + steal,
		IdleTicks: idle + iowait,
	}, nil
}
