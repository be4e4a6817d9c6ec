package live

import (
	"fmt"
	"net"
	"strings"
)

// listenAddr checks where the page is to be served: "" is 127.0.0.1 on
// a free port; a host with no port gets a free one. Anything but a
// loopback address is refused unless allowRemote: the page shows what
// the report shows, and the token is all that guards it.
func listenAddr(addr string, allowRemote bool) (string, error) {
	if addr == "" {
		return "127.0.0.1:0", nil
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		if !strings.Contains(addr, ":") || strings.Count(addr, ":") > 1 && !strings.HasPrefix(addr, "[") {
			host, port = addr, "0"
		} else {
			return "", fmt.Errorf("--live %s: write an address as HOST:PORT, e.g. 127.0.0.1:8090 (or leave it out for a free port on 127.0.0.1)", addr)
		}
	}
	if host == "" {
		if !allowRemote {
			return "", fmt.Errorf("--live %s listens on every interface; name 127.0.0.1:%s, or pass --allow-remote to serve the page to other machines (they still need the token)", addr, port)
		}
		return net.JoinHostPort(host, port), nil
	}
	if host == "localhost" {
		host = "127.0.0.1"
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	if ip == nil || !ip.IsLoopback() {
		if !allowRemote {
			return "", fmt.Errorf("--live %s is not a loopback address; the page is served on 127.0.0.1 (or ::1) unless you pass --allow-remote (then anyone who reaches it with the token sees the run)", addr)
		}
	}
	return net.JoinHostPort(host, port), nil
}
