//go:build linux

package linux

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"syscall"

	"github.com/stackbench/stackbench/internal/platform"
)

// HostCPU reads /proc/stat. It allocates nothing but the path, so samplers
// can call it cheaply.
func (OS) HostCPU() (platform.HostCPU, error) {
	var buf [512]byte
	fd, err := syscall.Open("/proc/stat", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return platform.HostCPU{}, fmt.Errorf("read host CPU: %w", err)
	}
	defer syscall.Close(fd)
	n, err := syscall.Read(fd, buf[:])
	if err != nil {
		return platform.HostCPU{}, fmt.Errorf("read host CPU: %w", err)
	}
	return ParseCPULine(buf[:n])
}

var errBadProcStat = errors.New("read host CPU: /proc/stat does not start with an aggregate cpu line")

// ParseCPULine parses "cpu  user nice system idle iowait irq softirq steal
// guest guest_nice", the first line of /proc/stat. guest and guest_nice are
// already included in user and nice.
func ParseCPULine(b []byte) (platform.HostCPU, error) {
	if nl := bytes.IndexByte(b, '\n'); nl >= 0 {
		b = b[:nl]
	}
	fields := bytes.Fields(b)
	if len(fields) < 5 || string(fields[0]) != "cpu" {
		return platform.HostCPU{}, errBadProcStat
	}
	var v [8]int64
	for i := 0; i < len(v) && i+1 < len(fields); i++ {
		n, err := strconv.ParseInt(string(fields[i+1]), 10, 64)
		if err != nil {
			return platform.HostCPU{}, errBadProcStat
		}
		v[i] = n
	}
	user, nice, system, idle, iowait, irq, softirq, steal := v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]
	return platform.HostCPU{
		BusyTicks:  user + nice + system + irq + softirq + steal,
		IdleTicks:  idle + iowait,
		StealTicks: steal,
	}, nil
}
