package load

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// target is where the load goes: the parsed URL and the socket address.
type target struct {
	url      *url.URL
	hostPort string // the Host header
	addr     netip.AddrPort
}

// resolveTarget parses rawURL and resolves its host, refusing a host that
// is not a loopback address unless allowRemote.
func resolveTarget(ctx context.Context, rawURL string, allowRemote bool) (target, error) {
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return target{}, configErrorf("url", "%q is not a URL like http://127.0.0.1:8080/path", rawURL)
	}
	switch u.Scheme {
	case "http", "https":
	default:
		return target{}, configErrorf("url", "%q: the scheme must be http or https", rawURL)
	}
	if u.User != nil || u.Fragment != "" {
		return target{}, configErrorf("url", "%q: user info and fragments are not sent; remove them", rawURL)
	}
	host, port := u.Hostname(), u.Port()
	if port == "" && u.Scheme == "https" {
		port = "443"
	} else if port == "" {
		port = "80"
	}
	portNum, err := strconv.ParseUint(port, 10, 16)
	if err != nil || portNum == 0 {
		return target{}, configErrorf("url", "%q: port %q is not a TCP port", rawURL, port)
	}
	ip, err := lookupHost(ctx, host)
	if err != nil {
		return target{}, err
	}
	if !ip.IsLoopback() && !allowRemote {
		return target{}, configErrorf("url", "%q resolves to %s, which is not a loopback address; "+
			"stackbench loads only this machine unless you allow a remote target on purpose (--allow-remote)", host, ip)
	}
	return target{url: u, hostPort: u.Host, addr: netip.AddrPortFrom(ip, uint16(portNum))}, nil
}

// lookupHost returns the host's first address, IPv4 first.
func lookupHost(ctx context.Context, host string) (netip.Addr, error) {
	if ip, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		return ip.Unmap(), nil
	}
	addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil || len(addrs) == 0 {
		return netip.Addr{}, configErrorf("url", "cannot resolve host %q: %v", host, err)
	}
	for _, a := range addrs {
		if a.Unmap().Is4() {
			return a.Unmap(), nil
		}
	}
	return addrs[0], nil
}

// sockaddr converts the target address for unix.Connect.
func (t target) sockaddr() (family int, sa unix.Sockaddr) {
	if t.addr.Addr().Is4() {
		return unix.AF_INET, &unix.SockaddrInet4{Port: int(t.addr.Port()), Addr: t.addr.Addr().As4()}
	}
	return unix.AF_INET6, &unix.SockaddrInet6{Port: int(t.addr.Port()), Addr: t.addr.Addr().As16()}
}

func (t target) String() string { return fmt.Sprintf("%s (%s)", t.url.Redacted(), t.addr) }

// poolPath is the path a pool's request is sent to: the target URL's path
// (a stack's base path, "/api"; nothing for "/" or none) before the
// request's own.
func (t target) poolPath(path string) string {
	return strings.TrimSuffix(t.url.EscapedPath(), "/") + path
}
