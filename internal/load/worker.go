package load

import (
	"crypto/tls"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/stackbench/stackbench/internal/hist"
)

const (
	// readBufBytes is each worker's read buffer, shared by its connections.
	readBufBytes = 64 << 10
	// retryBackoff holds a connection that failed to open before it tries
	// again, so a dead server is not hammered by a busy loop.
	retryBackoff = 10 * time.Millisecond
	// maxWaitMillis bounds every wait for events so a cancelled run
	// stops soon.
	maxWaitMillis = 100
)

// tally is what a worker counted in the measured window, besides the
// timeline (which alone counts the successes).
type tally struct {
	errs       [numClasses]int64
	status     [grpcStatusBase + grpcCodes]int64 // unexpected statuses by code, then gRPC codes
	reconnects int64
	lateSends  int64
}

// worker runs a share of the connections in its own event loop: one
// poller (epoll on Linux, kqueue on macOS), level-triggered, one goroutine. Nothing it touches on the hot
// path is shared with other workers except the pool cursor (only with a
// pool of more than one request) and its own timeline counters, which the
// progress ticks read atomically.
type worker struct {
	r     *run
	index int
	poll  *poller
	conns []conn
	free  []int32 // open loop: connections ready for a request
	buf   []byte

	family int
	sa     unix.Sockaddr

	inflight  int
	nextScan  int64
	nextHook  int64 // worker 0 only: next boundary or tick
	hookIndex int
	// nextSlice is worker 0's next end of an adaptive warm-up's slice to
	// decide at (-1: none, or decided); slice is its number, from 1.
	nextSlice int64
	slice     int

	// open loop
	nextK      int64 // schedule index of the next request to send
	timerArmed int64

	warm, drain Phase
	abandoned   int64 // requests in flight when a stop cut the run short
	meas        tally
	hSucc       *hist.Histogram
	hErr        *hist.Histogram
	hUncorr     *hist.Histogram
	timeline    []atomic.Int64 // per second: successes, errors
	// warmSlices counts an adaptive warm-up's completions per slice;
	// worker 0 reads them at each slice's end.
	warmSlices []atomic.Int64
	// halves counts the window's successes in its first and second half.
	halves [2]int64
	// routes are a mix's figures per route, or a flow's per step (nil
	// without either).
	routes []routeTally
	// A flow's figures in the window: flows started and completed, the
	// whole flows' latency, and the failed flows by the step and class
	// that failed them.
	flowsStarted, flowsDone int64
	hFlow                   *hist.Histogram
	flowFails               []tally

	// TLS handshakes (all of them, the predial's included): their time,
	// how many, how many resumed a session, how many completed in the
	// window, how many failed.
	hHandshake                                         *hist.Histogram
	handshakes, resumed, windowHandshakes, tlsFailures int64
	// tlsConfig is the worker's TLS configuration and keys its key log
	// (workerTLSConfig).
	tlsConfig *tls.Config
	keys      keyLog

	// HTTP/2: the sockets (conns are then their lanes), the sockets with
	// frames to write this turn of the loop, and a scratch list.
	socks   []h2sock
	dirty   []int32
	scratch []int32
	h2      h2Counts
}

func newWorker(r *run, index, share int) (*worker, error) {
	poll, err := newPoller(r.open)
	if err != nil {
		return nil, err
	}
	conns := share * r.streams // HTTP/1.1: one lane per connection
	w := &worker{
		r: r, index: index, poll: poll,
		conns:     make([]conn, conns),
		free:      make([]int32, 0, conns),
		buf:       make([]byte, readBufBytes),
		hSucc:     hist.New(r.histMax),
		hErr:      hist.New(r.histMax),
		timeline:  make([]atomic.Int64, 2*r.seconds),
		nextHook:  -1,
		nextSlice: -1,
		routes:    newRouteTallies(r),
	}
	if r.tlsConfig != nil {
		w.hHandshake = hist.New(r.cfg.Timeout)
		w.tlsConfig = workerTLSConfig(r.tlsConfig, r.cfg.TLSResume, &w.keys)
	}
	if r.h2 {
		w.newSocks(share, r.streams)
	}
	if r.adaptive {
		w.warmSlices = make([]atomic.Int64, r.rule.CapSlices())
	}
	w.family, w.sa = r.tgt.sockaddr()
	for i := range w.conns {
		w.conns[i].fd = -1
		w.conns[i].id = int32(i)
	}
	if r.open {
		w.hUncorr = hist.New(r.histMax)
	}
	return w, nil
}

