// Command app is the throwaway repository's server in the CI example's
// test: /hello answers after burning burnPerRequest of CPU and waiting
// waitPerRequest, which the test's revisions set.
package main

import (
	"net/http"
	"os"
	"time"
)

const burnPerRequest = 0 * time.Microsecond

const waitPerRequest = 0 * time.Millisecond

// burn keeps the CPU busy for d of wall time.
func burn(d time.Duration) {
	for start := time.Now(); time.Since(start) < d; {
	}
}

func main() {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"status":"ok"}`))
	})
	mux.HandleFunc("GET /hello", func(w http.ResponseWriter, r *http.Request) {
		burn(burnPerRequest)
		time.Sleep(waitPerRequest)
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"hello":"world"}`))
	})
	mux.HandleFunc("GET /slow", func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(5 * time.Millisecond)
		w.Write([]byte(`{"slow":true}`))
	})
	http.ListenAndServe("127.0.0.1:"+os.Getenv("PORT"), mux)
}
