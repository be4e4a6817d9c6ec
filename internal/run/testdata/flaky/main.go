// Command flaky is a test server for the run protocol: /ok answers 200,
// /fail answers 503, /crash kills the process, /slow answers after 300 ms,
// /ramp answers after a pause that shrinks from 40 ms to 4 ms over the
// 2.5 s after its first request (a runtime still compiling), and /health
// is always 200. With OK_DELAY set (a duration, "2ms"), /ok sleeps that
// long before it answers: a stack with a known latency. It serves a
// custom workload, so it needs no database.
package main

import (
	"net/http"
	"os"
	"sync"
	"time"
)

func main() {
	okDelay, _ := time.ParseDuration(os.Getenv("OK_DELAY"))
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"status":"ok"}`))
	})
	mux.HandleFunc("GET /ok", func(w http.ResponseWriter, r *http.Request) {
		if okDelay > 0 {
			time.Sleep(okDelay)
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"ok":true}`))
	})
	mux.HandleFunc("GET /fail", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
	})
	mux.HandleFunc("GET /crash", func(w http.ResponseWriter, r *http.Request) {
		os.Exit(3)
	})
	mux.HandleFunc("GET /slow", func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(300 * time.Millisecond)
		w.Write([]byte(`{"ok":true}`))
	})
	var once sync.Once
	var t0 time.Time
	const ramp, from, to = 2500 * time.Millisecond, 40 * time.Millisecond, 4 * time.Millisecond
	mux.HandleFunc("GET /ramp", func(w http.ResponseWriter, r *http.Request) {
		once.Do(func() { t0 = time.Now() })
		left := max(0, 1-float64(time.Since(t0))/float64(ramp))
		time.Sleep(to + time.Duration(left*float64(from-to)))
		w.Write([]byte(`{"ok":true}`))
	})
	http.ListenAndServe("127.0.0.1:"+os.Getenv("PORT"), mux)
}
