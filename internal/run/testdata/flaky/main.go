// Command flaky is a test server for the run protocol: /ok answers 200,
// /fail answers 503, /crash kills the process, /slow answers after 300 ms,
// /ramp answers after a pause that shrinks from 40 ms to 4 ms over the
// 2.5 s after its first request (a runtime still compiling), and /health
// is always 200. With OK_DELAY set (a duration, "2ms"), /ok sleeps that
// long before it answers: a stack with a known latency. With BURN_US set
// (microseconds), /ok burns that much CPU on the process's first request,
// halving every BURN_HALF requests (default 30): a stand-in for a JIT,
// which compiles what its first calls run. It serves a custom workload,
// so it needs no database.
package main

import (
	"math"
	"net/http"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

func main() {
	okDelay, _ := time.ParseDuration(os.Getenv("OK_DELAY"))
	burnUS, _ := strconv.ParseFloat(os.Getenv("BURN_US"), 64)
	burnHalf, _ := strconv.ParseFloat(os.Getenv("BURN_HALF"), 64)
	if burnHalf <= 0 {
		burnHalf = 30
	}
	var served atomic.Int64
	burn := func() {
		if burnUS <= 0 {
			return
		}
		n := served.Add(1) - 1
		d := time.Duration(burnUS * math.Exp2(-float64(n)/burnHalf) * float64(time.Microsecond))
		for t0 := time.Now(); time.Since(t0) < d; {
		}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"status":"ok"}`))
	})
	mux.HandleFunc("GET /ok", func(w http.ResponseWriter, r *http.Request) {
		burn()
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
