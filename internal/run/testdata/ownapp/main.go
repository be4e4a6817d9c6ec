// Command ownapp is a test server for custom workloads with setup steps: a
// login that returns a token (the same in every process), articles created
// in memory (so each process needs its own), ids and timestamps in bodies.
//
//	POST /login              {"user":{"token":"tok-bench"}}, header Authorization
//	POST /articles           (Authorization: Token tok-bench) creates an article
//	GET  /articles/{slug}    the article, with a createdAt of its creation
//	GET  /articles?offset=N  a page, with the time of the answer
//
// With TABLE set it also serves items from PostgreSQL (db.go).
//
// With ODD set, an article's answer carries the token as well: a
// deviation the parity gate finds.
//
// With BASE set (BASE=/api), it serves every path under that base path
// alone, /health included, and answers 404 elsewhere.
package main

import (
	"encoding/json"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

type article struct {
	ID        int    `json:"id"`
	Slug      string `json:"slug"`
	Title     string `json:"title"`
	CreatedAt string `json:"createdAt"`
}

func main() {
	if len(os.Args) == 2 {
		dbCommand(os.Args[1])
		return
	}
	var mu sync.Mutex
	articles := map[string]article{}
	reply := func(w http.ResponseWriter, status int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(v)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) { reply(w, 200, map[string]string{"status": "ok"}) })
	mux.HandleFunc("POST /login", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Authorization", "Token tok-bench")
		reply(w, 200, map[string]any{"user": map[string]string{"email": "bench@example.com", "token": "tok-bench"}})
	})
	mux.HandleFunc("POST /articles", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Token tok-bench" {
			reply(w, 401, map[string]string{"error": "no token"})
			return
		}
		var in struct{ Article struct{ Title string } }
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Article.Title == "" {
			reply(w, 422, map[string]string{"error": "no title"})
			return
		}
		mu.Lock()
		a := article{ID: len(articles) + 1, Title: in.Article.Title,
			Slug:      strings.ReplaceAll(strings.ToLower(in.Article.Title), " ", "-"),
			CreatedAt: time.Now().UTC().Format(time.RFC3339Nano)}
		articles[a.Slug] = a
		mu.Unlock()
		reply(w, 201, map[string]article{"article": a})
	})
	mux.HandleFunc("GET /articles/{slug}", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		a, ok := articles[r.PathValue("slug")]
		mu.Unlock()
		if !ok {
			reply(w, 404, map[string]string{"error": "no such article"})
			return
		}
		if os.Getenv("ODD") != "" {
			// A deviation for the parity gate to find, quoting the
			// login's token in the body it shows.
			reply(w, 200, map[string]any{"article": a, "viewer": map[string]string{"token": "tok-bench"}})
			return
		}
		reply(w, 200, map[string]article{"article": a})
	})
	mux.HandleFunc("GET /articles", func(w http.ResponseWriter, r *http.Request) {
		off, err := strconv.Atoi(r.URL.Query().Get("offset"))
		if err != nil {
			reply(w, 400, map[string]string{"error": "bad offset"})
			return
		}
		reply(w, 200, map[string]any{"offset": off, "at": time.Now().UTC().Format(time.RFC3339Nano)})
	})
	host := os.Getenv("HOST") // a server on another host listens beyond loopback
	if host == "" {
		host = "127.0.0.1"
	}
	if os.Getenv("TABLE") != "" {
		dbRoutes(mux, reply)
	}
	var h http.Handler = mux
	if base := os.Getenv("BASE"); base != "" {
		h = http.StripPrefix(base, mux)
	}
	http.ListenAndServe(host+":"+os.Getenv("PORT"), h)
}
