// Command server is the load benchmark's target: a net/http server that
// answers every request with a small JSON object, like the JSON case of
// the usual framework benchmarks. It listens on 127.0.0.1 only.
//
//	go run ./bench/load/server -addr 127.0.0.1:8089
package main

import (
	"encoding/json"
	"flag"
	"log"
	"net/http"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8089", "listen address (loopback)")
	flag.Parse()
	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]string{"message": "Hello, World!"})
	})
	log.Fatal(http.ListenAndServe(*addr, nil))
}
