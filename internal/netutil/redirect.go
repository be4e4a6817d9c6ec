package netutil

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"time"
)

// maxRedirects is how many redirects LoopbackRedirects follows, as Go's
// default policy does.
const maxRedirects = 10

// ErrRedirectRefused is wrapped by the error of a request whose redirect
// led away from this machine.
var ErrRedirectRefused = errors.New("redirect refused")

// LoopbackRedirects is an http.Client CheckRedirect that follows a
// redirect only to a loopback address: the host the load generator would
// load without --allow-remote. A redirect elsewhere fails the request,
// before anything is sent there (on 307 and 308 Go would re-send the
// method, the body and the headers).
func LoopbackRedirects(req *http.Request, via []*http.Request) error {
	if len(via) >= maxRedirects {
		return fmt.Errorf("stopped after %d redirects", maxRedirects)
	}
	if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
		return fmt.Errorf("%w: %s is not an http URL", ErrRedirectRefused, req.URL.Redacted())
	}
	host := req.URL.Hostname()
	if !IsLoopbackHost(req.Context(), host) {
		return fmt.Errorf("%w: %s leads to %s, which is not this machine; stackbench follows redirects to loopback addresses only",
			ErrRedirectRefused, via[len(via)-1].URL.Path, req.URL.Redacted())
	}
	return nil
}

// NoRedirects is an http.Client CheckRedirect that follows no redirect:
// the client returns the 3xx answer itself, to be reported.
func NoRedirects(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// IsLoopbackHost reports whether host (a name or an address) is this
// machine: an address, or every address a name resolves to, loopback.
func IsLoopbackHost(ctx context.Context, host string) bool {
	if ip, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		return ip.Unmap().IsLoopback()
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil || len(addrs) == 0 {
		return false
	}
	for _, a := range addrs {
		if !a.Unmap().IsLoopback() {
			return false
		}
	}
	return true
}
