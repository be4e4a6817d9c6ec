// Command realworld-go is a slice of the RealWorld ("Conduit") API on
// net/http and pgx, served at the root (/users, /articles…): register,
// login, the current user, tags, the article list and one article, and
// creating an article. It is the Go side of examples/realworld, whose
// Node.js side serves the same API under /api over another schema; its own
// schema (schema/*.up.sql: accounts, posts, post_tags) and seed (seed.sql)
// are applied by stackbench as the stack's database:, never at start.
//
// Listens on 127.0.0.1:$PORT (HOST to change the address); reads
// DATABASE_URL, JWT_SECRET and DB_POOL (default 10).
//
// Build: go build -o bin/realworld-go ./realworld-go (in apps/).
package main

import (
	"context"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

func main() {
	if err := run(); err != nil {
		log.Fatal(err)
	}
}

func run() error {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	cfg, err := pgxpool.ParseConfig(os.Getenv("DATABASE_URL"))
	if err != nil {
		return fmt.Errorf("DATABASE_URL: %w", err)
	}
	cfg.MaxConns = 10
	if n, err := strconv.Atoi(os.Getenv("DB_POOL")); err == nil && n > 0 {
		cfg.MaxConns = int32(n)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return err
	}
	defer pool.Close()
	secret := os.Getenv("JWT_SECRET")
	if secret == "" {
		secret = "bench-secret-do-not-use-in-prod"
	}
	a := &app{db: pool, secret: []byte(secret)}
	host := os.Getenv("HOST")
	if host == "" {
		host = "127.0.0.1"
	}
	port := os.Getenv("PORT")
	if port == "" {
		port = "8080"
	}
	srv := &http.Server{Addr: net.JoinHostPort(host, port), Handler: a.routes(), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(shut)
	}()
	log.Printf("listening on %s", srv.Addr)
	if err := srv.ListenAndServe(); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// app holds the pool and the token key.
type app struct {
	db     *pgxpool.Pool
	secret []byte
}

func (a *app) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) {
		send(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	mux.HandleFunc("POST /users", a.handle(a.register))
	mux.HandleFunc("POST /users/login", a.handle(a.login))
	mux.HandleFunc("GET /user", a.handle(a.currentUser))
	mux.HandleFunc("GET /tags", a.handle(a.tags))
	mux.HandleFunc("GET /articles", a.handle(a.listArticles))
	mux.HandleFunc("GET /articles/{slug}", a.handle(a.article))
	mux.HandleFunc("POST /articles", a.handle(a.createArticle))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		send(w, http.StatusNotFound, errorBody(map[string][]string{"path": {"not found"}}))
	})
	return mux
}

// httpError is an answer other than 2xx, in the spec's {"errors": …} form.
type httpError struct {
	status int
	errors map[string][]string
}

func (e *httpError) Error() string { return "http " + strconv.Itoa(e.status) }

func errorBody(errs map[string][]string) any { return map[string]any{"errors": errs} }

// handle turns a handler's (status, body, error) into the response.
func (a *app) handle(h func(*http.Request) (int, any, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		status, body, err := h(r)
		var he *httpError
		switch {
		case errors.As(err, &he):
			send(w, he.status, errorBody(he.errors))
		case err != nil:
			log.Printf("%s %s: %v", r.Method, r.URL.Path, err)
			send(w, http.StatusInternalServerError, errorBody(map[string][]string{"server": {"internal error"}}))
		default:
			send(w, status, body)
		}
	}
}

func send(w http.ResponseWriter, status int, body any) {
	data, err := json.Marshal(body)
	if err != nil {
		status, data = http.StatusInternalServerError, []byte(`{"errors":{"server":["encode"]}}`)
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(len(data)))
	w.WriteHeader(status)
	w.Write(data)
}

func readJSON(r *http.Request, v any) error {
	if err := json.NewDecoder(http.MaxBytesReader(nil, r.Body, 1<<20)).Decode(v); err != nil {
		return &httpError{http.StatusUnprocessableEntity, map[string][]string{"body": {"is not JSON"}}}
	}
	return nil
}

// required is a 422 naming each blank field, or nil.
func required(fields map[string]string) error {
	errs := map[string][]string{}
	for name, v := range fields {
		if strings.TrimSpace(v) == "" {
			errs[name] = []string{"can't be blank"}
		}
	}
	if len(errs) > 0 {
		return &httpError{http.StatusUnprocessableEntity, errs}
	}
	return nil
}

// account is a row of accounts.
type account struct {
	ID               int64
	Mail, Handle, PW string
	About, AvatarURL *string
}

// userJSON is the spec's {"user": …} with a fresh token.
func (a *app) userJSON(u account) (any, error) {
	tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{
		"id": u.ID, "username": u.Handle, "iat": time.Now().Unix(), "exp": time.Now().Add(24 * time.Hour).Unix(),
	}).SignedString(a.secret)
	if err != nil {
		return nil, err
	}
	return map[string]any{"user": map[string]any{"email": u.Mail, "token": tok, "username": u.Handle, "bio": u.About, "image": u.AvatarURL}}, nil
}

