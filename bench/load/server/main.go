// Command server is the load benchmark's target: a net/http server that
// answers every request with a small JSON object, like the JSON case of
// the usual framework benchmarks. It listens on 127.0.0.1 only. With -work
// N it first hashes N times per request, so that the server, not the
// generator's turnaround, limits throughput: the setting in which two
// generators must measure the same throughput.
//
//	go run ./bench/load/server -addr 127.0.0.1:8089 [-work 200]
//
// With TLS_CERT_FILE and TLS_KEY_FILE set (a stack with tls: on gets the
// run's certificate so) it serves TLS instead.
package main

import (
	"crypto/sha256"
	"encoding/json"
	"flag"
	"log"
	"net/http"
	"os"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8089", "listen address (loopback)")
	work := flag.Int("work", 0, "SHA-256 rounds per request (0: none)")
	flag.Parse()
	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		sum := sha256.Sum256([]byte(r.URL.Path))
		for range *work {
			sum = sha256.Sum256(sum[:])
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]string{"message": "Hello, World!", "work": string(rune('a' + sum[0]%26))})
	})
	if cert := os.Getenv("TLS_CERT_FILE"); cert != "" {
		log.Fatal(http.ListenAndServeTLS(*addr, cert, os.Getenv("TLS_KEY_FILE"), nil))
	}
	log.Fatal(http.ListenAndServe(*addr, nil))
}
