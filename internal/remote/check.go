package remote

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/stackbench/stackbench/internal/agent"
)

// ClockExchanges is how many clock exchanges estimate a host's offset.
const ClockExchanges = 8

// MaxGeneratorClockError bounds a generator host's clock error after
// correction (half the round trip of the best exchange): windows start at
// the same instant on every generator only to within it.
const MaxGeneratorClockError = 5 * time.Millisecond

// Need says what a host's roles require of it.
type Need struct {
	// Postgres: the database runs there, so it needs initdb, pg_ctl and
	// postgres.
	Postgres bool
	// Clock: a generator runs there, so its clock offset must be known
	// within MaxGeneratorClockError.
	Clock bool
}

// Check is what checking one host found. Err is the first problem; the
// fields before it are filled.
type Check struct {
	Host     Host
	Platform Platform
	Hello    agent.Hello
	// Copied: the binary was copied (false: the host's cache had it).
	Copied bool
	Offset agent.ClockOffset
	// FreePort is a port the agent could listen on.
	FreePort int
	// Postgres is where the PostgreSQL binaries are, when Need.Postgres.
	Postgres string
	Took     time.Duration
	Err      error
	// Skipped: the host was reached and its key known, but it was not
	// checked further because another host could not be reached.
	Skipped bool
}

// CheckHosts checks every host at once: reachable, host key known, its
// platform, the agent started and greeted, a free port, the clock offset,
// and PostgreSQL where needs say so. It connects to all of them first and
// stops there when any cannot be reached or refuses us, so that a dead host
// fails the check in seconds rather than after the slower checks of the
// others (those are then Skipped). The results are in the order of hosts.
func CheckHosts(ctx context.Context, hosts []Host, needs map[string]Need, o Options) []Check {
	out := make([]Check, len(hosts))
	conns := make([]*Conn, len(hosts))
	began := time.Now()
	var wg sync.WaitGroup
	for i, h := range hosts {
		out[i].Host = h
		wg.Go(func() {
			conns[i], out[i].Err = Dial(ctx, h, o)
			out[i].Took = time.Since(began)
		})
	}
	wg.Wait()
	failed := false
	for _, c := range out {
		failed = failed || c.Err != nil
	}
	if failed {
		for i, c := range conns {
			if c != nil {
				c.Close()
				out[i].Skipped = true
			}
		}
		return out
	}
	for i, h := range hosts {
		wg.Go(func() {
			out[i] = checkConn(ctx, conns[i], needs[h.Name], o)
			out[i].Took = time.Since(began)
		})
	}
	wg.Wait()
	return out
}

// CheckHost checks one host (see CheckHosts).
func CheckHost(ctx context.Context, h Host, need Need, o Options) Check {
	return CheckHosts(ctx, []Host{h}, map[string]Need{h.Name: need}, o)[0]
}

// checkConn starts the agent on conn and checks the host through it; the
// connection is closed when it returns.
func checkConn(ctx context.Context, conn *Conn, need Need, o Options) Check {
	c := Check{Host: conn.Host}
	s, err := start(ctx, conn, o)
	if err != nil {
		conn.Close()
		c.Err = err
		return c
	}
	defer s.Close()
	c.Platform, c.Hello, c.Copied = s.Platform, s.Hello, s.Copied
	c.Err = check(ctx, s, need, &c)
	return c
}

func check(ctx context.Context, s *Session, need Need, c *Check) error {
	var err error
	if c.Offset, err = s.Agent.Clock(ctx, ClockExchanges); err != nil {
		return err
	}
	if need.Clock {
		if err := clockRefusal(c.Host.Name, c.Offset); err != nil {
			return err
		}
	}
	if c.FreePort, err = s.Agent.FreePort(ctx); err != nil {
		return err
	}
	if need.Postgres {
		if c.Postgres, err = s.Agent.Postgres(ctx); err != nil {
			return fmt.Errorf("the database is placed on host %s, but: %w", c.Host.Name, err)
		}
	}
	return nil
}

// clockRefusal refuses a generator host whose clock offset is known less
// precisely than MaxGeneratorClockError, with the figures.
func clockRefusal(host string, o agent.ClockOffset) error {
	if o.Bound <= MaxGeneratorClockError {
		return nil
	}
	return fmt.Errorf("host %s generates load, but its clock offset is known only to within %s (the best of %d exchanges took %s there and back), more than the %s a window's common start allows; use a host closer to this one",
		host, o.Bound.Round(time.Microsecond), o.Exchanges, (2 * o.Bound).Round(time.Microsecond), MaxGeneratorClockError)
}
