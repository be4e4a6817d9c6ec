package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// postSelect reads a post with its writer and sorted tags; the caller
// adds WHERE, ORDER BY and LIMIT.
const postSelect = `SELECT p.slug, p.headline, p.summary, p.content, p.created, p.updated,
  a.handle, a.about, a.avatar_url,
  coalesce((SELECT array_agg(t.tag ORDER BY t.tag) FROM post_tags t WHERE t.post_id = p.post_id), '{}')
  FROM posts p JOIN accounts a ON a.account_id = p.writer`

// articleOut is the spec's article; Body is left out of lists.
type articleOut struct {
	Slug           string    `json:"slug"`
	Title          string    `json:"title"`
	Description    string    `json:"description"`
	Body           *string   `json:"body,omitempty"`
	TagList        []string  `json:"tagList"`
	CreatedAt      string    `json:"createdAt"`
	UpdatedAt      string    `json:"updatedAt"`
	Favorited      bool      `json:"favorited"`
	FavoritesCount int       `json:"favoritesCount"`
	Author         authorOut `json:"author"`
}

type authorOut struct {
	Username  string  `json:"username"`
	Bio       *string `json:"bio"`
	Image     *string `json:"image"`
	Following bool    `json:"following"`
}

// isoMillis is JavaScript's Date.toISOString: UTC, milliseconds, Z.
func isoMillis(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

func scanArticle(row pgx.Row, withBody bool) (articleOut, error) {
	var o articleOut
	var body string
	var created, updated time.Time
	err := row.Scan(&o.Slug, &o.Title, &o.Description, &body, &created, &updated,
		&o.Author.Username, &o.Author.Bio, &o.Author.Image, &o.TagList)
	if withBody {
		o.Body = &body
	}
	o.CreatedAt, o.UpdatedAt = isoMillis(created), isoMillis(updated)
	return o, err
}

func (a *app) article(r *http.Request) (int, any, error) {
	o, err := scanArticle(a.db.QueryRow(r.Context(), postSelect+` WHERE p.slug = $1`, r.PathValue("slug")), true)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, nil, &httpError{http.StatusNotFound, map[string][]string{"article": {"not found"}}}
	}
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, map[string]any{"article": o}, nil
}

// intParam is the query parameter name as an int, def when absent or not
// a number, held within [lo, hi].
func intParam(r *http.Request, name string, def, lo, hi int) int {
	n, err := strconv.Atoi(r.URL.Query().Get(name))
	if err != nil {
		n = def
	}
	return min(max(n, lo), hi)
}

func (a *app) listArticles(r *http.Request) (int, any, error) {
	limit := intParam(r, "limit", 20, 1, 100)
	offset := intParam(r, "offset", 0, 0, 1<<30)
	where, args := "", []any{limit, offset}
	if tag := r.URL.Query().Get("tag"); tag != "" {
		where, args = ` WHERE p.post_id IN (SELECT post_id FROM post_tags WHERE tag = $3)`, append(args, tag)
	}
	rows, err := a.db.Query(r.Context(), postSelect+where+` ORDER BY p.created DESC, p.post_id DESC LIMIT $1 OFFSET $2`, args...)
	if err != nil {
		return 0, nil, err
	}
	defer rows.Close()
	list := []articleOut{}
	for rows.Next() {
		o, err := scanArticle(rows, false)
		if err != nil {
			return 0, nil, err
		}
		list = append(list, o)
	}
	if err := rows.Err(); err != nil {
		return 0, nil, err
	}
	var count int
	if len(args) == 3 {
		err = a.db.QueryRow(r.Context(), `SELECT count(DISTINCT post_id) FROM post_tags WHERE tag = $1`, args[2]).Scan(&count)
	} else {
		err = a.db.QueryRow(r.Context(), `SELECT count(*) FROM posts`).Scan(&count)
	}
	return http.StatusOK, map[string]any{"articles": list, "articlesCount": count}, err
}

var nonSlug = regexp.MustCompile(`[^a-z0-9]+`)

func (a *app) createArticle(r *http.Request) (int, any, error) {
	me, err := a.authUser(r)
	if err != nil {
		return 0, nil, err
	}
	var in struct {
		Article struct {
			Title, Description, Body string
			TagList                  []string
		}
	}
	if err := readJSON(r, &in); err != nil {
		return 0, nil, err
	}
	art := in.Article
	if err := required(map[string]string{"title": art.Title, "description": art.Description, "body": art.Body}); err != nil {
		return 0, nil, err
	}
	suffix := make([]byte, 4)
	rand.Read(suffix)
	slug := strings.Trim(nonSlug.ReplaceAllString(strings.ToLower(art.Title), "-"), "-") + "-" + hex.EncodeToString(suffix)
	var tags []string
	for _, t := range art.TagList {
		if t != "" && !slices.Contains(tags, t) {
			tags = append(tags, t)
		}
	}
	err = pgx.BeginFunc(r.Context(), a.db, func(tx pgx.Tx) error {
		var id int64
		if err := tx.QueryRow(r.Context(), `INSERT INTO posts (slug, headline, summary, content, writer) VALUES ($1, $2, $3, $4, $5) RETURNING post_id`,
			slug, art.Title, art.Description, art.Body, me.ID).Scan(&id); err != nil {
			return err
		}
		if len(tags) > 0 {
			_, err := tx.Exec(r.Context(), `INSERT INTO post_tags (post_id, tag) SELECT $1, unnest($2::text[])`, id, tags)
			return err
		}
		return nil
	})
	if err != nil {
		return 0, nil, err
	}
	o, err := scanArticle(a.db.QueryRow(context.WithoutCancel(r.Context()), postSelect+` WHERE p.slug = $1`, slug), true)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusCreated, map[string]any{"article": o}, nil
}