// close releases every descriptor.
func (w *worker) close() {
	for i := range w.socks {
		if w.socks[i].fd >= 0 {
			unix.Close(w.socks[i].fd)
			w.socks[i].fd = -1
		}
	}
	for i := range w.conns {
		if w.conns[i].fd >= 0 {
			unix.Close(w.conns[i].fd)
			w.conns[i].fd = -1
		}
	}
	w.poll.close()
}

// predial opens every connection before the run starts, waiting at most
// until deadline. A connection that fails stays down, uncounted: it will
// fail again, counted, when it is given a request.
func (w *worker) predial(deadline int64) {
	if w.socks != nil {
		w.h2predial(deadline)
		return
	}
	now := nanotime()
	for i := range w.conns {
		w.dial(i, now)
	}
	for !w.r.stop.Load() {
		dialing := 0
		for i := range w.conns {
			if w.conns[i].state == connDialing {
				dialing++
			}
		}
		now = nanotime()
		if dialing == 0 || now >= deadline {
			break
		}
		n, errno := w.poll.wait(10, false)
		if errno != 0 && errno != unix.EINTR {
			break
		}
		for k := range max(n, 0) {
			if id, events, timer := w.poll.event(k); !timer && id >= 0 {
				w.onEvent(int(id), events, nanotime())
			}
		}
	}
	for i := range w.conns {
		c := &w.conns[i]
		if c.state == connDialing {
			w.closeConn(c)
		}
		c.retryAt = 0
	}
}

// loop runs the connections from the start to the end of the drain.
func (w *worker) loop() {
	r := w.r
	now := nanotime()
	if w.index == 0 {
		w.nextHook = r.hookTime(0)
		if r.adaptive {
			w.slice, w.nextSlice = 1, r.sliceEnd(1)
		}
	}
	w.nextScan = now + r.scanEveryNs
	if r.open {
		for i := range w.conns {
			w.markFree(int32(i))
		}
	} else {
		for i := range w.conns {
			w.begin(i, now, now)
		}
	}
	for {
		now = nanotime()
		if w.nextSlice >= 0 && now >= w.nextSlice {
			w.endSlice(now)
		}
		if w.nextHook >= 0 && now >= w.nextHook {
			w.runHooks(now)
		}
		if r.stop.Load() {
			break
		}
		if r.open {
			w.dispatch(now)
		}
		if measEnd := r.measEnd.Load(); now >= measEnd && (w.inflight == 0 || now >= r.drainEnd.Load()) {
			break
		}
		if len(w.dirty) > 0 {
			w.flushDirty(now)
		}
		n, errno := w.poll.wait(w.waitMillis(now), r.rawWait)
		if errno != 0 && errno != unix.EINTR {
			r.fail(errno)
			break
		}
		for k := range max(n, 0) {
			id, events, timer := w.poll.event(k)
			if timer {
				w.timerArmed = 0
				continue
			}
			if id >= 0 {
				w.onEvent(int(id), events, nanotime())
			}
		}
		if now = nanotime(); now >= w.nextScan {
			w.scan(now)
			w.nextScan = now + r.scanEveryNs
		}
	}
	if r.stop.Load() {
		// Stopped (Ctrl-C or an engine error): the stop, not the server,
		// cut these requests short.
		w.abandoned = int64(w.inflight)
		return
	}
	w.countUnfinished(nanotime())
}

