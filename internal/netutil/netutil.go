// Package netutil holds the loopback helpers several packages need alike: a
// free port to start a server on, whether a port is free, and the redirect
// policies of the harness's HTTP clients (redirect.go). It imports nothing
// of ours, so every package may use it, the ones that otherwise import
// nothing of ours (pgfix) included.
package netutil

import (
	"fmt"
	"net"
	"strconv"
)

// FreePort asks the kernel for a free TCP port on 127.0.0.1. The port is
// released before returning, so another process could take it before the
// caller does: whoever binds it checks again.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port on 127.0.0.1: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// PortFree reports whether TCP port can be bound on 127.0.0.1 now.
func PortFree(port int) bool {
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return false
	}
	l.Close()
	return true
}
