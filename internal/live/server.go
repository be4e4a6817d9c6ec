// Package live serves a page that follows a run as it happens: it tails a
// results directory's journal (internal/journal's tolerant reader; a line
// the run is still writing is simply read at the next poll) and pushes,
// over server-sent events, the phase, the windows done and left with an
// ETA, each window try as it lands, the stacks' CPU and memory over time,
// and at every look the report itself — the model internal/report builds
// from the journal so far, drawn by internal/report's own HTML, so the
// page at the end is the report.
//
// The server listens on loopback unless told otherwise, asks for an
// unguessable token on every request, and never writes to the results
// directory: `stackbench run --live` starts it in the run's process (its
// CPU is the harness's own), `stackbench report --live DIR` in another.
package live

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	_ "embed"
	"encoding/base64"
	"errors"
	"fmt"
	"html/template"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/stackbench/stackbench/internal/report"
)

// Options configure a live page.
type Options struct {
	// Dir is the results directory to follow.
	Dir string
	// Addr is where to listen: "" is 127.0.0.1 on a free port.
	Addr string
	// AllowRemote allows an Addr that is not a loopback address.
	AllowRemote bool
	// Poll is how often the journal is checked for new records (default
	// 500 ms): a stat, and a read of the new bytes when it grew.
	Poll time.Duration
	// LookEvery is the least time between two looks (the analysis and
	// the report of the journal so far) within a round; a round that
	// completes, and the run's end, always get one. Default 10 s.
	LookEvery time.Duration
	// InProcess says the run is this process's: it calls Finish when it
	// ends, and the directory's lock and results.json are not consulted.
	InProcess bool
	// Report are the report's options, as `stackbench report` takes them.
	Report report.BuildOptions
	// Errors receives what goes wrong while following (a journal that
	// cannot be read), once per distinct message; nil discards it.
	Errors io.Writer
}

// Server is a running live page.
type Server struct {
	opt    Options
	token  string
	url    string
	ln     net.Listener
	http   *http.Server
	hub    *hub
	follow *follower
	cancel context.CancelFunc
	finish chan struct{}
	loop   sync.WaitGroup
	once   sync.Once
}

// Start listens and begins following opt.Dir. The page is at URL().
func Start(opt Options) (*Server, error) {
	if opt.Poll <= 0 {
		opt.Poll = 500 * time.Millisecond
	}
	if opt.LookEvery == 0 {
		opt.LookEvery = 10 * time.Second
	}
	addr, err := listenAddr(opt.Addr, opt.AllowRemote)
	if err != nil {
		return nil, err
	}
	token, err := newToken()
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("serve the live page on %s: %w; name another address with --live HOST:PORT", addr, err)
	}
	s := &Server{opt: opt, token: token, ln: ln, hub: newHub(), finish: make(chan struct{})}
	s.follow = newFollower(opt, s.hub)
	s.url = fmt.Sprintf("http://%s/?token=%s", ln.Addr().String(), url.QueryEscape(token))
	mux := http.NewServeMux()
	mux.HandleFunc("/", s.servePage)
	mux.HandleFunc("/events", s.serveEvents)
	s.http = &http.Server{Handler: s.guard(mux), ReadHeaderTimeout: 10 * time.Second}
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	s.loop.Add(2)
	go func() {
		defer s.loop.Done()
		s.follow.run(ctx, opt.Poll, s.finish)
	}()
	go func() {
		defer s.loop.Done()
		if err := s.http.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) && opt.Errors != nil {
			fmt.Fprintf(opt.Errors, "live page: %v\n", err)
		}
	}()
	return s, nil
}

// URL is the page's address with its token.
func (s *Server) URL() string { return s.url }

// Finish tells an in-process server that the run ended: it takes its last
// look (the report as `stackbench report` builds it) and tells the pages.
// It returns once that look is published.
func (s *Server) Finish() {
	s.once.Do(func() { close(s.finish) })
	s.follow.waitFinal()
}

// Close stops following and serving; open pages see the stream end.
func (s *Server) Close() error {
	s.cancel()
	s.hub.close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	err := s.http.Shutdown(ctx)
	if err != nil {
		err = s.http.Close()
	}
	s.loop.Wait()
	return err
}