// countUnfinished counts the requests still unanswered when the drain
// ended as failures of the window (class unfinished), each with its age
// then as a lower bound of its latency in the error histogram. In open
// loop the corrected histogram gets them too, at that age, and every
// request due before the window's end and never sent (unsent) at the time
// it had waited since its due time (trap T24): a server that stalls at the
// window's end shows the stall in its latency instead of hiding it.
func (w *worker) countUnfinished(now int64) {
	r := w.r
	for i := range w.conns {
		c := &w.conns[i]
		if c.state == connBusy || c.state == connDialing && c.pending {
			if c.h2.stalled {
				w.h2.flowStalled++
			}
			w.meas.errs[classUnfinished]++
			if c.flow != nil {
				w.flowFails[c.flow.step].errs[classUnfinished]++
			}
			hSucc, hErr := w.hists(c)
			hErr.RecordMicros((now - c.intended) / 1000)
			if r.open {
				hSucc.RecordMicros((now - c.intended) / 1000)
			}
		}
	}
	if !r.open {
		return
	}
	// The same count as the Result's Unsent (result). In a flow run the
	// schedule is of flows: an unsent one is a flow's.
	unsent := w.hSucc
	if w.hFlow != nil {
		unsent = w.hFlow
	}
	due := r.dueBefore(w.index, r.warmEnd.Load()+int64(r.cfg.Duration))
	for k := w.nextK; k < due; k++ {
		unsent.RecordMicros((now - r.intendedAt(w.index, k)) / 1000)
	}
}

// waitMillis is how long the poller may sleep: until the next scan, boundary,
// or end, rounded up to a millisecond.
func (w *worker) waitMillis(now int64) int {
	next := w.nextScan
	if w.nextHook >= 0 && w.nextHook < next {
		next = w.nextHook
	}
	if w.nextSlice >= 0 && w.nextSlice < next {
		next = w.nextSlice
	}
	r := w.r
	if measEnd := r.measEnd.Load(); now < measEnd && measEnd < next {
		next = measEnd
	}
	if drainEnd := r.drainEnd.Load(); drainEnd < next {
		next = drainEnd
	}
	ms := (next - now + 999_999) / 1_000_000
	return int(min(max(ms, 0), maxWaitMillis))
}

// endSlice runs the warm-up's rule at the end of a slice (worker 0 of an
// adaptive warm-up): until it decides, at each slice's end; after, the
// window's start is due, and hooks take over.
func (w *worker) endSlice(now int64) {
	r := w.r
	r.decideWarmup(w.slice, now)
	if r.decided || w.slice+1 >= r.rule.CapSlices() {
		w.nextSlice = -1
		w.nextHook = r.hookTime(w.hookIndex)
		return
	}
	w.slice++
	w.nextSlice = r.sliceEnd(w.slice)
}

// runHooks emits the boundaries and ticks that are due (worker 0 only).
func (w *worker) runHooks(now int64) {
	for w.nextHook >= 0 && now >= w.nextHook {
		w.r.hook(w.hookIndex, now)
		w.hookIndex++
		w.nextHook = w.r.hookTime(w.hookIndex)
	}
}

// begin starts a request on connection i: intended is the latency origin.
func (w *worker) begin(i int, intended, now int64) {
	c := &w.conns[i]
	if c.flow != nil {
		c.req = w.flowRequest(c, intended)
	} else {
		c.req = w.r.nextRequest()
	}
	c.intended, c.started, c.sent = intended, now, now
	w.inflight++
	if c.flow != nil {
		// A flow's step with captures keeps its answer (over HTTP/2 too:
		// the lane's parser holds the decoded head and the body).
		c.parser.reset(c.req.head)
		c.parser.keep = len(w.r.flow.steps[c.flow.step].captures) > 0
	}
	if w.socks != nil {
		w.h2begin(i, now)
		return
	}
	c.written = 0
	if c.flow == nil {
		c.parser.reset(c.req.head)
	}
	if c.fd < 0 {
		c.pending = true
		w.dial(i, now)
		return
	}
	c.state = connBusy
	w.write(i, now)
}

// dial opens connection i without blocking.
func (w *worker) dial(i int, now int64) {
	c := &w.conns[i]
	fd, err := newSocket(w.family)
	if err != nil {
		w.failOpen(i, classify(err), now)
		return
	}
	c.fd = fd
	err = unix.Connect(fd, w.sa)
	if err != nil && err != unix.EINPROGRESS {
		w.closeConn(c)
		w.failOpen(i, classify(err), now)
		return
	}
	c.state = connDialing
	c.wantOut = true
	if err := w.poll.add(fd, int32(i)); err != nil {
		w.closeConn(c)
		w.failOpen(i, classOther, now)
	}
}

