// Command blog is the example app of examples/blog: a small JSON API in the
// style of the RealWorld ("Conduit") spec, with its own schema and
// migrations, a login that returns a token, and ids and timestamps in every
// body. It is not written for stackbench: it reads DATABASE_URL and PORT
// like most apps, and DB_POOL (connections, default 8).
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

type app struct{ db *pgxpool.Pool }

type article struct {
	ID        int64     `json:"id"`
	Slug      string    `json:"slug"`
	Title     string    `json:"title"`
	Body      string    `json:"body"`
	Author    string    `json:"author"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
}

func main() {
	cfg, err := pgxpool.ParseConfig(os.Getenv("DATABASE_URL"))
	if err != nil {
		log.Fatalf("DATABASE_URL: %v", err)
	}
	if n, err := strconv.Atoi(os.Getenv("DB_POOL")); err == nil && n > 0 {
		cfg.MaxConns = int32(n)
	} else {
		cfg.MaxConns = 8
	}
	db, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		log.Fatal(err)
	}
	a := &app{db: db}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/health", func(w http.ResponseWriter, r *http.Request) {
		reply(w, 200, map[string]string{"status": "ok"})
	})
	mux.HandleFunc("POST /api/users/login", a.login)
	mux.HandleFunc("GET /api/user", a.auth(a.me))
	mux.HandleFunc("POST /api/articles", a.auth(a.create))
	mux.HandleFunc("GET /api/articles/{slug}", a.get)
	mux.HandleFunc("GET /api/articles", a.list)
	mux.HandleFunc("POST /api/articles/{slug}/comments", a.auth(a.comment))
	log.Fatal(http.ListenAndServe("127.0.0.1:"+os.Getenv("PORT"), mux))
}

func reply(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func fail(w http.ResponseWriter, status int, msg string) {
	reply(w, status, map[string]map[string][]string{"errors": {"body": {msg}}})
}

// login checks the password and opens a session with a new token.
func (a *app) login(w http.ResponseWriter, r *http.Request) {
	var in struct {
		User struct{ Email, Password string }
	}
	if json.NewDecoder(r.Body).Decode(&in) != nil {
		fail(w, 422, "want {\"user\":{\"email\",\"password\"}}")
		return
	}
	var id int64
	err := a.db.QueryRow(r.Context(), "SELECT id FROM users WHERE email = $1 AND password = $2", in.User.Email, in.User.Password).Scan(&id)
	if err != nil {
		fail(w, 401, "wrong email or password")
		return
	}
	b := make([]byte, 16)
	rand.Read(b)
	token := hex.EncodeToString(b)
	if _, err := a.db.Exec(r.Context(), "INSERT INTO sessions (token, user_id) VALUES ($1, $2)", token, id); err != nil {
		fail(w, 500, err.Error())
		return
	}
	w.Header().Set("Authorization", "Token "+token)
	reply(w, 200, map[string]any{"user": map[string]string{"email": in.User.Email, "token": token}})
}

type ctxKey struct{}

type user struct {
	ID    int64
	Email string
	Token string
}

// auth admits a request with "Authorization: Token <token>" of a session.
func (a *app) auth(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Token ")
		if !ok {
			fail(w, 401, "missing Authorization: Token …")
			return
		}
		u := user{Token: token}
		err := a.db.QueryRow(r.Context(), "SELECT u.id, u.email FROM sessions s JOIN users u ON u.id = s.user_id WHERE s.token = $1", token).Scan(&u.ID, &u.Email)
		if err != nil {
			fail(w, 401, "unknown token")
			return
		}
		next(w, r.WithContext(context.WithValue(r.Context(), ctxKey{}, u)))
	}
}

func (a *app) me(w http.ResponseWriter, r *http.Request) {
	u := r.Context().Value(ctxKey{}).(user)
	reply(w, 200, map[string]any{"user": map[string]string{"email": u.Email, "token": u.Token}})
}

var nonWord = regexp.MustCompile(`[^a-z0-9]+`)

func (a *app) create(w http.ResponseWriter, r *http.Request) {
	u := r.Context().Value(ctxKey{}).(user)
	var in struct{ Article struct{ Title, Body string } }
	if json.NewDecoder(r.Body).Decode(&in) != nil || in.Article.Title == "" {
		fail(w, 422, "want {\"article\":{\"title\",\"body\"}}")
		return
	}
	var out article
	err := a.db.QueryRow(r.Context(), `WITH n AS (SELECT nextval(pg_get_serial_sequence('articles', 'id')) AS id)
INSERT INTO articles (id, slug, title, body, author_id)
SELECT n.id, $1 || '-' || n.id, $2, $3, $4 FROM n
RETURNING id, slug, title, body, created_at, updated_at`,
		strings.Trim(nonWord.ReplaceAllString(strings.ToLower(in.Article.Title), "-"), "-"), in.Article.Title, in.Article.Body, u.ID).
		Scan(&out.ID, &out.Slug, &out.Title, &out.Body, &out.CreatedAt, &out.UpdatedAt)
	if err != nil {
		fail(w, 500, err.Error())
		return
	}
	out.Author = u.Email
	reply(w, 201, map[string]article{"article": out})
}

const articleSQL = `SELECT a.id, a.slug, a.title, a.body, u.email, a.created_at, a.updated_at
FROM articles a JOIN users u ON u.id = a.author_id`

func scanArticle(row pgx.Row) (article, error) {
	var x article
	err := row.Scan(&x.ID, &x.Slug, &x.Title, &x.Body, &x.Author, &x.CreatedAt, &x.UpdatedAt)
	return x, err
}

func (a *app) get(w http.ResponseWriter, r *http.Request) {
	x, err := scanArticle(a.db.QueryRow(r.Context(), articleSQL+" WHERE a.slug = $1", r.PathValue("slug")))
	if errors.Is(err, pgx.ErrNoRows) {
		fail(w, 404, "no such article")
		return
	}
	if err != nil {
		fail(w, 500, err.Error())
		return
	}
	reply(w, 200, map[string]article{"article": x})
}

func (a *app) list(w http.ResponseWriter, r *http.Request) {
	limit, offset := 20, 0
	if v, err := strconv.Atoi(r.URL.Query().Get("limit")); err == nil && v > 0 && v <= 100 {
		limit = v
	}
	if v, err := strconv.Atoi(r.URL.Query().Get("offset")); err == nil && v >= 0 {
		offset = v
	}
	rows, err := a.db.Query(r.Context(), articleSQL+" ORDER BY a.created_at, a.id LIMIT $1 OFFSET $2", limit, offset)
	if err != nil {
		fail(w, 500, err.Error())
		return
	}
	list := []article{}
	for rows.Next() {
		x, err := scanArticle(rows)
		if err != nil {
			fail(w, 500, err.Error())
			return
		}
		list = append(list, x)
	}
	var count int
	a.db.QueryRow(r.Context(), "SELECT count(*) FROM articles").Scan(&count)
	reply(w, 200, map[string]any{"articles": list, "articlesCount": count})
}

func (a *app) comment(w http.ResponseWriter, r *http.Request) {
	u := r.Context().Value(ctxKey{}).(user)
	var in struct{ Comment struct{ Body string } }
	if json.NewDecoder(r.Body).Decode(&in) != nil || in.Comment.Body == "" {
		fail(w, 422, "want {\"comment\":{\"body\"}}")
		return
	}
	var id int64
	var at time.Time
	err := a.db.QueryRow(r.Context(), `INSERT INTO comments (article_id, author_id, body)
SELECT id, $2, $3 FROM articles WHERE slug = $1 RETURNING id, created_at`, r.PathValue("slug"), u.ID, in.Comment.Body).Scan(&id, &at)
	if errors.Is(err, pgx.ErrNoRows) {
		fail(w, 404, "no such article")
		return
	}
	if err != nil {
		fail(w, 500, err.Error())
		return
	}
	reply(w, 201, map[string]any{"comment": map[string]any{"id": id, "body": in.Comment.Body, "createdAt": at}})
}
