// Command server is the flow benchmark's target: a log-in, a list, a read
// and a write, each checking the token the log-in handed out, answering
// small JSON. It is the same for every generator bench/flow/compare.sh
// drives.
package main

import (
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:18093", "listen address")
	h2c := flag.Bool("h2c", false, "serve HTTP/2 in cleartext (prior knowledge) beside HTTP/1.1, on the same port")
	flag.Parse()
	var tokens atomic.Int64
	authorized := func(r *http.Request) bool {
		return strings.HasPrefix(r.Header.Get("Authorization"), "Bearer t-")
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /login", func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"token":"t-%d"}`, tokens.Add(1))
	})
	mux.HandleFunc("GET /items", func(w http.ResponseWriter, r *http.Request) {
		if !authorized(r) {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"items":[{"id":1},{"id":2},{"id":3},{"id":4},{"id":5},{"id":6},{"id":7},{"id":8}]}`)
	})
	mux.HandleFunc("GET /items/{id}", func(w http.ResponseWriter, r *http.Request) {
		id, err := strconv.Atoi(r.PathValue("id"))
		if !authorized(r) || err != nil || id < 1 || id > 8 {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":%d,"title":"item %d"}`, id, id)
	})
	mux.HandleFunc("POST /items/{id}/likes", func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if !authorized(r) {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, `{"ok":true}`)
	})
	mux.HandleFunc("GET /", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
	srv := &http.Server{Addr: *addr, Handler: mux}
	if *h2c {
		srv.Protocols = new(http.Protocols)
		srv.Protocols.SetHTTP1(true)
		srv.Protocols.SetUnencryptedHTTP2(true)
	}
	log.Fatal(srv.ListenAndServe())
}