// newToken is 32 random bytes, URL-safe.
func newToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("make the live page's token: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// guard refuses every request without the token (401) or with another
// one (403), compared in constant time, and sets the headers that keep
// the page to itself: no referrer (the token is in the URL), no caching,
// scripts only with the page's nonce.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Referrer-Policy", "no-referrer")
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("X-Frame-Options", "DENY")
		got := r.URL.Query().Get("token")
		if got == "" {
			if h := r.Header.Get("Authorization"); strings.HasPrefix(h, "Bearer ") {
				got = strings.TrimPrefix(h, "Bearer ")
			}
		}
		if got == "" {
			http.Error(w, "token missing: open the URL stackbench printed (it ends in ?token=…)", http.StatusUnauthorized)
			return
		}
		if subtle.ConstantTimeCompare([]byte(got), []byte(s.token)) != 1 {
			http.Error(w, "wrong token: open the URL stackbench printed for this run", http.StatusForbidden)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			http.Error(w, "only GET", http.StatusMethodNotAllowed)
			return
		}
		next.ServeHTTP(w, r)
	})
}

//go:embed page.html.tmpl
var pageSource string

//go:embed page.js
var pageScript string

var pageTemplate = template.Must(template.New("page").Parse(pageSource))

func (s *Server) servePage(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/" {
		http.NotFound(w, r)
		return
	}
	nonce, err := newToken()
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	status, rows, rep, look := s.hub.page()
	v := struct {
		Dir, Nonce string
		Status     template.HTML
		Rows       []template.HTML
		Report     template.HTML
		Looks      int
		Script     template.JS
	}{Dir: s.opt.Dir, Nonce: nonce, Status: template.HTML(status), Report: template.HTML(rep), Looks: look, Script: template.JS(pageScript)}
	for i := len(rows) - 1; i >= 0; i-- {
		v.Rows = append(v.Rows, template.HTML(rows[i]))
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; script-src 'nonce-"+nonce+"'; style-src 'unsafe-inline'; img-src data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
	if err := pageTemplate.Execute(w, v); err != nil && s.opt.Errors != nil {
		fmt.Fprintf(s.opt.Errors, "live page: %v\n", err)
	}
}

// serveEvents is the event stream: on connect, everything the page shows
// (status, the window rows, the latest report); then what changes, as it
// changes; "done" when the run ended. A comment every 15 s keeps proxies
// from closing a quiet stream.
func (s *Server) serveEvents(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	fl.Flush()
	keep := time.NewTicker(15 * time.Second)
	defer keep.Stop()
	var st seen
	for {
		n := s.hub.since(&st)
		if n.rowsAll != nil {
			var b strings.Builder
			for i := len(n.rowsAll) - 1; i >= 0; i-- {
				b.WriteString(n.rowsAll[i])
			}
			writeEvent(w, "rows", "", b.String())
		}
		for _, row := range n.rowsNew {
			writeEvent(w, "window", "", row)
		}
		if n.look > 0 {
			writeEvent(w, "report", fmt.Sprint(n.look), n.report)
		}
		if n.hasStatus {
			writeEvent(w, "status", "", n.status)
		}
		if n.done {
			writeEvent(w, "done", "", "the run ended")
		}
		fl.Flush()
		if n.closed {
			// Everything published before the close is sent: a run's
			// last look and "done" reach the page before the server stops.
			return
		}
		select {
		case <-r.Context().Done():
			return
		case <-n.wake:
		case <-keep.C:
			io.WriteString(w, ": keep-alive\n\n")
			fl.Flush()
		}
	}
}

// writeEvent writes one server-sent event; every line of data gets its
// own "data:" field.
func writeEvent(w io.Writer, event, id, data string) {
	var b strings.Builder
	b.WriteString("event: " + event + "\n")
	if id != "" {
		b.WriteString("id: " + id + "\n")
	}
	for _, line := range strings.Split(strings.ReplaceAll(data, "\r", ""), "\n") {
		b.WriteString("data: ")
		b.WriteString(line)
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	io.WriteString(w, b.String())
}