// failOpen records a connection that could not be opened and holds it
// back for retryBackoff.
func (w *worker) failOpen(i int, class errorClass, now int64) {
	c := &w.conns[i]
	c.state = connDown
	c.retryAt = now + int64(retryBackoff)
	if c.pending {
		c.pending = false
		w.finish(i, now, false, class, 0)
	}
}

// onEvent handles readiness of connection i.
func (w *worker) onEvent(i int, events uint32, now int64) {
	if w.socks != nil {
		w.onSockEvent(&w.socks[i], events, now)
		return
	}
	c := &w.conns[i]
	switch c.state {
	case connDialing:
		w.onDialed(i, now)
	case connBusy:
		if events&evOut != 0 && w.writePending(c) {
			w.write(i, now)
			return
		}
		if events&(evIn|evErr) != 0 {
			w.read(i, now)
		}
	case connIdle:
		// The server closed an idle connection (or sent what nobody asked
		// for): drop it quietly; it reopens when it gets a request. (A TLS
		// 1.3 server's session tickets arrive here too: crypto/tls takes
		// them, and no application byte comes out.)
		if n, errno := w.recv(c); errno == unix.EAGAIN && n <= 0 {
			return
		}
		w.closeConn(c)
	}
}

// dialed reads the result of a non-blocking connect on fd (SO_ERROR) and,
// when it succeeded, counts a reconnect if the connection had been open
// before and now is inside the measured window; HTTP/1.1 connections and
// HTTP/2 sockets alike.
func (w *worker) dialed(fd int, openedOnce *bool, now int64) error {
	soErr, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_ERROR)
	if err == nil && soErr != 0 {
		err = unix.Errno(soErr)
	}
	if err != nil {
		return err
	}
	if *openedOnce && now >= w.r.warmEnd.Load() && now < w.r.measEnd.Load() {
		w.meas.reconnects++
	}
	*openedOnce = true
	return nil
}

// onDialed completes a non-blocking connect.
func (w *worker) onDialed(i int, now int64) {
	c := &w.conns[i]
	if err := w.dialed(c.fd, &c.openedOnce, now); err != nil {
		w.closeConn(c)
		w.failOpen(i, classify(err), now)
		return
	}
	w.setOut(c, false)
	if w.r.tlsConfig != nil {
		if ok, class := w.handshake(c.fd, &c.tls, now); !ok {
			w.closeConn(c)
			w.failOpen(i, class, nanotime())
			return
		}
		now = nanotime()
	}
	if !c.pending {
		c.state = connIdle
		return
	}
	c.pending = false
	c.state = connBusy
	w.write(i, now)
}

// setOut registers or drops interest in writability.
func (w *worker) setOut(c *conn, want bool) {
	if c.wantOut == want {
		return
	}
	w.poll.setOut(c.fd, c.id, want)
	c.wantOut = want
}

// writePending reports whether connection c has request bytes the socket
// has not taken yet.
func (w *worker) writePending(c *conn) bool {
	return c.written < len(c.req.bytes) || c.tls != nil && c.tls.fd.pending()
}

// write sends (the rest of) connection i's request.
func (w *worker) write(i int, now int64) {
	c := &w.conns[i]
	if c.written == 0 {
		c.sent = now
	}
	var n int
	var errno unix.Errno
	if c.tls != nil {
		n, errno = c.tls.write(c.req.bytes[c.written:])
	} else {
		n, errno = rawWrite(c.fd, c.req.bytes[c.written:])
	}
	if n > 0 {
		c.written += n
	}
	switch {
	case c.written == len(c.req.bytes) && !w.writePending(c):
		w.setOut(c, false)
	case errno == 0 || errno == unix.EAGAIN:
		w.setOut(c, true) // finish when the socket drains
	default:
		w.fail(i, classify(errno), now)
	}
}

