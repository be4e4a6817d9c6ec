package main

import (
	"context"
	"encoding/json"
	"html/template"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// worldRows is the number of rows of World, ids 1…worldRows.
const worldRows = 10000

// maxCount is the most rows a queries, updates or cached-queries request
// answers.
const maxCount = 500

const (
	selectWorld   = "SELECT id, randomnumber FROM world WHERE id = $1"
	selectFortune = "SELECT id, message FROM fortune"
	updateWorlds  = "UPDATE world SET randomnumber = v.n FROM (SELECT unnest($1::int[]) AS id, unnest($2::int[]) AS n) AS v WHERE world.id = v.id"
)

type world struct {
	ID           int32 `json:"id"`
	RandomNumber int32 `json:"randomNumber"`
}

type fortune struct {
	ID      int32
	Message string
}

type server struct {
	pool *pgxpool.Pool
	// cache holds World for cached-queries, loaded on first use.
	cacheOnce sync.Once
	cache     []world
	cacheErr  error
}

func newServer(pool *pgxpool.Pool) *server { return &server{pool: pool} }

func (s *server) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /json", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]string{"message": "Hello, World!"})
	})
	mux.HandleFunc("GET /plaintext", func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Server", serverName)
		h.Set("Content-Type", "text/plain")
		w.Write([]byte("Hello, World!"))
	})
	mux.HandleFunc("GET /db", s.db)
	mux.HandleFunc("GET /queries", s.queries)
	mux.HandleFunc("GET /updates", s.updates)
	mux.HandleFunc("GET /fortunes", s.fortunes)
	mux.HandleFunc("GET /cached-queries", s.cachedQueries)
	return mux
}

const serverName = "tfb-nethttp-pgx"

func writeJSON(w http.ResponseWriter, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Server", serverName)
	h.Set("Content-Type", "application/json")
	w.Write(b)
}

func fail(w http.ResponseWriter, err error) {
	w.Header().Set("Server", serverName)
	http.Error(w, err.Error(), http.StatusInternalServerError)
}

// count reads a count parameter as TFB says: not a number or below 1 is
// 1, above maxCount is maxCount.
func count(r *http.Request, name string) int {
	n, err := strconv.Atoi(r.URL.Query().Get(name))
	if err != nil || n < 1 {
		return 1
	}
	return min(n, maxCount)
}

func randomID() int32 { return 1 + rand.Int32N(worldRows) }

func (s *server) db(w http.ResponseWriter, r *http.Request) {
	var wd world
	if err := s.pool.QueryRow(r.Context(), selectWorld, randomID()).Scan(&wd.ID, &wd.RandomNumber); err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, wd)
}

// readWorlds reads n random rows with n single-row SELECTs sent as one
// batch (one round trip).
func (s *server) readWorlds(ctx context.Context, n int) ([]world, error) {
	b := &pgx.Batch{}
	for range n {
		b.Queue(selectWorld, randomID())
	}
	out := make([]world, n)
	br := s.pool.SendBatch(ctx, b)
	defer br.Close()
	for i := range out {
		if err := br.QueryRow().Scan(&out[i].ID, &out[i].RandomNumber); err != nil {
			return nil, err
		}
	}
	return out, br.Close()
}

func (s *server) queries(w http.ResponseWriter, r *http.Request) {
	ws, err := s.readWorlds(r.Context(), count(r, "queries"))
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, ws)
}

func (s *server) updates(w http.ResponseWriter, r *http.Request) {
	ws, err := s.readWorlds(r.Context(), count(r, "queries"))
	if err != nil {
		fail(w, err)
		return
	}
	// One new number per distinct id, so a repeated id answers what the
	// table ends up holding; ids sorted so concurrent requests lock rows
	// in one order.
	next := map[int32]int32{}
	for i := range ws {
		n, ok := next[ws[i].ID]
		if !ok {
			n = randomID()
			next[ws[i].ID] = n
		}
		ws[i].RandomNumber = n
	}
	ids := slices.Sorted(func(yield func(int32) bool) {
		for id := range next {
			if !yield(id) {
				return
			}
		}
	})
	numbers := make([]int32, len(ids))
	for i, id := range ids {
		numbers[i] = next[id]
	}
	if _, err := s.pool.Exec(r.Context(), updateWorlds, ids, numbers); err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, ws)
}

var fortunesPage = template.Must(template.New("fortunes").Parse(`<!DOCTYPE html><html><head><title>Fortunes</title></head><body><table><tr><th>id</th><th>message</th></tr>{{range .}}<tr><td>{{.ID}}</td><td>{{.Message}}</td></tr>{{end}}</table></body></html>`))

func (s *server) fortunes(w http.ResponseWriter, r *http.Request) {
	rows, _ := s.pool.Query(r.Context(), selectFortune)
	fs, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (fortune, error) {
		var f fortune
		err := row.Scan(&f.ID, &f.Message)
		return f, err
	})
	if err != nil {
		fail(w, err)
		return
	}
	fs = append(fs, fortune{ID: 0, Message: "Additional fortune added at request time."})
	slices.SortFunc(fs, func(a, b fortune) int { return strings.Compare(a.Message, b.Message) })
	var b strings.Builder
	if err := fortunesPage.Execute(&b, fs); err != nil {
		fail(w, err)
		return
	}
	h := w.Header()
	h.Set("Server", serverName)
	h.Set("Content-Type", "text/html; charset=utf-8")
	w.Write([]byte(b.String()))
}

func (s *server) cachedQueries(w http.ResponseWriter, r *http.Request) {
	s.cacheOnce.Do(func() {
		rows, _ := s.pool.Query(context.Background(), "SELECT id, randomnumber FROM world ORDER BY id")
		s.cache, s.cacheErr = pgx.CollectRows(rows, func(row pgx.CollectableRow) (world, error) {
			var wd world
			err := row.Scan(&wd.ID, &wd.RandomNumber)
			return wd, err
		})
	})
	if s.cacheErr != nil {
		fail(w, s.cacheErr)
		return
	}
	n := count(r, "count")
	out := make([]world, n)
	for i := range out {
		out[i] = s.cache[randomID()-1]
	}
	writeJSON(w, out)
}
