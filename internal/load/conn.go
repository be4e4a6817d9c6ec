package load

// Connection states.
const (
	connDown    uint8 = iota // no socket: waiting to be (re)opened
	connDialing              // connect in progress
	connIdle                 // open, no request (open loop, or before the start)
	connBusy                 // a request is being written or answered
)

// conn is one keep-alive connection, owned by one worker.
type conn struct {
	id    int32 // index in its worker's connections; the epoll event data
	fd    int
	state uint8
	// pending: a request waits for the connection to open.
	pending bool
	// free: the connection is on its worker's free list (open loop).
	free bool
	// openedOnce: a connection was established before, so opening another
	// is a reconnect.
	openedOnce bool
	// wantOut: EPOLLOUT is registered (connect or a partial write).
	wantOut bool

	req     *wireRequest
	written int
	// intended is when the request should have been sent (the latency
	// origin), sent when its first byte went out, started when the attempt
	// began (the timeout origin).
	intended, sent, started int64
	// retryAt holds a connection that failed to open until then.
	retryAt int64
	parser  respParser
	// tls is the connection's TLS state (nil: cleartext, or not open).
	tls *tlsSession
	// h2 is an HTTP/2 lane's request state.
	h2 h2lane
	// flow is the connection's user's place in its flow (nil without
	// Config.Flow).
	flow *flowState
}