// read consumes the response on connection i.
func (w *worker) read(i int, now int64) {
	c := &w.conns[i]
	for {
		n, errno := w.recv(c)
		switch {
		case errno == unix.EAGAIN:
			return
		case errno != 0:
			w.fail(i, classify(errno), now)
			return
		case n == 0:
			if c.parser.feedEOF() {
				w.complete(i, now, true)
			} else {
				w.fail(i, classClosed, now)
			}
			return
		}
		used, done, perr := c.parser.feed(w.buf[:n])
		switch {
		case perr != nil:
			w.fail(i, classOther, now)
			return
		case done:
			// Bytes after the response were never asked for: the connection
			// cannot be trusted for the next one.
			w.complete(i, now, c.parser.close || used < n)
			return
		case n < len(w.buf) && (c.tls == nil || c.tls.drained()):
			// The socket is drained. (crypto/tls may hold a whole record
			// more: on its record layer TLS reads on until it says it
			// would block.)
			return
		}
	}
}

// recv reads the next bytes of connection c's answer into the worker's
// buffer: EAGAIN when there are none yet, (0, 0) at the server's close.
func (w *worker) recv(c *conn) (int, unix.Errno) {
	if c.tls != nil {
		return c.tls.read(w.buf)
	}
	return rawRead(c.fd, w.buf)
}

// complete records a whole response and moves the connection on.
func (w *worker) complete(i int, now int64, mustClose bool) {
	c := &w.conns[i]
	status := c.parser.status
	if mustClose {
		w.closeConn(c)
	} else {
		c.state = connIdle
	}
	ok, class := c.req.success[status], classOther
	if ok && c.parser.keep && !c.flow.capture(&w.r.flow.steps[c.flow.step], &c.parser) {
		ok, class, status = false, classCapture, 0
	}
	w.finish(i, now, ok, class, status)
	w.next(i, now)
}

// fail records a failed request, closes the connection and moves it on.
func (w *worker) fail(i int, class errorClass, now int64) {
	w.closeConn(&w.conns[i])
	w.finish(i, now, false, class, 0)
	w.next(i, now)
}

// closeConn closes the socket; the connection is down.
func (w *worker) closeConn(c *conn) {
	if c.fd >= 0 {
		unix.Close(c.fd) // also removes it from the poller
		c.fd = -1
	}
	c.tls = nil
	c.state = connDown
	c.wantOut = false
}

// finish counts one outcome in the phase its completion time falls in:
// a success, an unexpected status (status > 0), or a transport error.
func (w *worker) finish(i int, now int64, ok bool, class errorClass, status int) {
	w.inflight--
	r := w.r
	c := &w.conns[i]
	if c.flow != nil {
		w.flowAdvance(c, now, ok, class, status)
	}
	warmEnd := r.warmEnd.Load()
	switch {
	case now < warmEnd:
		w.warm.count(ok)
		if w.warmSlices != nil {
			if k := int((now - r.t0) / int64(r.rule.Slice)); k < len(w.warmSlices) {
				w.warmSlices[k].Add(1)
			}
		}
		return
	case now >= r.measEnd.Load():
		w.drain.count(ok)
		if ok && r.open && c.intended >= warmEnd && c.intended < r.measEnd.Load() {
			// Due in the window and answered only in the drain: not in
			// the window's counts, but its latency is the window's tail
			// (a stall at the end); the corrected histogram holds it.
			hSucc, _ := w.hists(c)
			hSucc.RecordMicros((now - c.intended) / 1000)
		}
		return
	}
	hSucc, hErr := w.hSucc, w.hErr
	if w.routes != nil {
		rt := &w.routes[c.req.route]
		rt.count(ok, class, status)
		hSucc, hErr = rt.hSucc, rt.hErr
	}
	slot := 2 * int((now-warmEnd)/int64(time.Second))
	if ok {
		w.halves[min((now-warmEnd)*2/int64(r.cfg.Duration), 1)]++
		hSucc.RecordMicros((now - c.intended) / 1000)
		if w.hUncorr != nil {
			w.hUncorr.RecordMicros((now - c.sent) / 1000)
		}
	} else {
		slot++
		if status > 0 {
			w.meas.status[status]++
		} else {
			w.meas.errs[class]++
		}
		hErr.RecordMicros((now - c.intended) / 1000)
	}
	w.timeline[slot].Add(1)
}

