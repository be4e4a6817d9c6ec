// Command flaky is a test server for the run protocol: /ok answers 200,
// /fail answers 503, /crash kills the process, and /health is always 200.
// It serves a custom workload, so it needs no database.
package main

import (
	"net/http"
	"os"
)

func main() {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"status":"ok"}`))
	})
	mux.HandleFunc("GET /ok", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"ok":true}`))
	})
	mux.HandleFunc("GET /fail", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
	})
	mux.HandleFunc("GET /crash", func(w http.ResponseWriter, r *http.Request) {
		os.Exit(3)
	})
	http.ListenAndServe("127.0.0.1:"+os.Getenv("PORT"), mux)
}