// PBKDF2-SHA256, 10,000 rounds, as the Node implementation hashes.
func hashPassword(password, salt string) (string, error) {
	if salt == "" {
		b := make([]byte, 16)
		rand.Read(b)
		salt = hex.EncodeToString(b)
	}
	key, err := pbkdf2.Key(sha256.New, password, []byte(salt), 10000, 32)
	if err != nil {
		return "", err
	}
	return salt + "$" + hex.EncodeToString(key), nil
}

func (a *app) register(r *http.Request) (int, any, error) {
	var in struct {
		User struct{ Username, Email, Password string }
	}
	if err := readJSON(r, &in); err != nil {
		return 0, nil, err
	}
	if err := required(map[string]string{"username": in.User.Username, "email": in.User.Email, "password": in.User.Password}); err != nil {
		return 0, nil, err
	}
	pw, err := hashPassword(in.User.Password, "")
	if err != nil {
		return 0, nil, err
	}
	u := account{Mail: in.User.Email, Handle: in.User.Username}
	err = a.db.QueryRow(r.Context(), `INSERT INTO accounts (mail, handle, pw) VALUES ($1, $2, $3) RETURNING account_id`, u.Mail, u.Handle, pw).Scan(&u.ID)
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "23505" {
		field := "username"
		if strings.Contains(pe.ConstraintName, "mail") {
			field = "email"
		}
		return 0, nil, &httpError{http.StatusUnprocessableEntity, map[string][]string{field: {"has already been taken"}}}
	}
	if err != nil {
		return 0, nil, err
	}
	body, err := a.userJSON(u)
	return http.StatusCreated, body, err
}

func (a *app) login(r *http.Request) (int, any, error) {
	var in struct {
		User struct{ Email, Password string }
	}
	if err := readJSON(r, &in); err != nil {
		return 0, nil, err
	}
	if err := required(map[string]string{"email": in.User.Email, "password": in.User.Password}); err != nil {
		return 0, nil, err
	}
	var u account
	err := a.db.QueryRow(r.Context(), `SELECT account_id, mail, handle, pw, about, avatar_url FROM accounts WHERE mail = $1`, in.User.Email).
		Scan(&u.ID, &u.Mail, &u.Handle, &u.PW, &u.About, &u.AvatarURL)
	invalid := &httpError{http.StatusUnauthorized, map[string][]string{"email or password": {"is invalid"}}}
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, nil, invalid
	}
	if err != nil {
		return 0, nil, err
	}
	salt, _, _ := strings.Cut(u.PW, "$")
	got, err := hashPassword(in.User.Password, salt)
	if err != nil {
		return 0, nil, err
	}
	if subtle.ConstantTimeCompare([]byte(got), []byte(u.PW)) != 1 {
		return 0, nil, invalid
	}
	body, err := a.userJSON(u)
	return http.StatusOK, body, err
}

var tokenHeader = regexp.MustCompile(`^(?:Token|Bearer) (.+)$`)

// authUser is the account the request's token names, or a 401.
func (a *app) authUser(r *http.Request) (account, error) {
	m := tokenHeader.FindStringSubmatch(r.Header.Get("Authorization"))
	if m == nil {
		return account{}, &httpError{http.StatusUnauthorized, map[string][]string{"token": {"is missing"}}}
	}
	claims := jwt.MapClaims{}
	_, err := jwt.ParseWithClaims(m[1], claims, func(*jwt.Token) (any, error) { return a.secret, nil }, jwt.WithValidMethods([]string{"HS256"}))
	id, ok := claims["id"].(float64)
	if err != nil || !ok {
		return account{}, &httpError{http.StatusUnauthorized, map[string][]string{"token": {"is invalid"}}}
	}
	var u account
	err = a.db.QueryRow(r.Context(), `SELECT account_id, mail, handle, about, avatar_url FROM accounts WHERE account_id = $1`, int64(id)).
		Scan(&u.ID, &u.Mail, &u.Handle, &u.About, &u.AvatarURL)
	if errors.Is(err, pgx.ErrNoRows) {
		return account{}, &httpError{http.StatusUnauthorized, map[string][]string{"token": {"names no user"}}}
	}
	return u, err
}

func (a *app) currentUser(r *http.Request) (int, any, error) {
	u, err := a.authUser(r)
	if err != nil {
		return 0, nil, err
	}
	body, err := a.userJSON(u)
	return http.StatusOK, body, err
}

func (a *app) tags(r *http.Request) (int, any, error) {
	rows, err := a.db.Query(r.Context(), `SELECT DISTINCT tag FROM post_tags ORDER BY tag`)
	if err != nil {
		return 0, nil, err
	}
	tags, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if tags == nil {
		tags = []string{}
	}
	return http.StatusOK, map[string]any{"tags": tags}, err
}