// hists are the histograms connection c's request is recorded in: its
// route's in a mix (the whole's are their merge, with the requests that
// had no route: never sent), the worker's otherwise.
func (w *worker) hists(c *conn) (hSucc, hErr *hist.Histogram) {
	if w.routes != nil {
		rt := &w.routes[c.req.route]
		return rt.hSucc, rt.hErr
	}
	return w.hSucc, w.hErr
}

func (p *Phase) count(ok bool) {
	p.Attempts++
	if ok {
		p.Successes++
	} else {
		p.Errors++
	}
}

// next gives connection i its next request, or parks it.
func (w *worker) next(i int, now int64) {
	r := w.r
	c := &w.conns[i]
	if now >= r.measEnd.Load() || r.stop.Load() || now < c.retryAt || c.flow != nil && now < c.flow.thinkUntil {
		return // scan restarts a held-back (or thinking) connection when its time comes
	}
	if !r.open || c.flow != nil && c.flow.step > 0 {
		// Closed loop, or a user in the middle of its flow: the next
		// request goes now (an open loop schedules flows, not steps).
		w.begin(i, now, now)
		return
	}
	if t := r.intendedAt(w.index, w.nextK); t <= now {
		// A send is due: it goes out on this connection. It is late only
		// when no other connection was free for it; otherwise it merely
		// fell due while this batch of events was being handled.
		w.nextK++
		if now >= r.warmEnd.Load() && len(w.free) == 0 {
			w.meas.lateSends++
		}
		w.begin(i, t, now)
		return
	}
	w.markFree(int32(i))
}

func (w *worker) markFree(i int32) {
	c := &w.conns[i]
	if !c.free {
		c.free = true
		w.free = append(w.free, i)
	}
}

// dispatch sends the open loop's due requests on free connections and
// arms the timer for the next one. A request due before the window's end
// still goes out when the worker notices it a moment after the end (a late
// wake-up, not the server, kept it): once, on the connections free then,
// since next parks no connection after the end. Its answer falls in the
// drain; a request that finds no free connection is unsent.
func (w *worker) dispatch(now int64) {
	r := w.r
	measEnd := r.measEnd.Load()
	for len(w.free) > 0 {
		t := r.intendedAt(w.index, w.nextK)
		if t > now || t >= measEnd {
			break
		}
		i := w.free[len(w.free)-1]
		w.free = w.free[:len(w.free)-1]
		w.conns[i].free = false
		w.nextK++
		w.begin(int(i), t, now)
	}
	t := r.intendedAt(w.index, w.nextK)
	if len(w.free) > 0 && t > now && t < measEnd && t != w.timerArmed {
		w.poll.armTimer(t)
		w.timerArmed = t
	}
}

// scan fails requests past the timeout and restarts held-back connections.
func (w *worker) scan(now int64) {
	if w.socks != nil {
		w.scanSocks(now)
	}
	timeout := int64(w.r.cfg.Timeout)
	for i := range w.conns {
		c := &w.conns[i]
		if c.flow != nil && c.flow.thinkUntil != 0 && now >= c.flow.thinkUntil && c.state != connBusy && c.state != connDialing && !c.pending {
			c.flow.thinkUntil = 0
			if c.retryAt == 0 || now >= c.retryAt {
				c.retryAt = 0
				w.next(i, now)
				continue
			}
		}
		switch c.state {
		case connBusy:
			if now-c.started >= timeout && w.socks != nil {
				w.h2timeout(i, now)
			} else if now-c.started >= timeout {
				w.fail(i, classTimeout, now)
			}
		case connDialing:
			if now-c.started >= timeout && c.pending {
				w.closeConn(c)
				c.pending = false
				w.finish(i, now, false, classTimeout, 0)
				w.next(i, now)
			}
		case connDown:
			if !c.free && c.retryAt != 0 && now >= c.retryAt {
				c.retryAt = 0
				w.next(i, now)
			}
		}
	}
}
