package live

import "sync"

// maxRows is how many window rows the hub keeps for pages that connect
// later; a page keeps as many.
const maxRows = 300

// hub holds what the pages show — the status fragment, the latest window
// rows, the report of the latest look, whether the run ended — and wakes
// every event stream when any of it changes. Each stream remembers what
// it has sent and sends only what is newer.
type hub struct {
	mu sync.Mutex
	// wake is closed (and replaced) on every change.
	wake    chan struct{}
	status  string
	statusV int
	// rows are the latest window rows, oldest first; rowsTotal counts
	// every row ever added, so rows[i] is row number rowsTotal-len(rows)+i.
	rows      []string
	rowsTotal int
	report    string
	look      int
	done      bool
	closed    bool
}

func newHub() *hub { return &hub{wake: make(chan struct{})} }

// change runs f under the lock and wakes the streams.
func (h *hub) change(f func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	f()
	close(h.wake)
	h.wake = make(chan struct{})
}

func (h *hub) setStatus(s string) {
	h.change(func() {
		if s != h.status {
			h.status, h.statusV = s, h.statusV+1
		}
	})
}

func (h *hub) addRows(rows []string) {
	if len(rows) == 0 {
		return
	}
	h.change(func() {
		h.rows = append(h.rows, rows...)
		h.rowsTotal += len(rows)
		if n := len(h.rows); n > maxRows {
			h.rows = append([]string(nil), h.rows[n-maxRows:]...)
		}
	})
}

func (h *hub) setReport(s string) {
	h.change(func() { h.report, h.look = s, h.look+1 })
}

func (h *hub) setDone(done bool) { h.change(func() { h.done = done }) }

func (h *hub) close() { h.change(func() { h.closed = true }) }

// seen is what one stream has sent.
type seen struct {
	statusV, rows, look int
	done                bool
	started             bool
}

// news is what a stream has not sent yet.
type news struct {
	status    string
	rowsAll   []string // the whole table (a stream's first send, or after it fell behind)
	rowsNew   []string
	report    string
	look      int
	done      bool
	closed    bool
	wake      chan struct{}
	hasStatus bool
}

// since returns what changed after s, and marks it sent.
func (h *hub) since(s *seen) news {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := news{wake: h.wake, closed: h.closed}
	if h.status != "" && (h.statusV != s.statusV || !s.started) {
		n.status, n.hasStatus = h.status, true
		s.statusV = h.statusV
	}
	first := h.rowsTotal - len(h.rows)
	switch {
	case !s.started || s.rows < first:
		n.rowsAll = append([]string(nil), h.rows...)
	case s.rows < h.rowsTotal:
		n.rowsNew = append([]string(nil), h.rows[s.rows-first:]...)
	}
	s.rows = h.rowsTotal
	if h.look != s.look {
		n.report, n.look = h.report, h.look
		s.look = h.look
	}
	if h.done && !s.done {
		n.done, s.done = true, true
	}
	s.started = true
	return n
}

// page is what a page is rendered with when it is first loaded.
func (h *hub) page() (status string, rows []string, report string, look int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.status, append([]string(nil), h.rows...), h.report, h.look
}
