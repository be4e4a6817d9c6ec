package agent

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"
)

// Client is the coordinator's side of one agent session. Its methods are
// safe for concurrent use.
type Client struct {
	// Host names the agent's host in errors.
	host string
	w    io.WriteCloser

	mu      sync.Mutex // guards enc, nextID, pending and err
	enc     *json.Encoder
	nextID  int64
	pending map[int64]chan Response
	err     error         // why the session ended, once it has
	done    chan struct{} // closed when the session has ended
}

// ErrSessionLost wraps the error of every call made on, or waiting on, a
// session that ended: the SSH session dropped or the agent exited.
var ErrSessionLost = errors.New("agent session lost")

// NewClient starts reading responses from r and writes requests to w.
// host names the agent in messages. Call Hello before anything else.
func NewClient(host string, r io.Reader, w io.WriteCloser) *Client {
	c := &Client{host: host, w: w, enc: json.NewEncoder(w), pending: map[int64]chan Response{}, done: make(chan struct{})}
	go c.read(r)
	return c
}

// read delivers each response to its caller until r ends; then every
// waiting call fails with ErrSessionLost.
func (c *Client) read(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	var err error
	for sc.Scan() {
		var resp Response
		if err = json.Unmarshal(sc.Bytes(), &resp); err != nil {
			err = fmt.Errorf("agent on %s sent a line that is not a response (%q): %w", c.host, truncate(sc.Text(), 120), err)
			break
		}
		c.mu.Lock()
		ch := c.pending[resp.ID]
		delete(c.pending, resp.ID)
		c.mu.Unlock()
		if ch != nil {
			ch <- resp
		}
	}
	if err == nil {
		err = sc.Err()
	}
	if err == nil {
		err = io.EOF
	}
	c.mu.Lock()
	c.err = fmt.Errorf("%w: %s: %v", ErrSessionLost, c.host, err)
	for id, ch := range c.pending {
		delete(c.pending, id)
		close(ch)
	}
	c.mu.Unlock()
	close(c.done)
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// Done is closed when the session has ended.
func (c *Client) Done() <-chan struct{} { return c.done }

// Err is why the session ended; nil while it lasts.
func (c *Client) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Close closes the agent's stdin: the agent stops what it started and
// exits.
func (c *Client) Close() error { return c.w.Close() }

// call sends req and waits for its response; a response with Error set is
// returned as an error naming the host.
func (c *Client) call(ctx context.Context, req Request) (Response, error) {
	ch := make(chan Response, 1)
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		return Response{}, err
	}
	c.nextID++
	req.ID = c.nextID
	c.pending[req.ID] = ch
	err := c.enc.Encode(req)
	if err != nil {
		delete(c.pending, req.ID)
	}
	c.mu.Unlock()
	if err != nil {
		return Response{}, fmt.Errorf("%w: %s: send %s: %v", ErrSessionLost, c.host, req.Op, err)
	}
	select {
	case resp, ok := <-ch:
		if !ok {
			return Response{}, c.Err()
		}
		if resp.Error != "" {
			return resp, fmt.Errorf("%s: %s", c.host, resp.Error)
		}
		return resp, nil
	case <-ctx.Done():
		c.mu.Lock()
		delete(c.pending, req.ID)
		c.mu.Unlock()
		return Response{}, ctx.Err()
	}
}

// Hello opens the session: it sends the coordinator's protocol version
// and returns the agent's Hello. Either side refuses a version other than
// its own, naming both.
func (c *Client) Hello(ctx context.Context) (Hello, error) {
	resp, err := c.call(ctx, Request{Op: OpHello, Version: Version})
	if err != nil {
		return Hello{}, err
	}
	if resp.Hello == nil {
		return Hello{}, fmt.Errorf("%s: the agent answered hello without saying who it is", c.host)
	}
	if resp.Hello.Version != Version {
		return *resp.Hello, fmt.Errorf("%s: %w", c.host, versionError(Version, resp.Hello.Version))
	}
	return *resp.Hello, nil
}

// FreePort asks the agent for a TCP port it can listen on.
func (c *Client) FreePort(ctx context.Context) (int, error) {
	resp, err := c.call(ctx, Request{Op: OpFreePort})
	return resp.Port, err
}

// Postgres asks where the PostgreSQL server binaries are on the agent's
// host; the error says they are missing.
func (c *Client) Postgres(ctx context.Context) (string, error) {
	resp, err := c.call(ctx, Request{Op: OpPostgres})
	return resp.Postgres, err
}

// Start starts a process tree on the agent's host and returns its root's
// pid and boot time.
func (c *Client) Start(ctx context.Context, s StartSpec) (pid int, boot time.Duration, err error) {
	pid, boot, _, err = c.StartContainer(ctx, s)
	return pid, boot, err
}

// StartContainer is Start that also returns the name of the container
// the server runs in ("" without s.Container).
func (c *Client) StartContainer(ctx context.Context, s StartSpec) (pid int, boot time.Duration, container string, err error) {
	resp, err := c.call(ctx, Request{Op: OpStart, Start: &s})
	return resp.PID, resp.Boot, resp.Container, err
}

// RemoveContainer removes a container an earlier session on the agent's
// host started and left (its agent was killed); removed is false when
// there was none.
func (c *Client) RemoveContainer(ctx context.Context, ref ContainerRef) (removed bool, err error) {
	resp, err := c.call(ctx, Request{Op: OpRemoveContainer, Container: &ref})
	return resp.Removed, err
}

// Stop stops a tree Start started.
func (c *Client) Stop(ctx context.Context, name string) error {
	_, err := c.call(ctx, Request{Op: OpStop, Name: name})
	return err
}

// Sample measures a started tree between two instants of the agent's
// clock; it returns after to.
func (c *Client) Sample(ctx context.Context, name string, from, to time.Time) (Sample, error) {
	return c.SampleWith(ctx, name, nil, from, to)
}

// SampleWith is Sample with the trees listening on ports (a stack's
// services:) sampled apart, in the Sample's Services.
func (c *Client) SampleWith(ctx context.Context, name string, ports []int, from, to time.Time) (Sample, error) {
	resp, err := c.call(ctx, Request{Op: OpSample, Name: name, From: from, To: to, Ports: ports})
	if err != nil {
		return Sample{}, err
	}
	if resp.Sample == nil {
		return Sample{}, fmt.Errorf("%s: the agent answered sample without one", c.host)
	}
	return *resp.Sample, nil
}

// Load runs one load window on the agent's host (see LoadSpec) and returns
// the generator's JSON result; it returns once the generator has exited.
func (c *Client) Load(ctx context.Context, spec LoadSpec) (json.RawMessage, error) {
	resp, err := c.call(ctx, Request{Op: OpLoad, Load: &spec})
	if err != nil {
		return nil, err
	}
	return resp.Result, nil
}

// Image builds a container stack's image on the agent's host, or checks
// that it is there (see ImageSpec), and returns the runtime the agent
// found.
func (c *Client) Image(ctx context.Context, spec ImageSpec) (runtime string, err error) {
	resp, err := c.call(ctx, Request{Op: OpImage, Image: &spec})
	return resp.Runtime, err
}
