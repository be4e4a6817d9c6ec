package saas

import (
	"context"
	"errors"
	"net/http"
)

// ContentType is the Content-Type of every response.
const ContentType = "application/json"

// Response is a route's answer: a status and a JSON body. Adapters write it
// with Content-Type ContentType and must not modify Body.
type Response struct {
	Status int
	Body   []byte
}

// Fixed bodies, shared by every response that uses them.
var (
	bodyHealth       = []byte(`{"status":"ok"}`)
	bodyNotFound     = []byte(`{"error":"not found"}`)
	bodyUnauthorized = []byte(`{"error":"unauthorized"}`)
	bodyInternal     = []byte(`{"error":"internal error"}`)
	bodyBadJSON      = []byte(`{"error":"body must be a JSON object with fields of the documented types"}`)
	bodyBadID        = []byte(`{"error":"id must be an integer from 1 to 2147483647"}`)
	bodyBadPaging    = []byte(`{"error":"page must be an integer of at least 1 and limit an integer from 1 to 100"}`)
	bodyBadRounds    = []byte(`{"error":"n must be an integer from 1 to 1000000"}`)
)

// App answers the SaaS-slice routes. Its methods take the request's parts as
// plain strings and bytes and return the Response; they never panic on bad
// input and answer 5xx only when the database or the encoder fails.
type App struct {
	store Store
	codec Codec
	auth  *Authenticator
}

// New returns an App over the store, encoding with codec and checking tokens
// signed with jwtSecret.
func New(store Store, codec Codec, jwtSecret string) *App {
	return &App{store: store, codec: codec, auth: NewAuthenticator(jwtSecret)}
}

// Health answers GET /health.
func (a *App) Health() Response { return Response{http.StatusOK, bodyHealth} }

// Echo answers POST /echo with the request body.
func (a *App) Echo(body []byte) Response {
	var in echoInput
	if err := a.codec.Unmarshal(body, &in); err != nil {
		return Response{http.StatusBadRequest, bodyBadJSON}
	}
	out, problem := in.validate()
	if problem != "" {
		return a.errorResponse(http.StatusBadRequest, problem)
	}
	return a.encode(http.StatusOK, out)
}

// Me answers GET /me given the Authorization header ("" when absent).
func (a *App) Me(ctx context.Context, authorization string) Response {
	id, ok := a.auth.UserID(authorization)
	if !ok {
		return Response{http.StatusUnauthorized, bodyUnauthorized}
	}
	return a.user(ctx, id)
}

// User answers GET /users/{id} given the id path segment.
func (a *App) User(ctx context.Context, id string) Response {
	n, ok := ParseID(id)
	if !ok {
		return Response{http.StatusBadRequest, bodyBadID}
	}
	return a.user(ctx, n)
}

func (a *App) user(ctx context.Context, id int32) Response {
	u, err := a.store.UserByID(ctx, id)
	if errors.Is(err, ErrNotFound) {
		return Response{http.StatusNotFound, bodyNotFound}
	}
	if err != nil {
		return Response{http.StatusInternalServerError, bodyInternal}
	}
	return a.encode(http.StatusOK, u)
}

// userPage is the list route's answer; the field order is the contract's.
type userPage struct {
	Page  int64  `json:"page"`
	Limit int32  `json:"limit"`
	Items []User `json:"items"`
}

// ListUsers answers GET /users given the page and limit query parameters
// ("" when absent).
func (a *App) ListUsers(ctx context.Context, page, limit string) Response {
	p, ok := ParsePaging(page, limit)
	if !ok {
		return Response{http.StatusBadRequest, bodyBadPaging}
	}
	users, err := a.store.ListUsers(ctx, p.Offset(), p.Limit)
	if err != nil {
		return Response{http.StatusInternalServerError, bodyInternal}
	}
	return a.encode(http.StatusOK, userPage{Page: p.Page, Limit: p.Limit, Items: users})
}

// CreateOrder answers POST /orders with the request body.
func (a *App) CreateOrder(ctx context.Context, body []byte) Response {
	var in orderInput
	if err := a.codec.Unmarshal(body, &in); err != nil {
		return Response{http.StatusBadRequest, bodyBadJSON}
	}
	o, problem := in.validate()
	if problem == errUnknownUserID {
		return Response{http.StatusNotFound, bodyNotFound}
	}
	if problem != "" {
		return a.errorResponse(http.StatusBadRequest, problem)
	}
	order, err := a.store.InsertOrder(ctx, o)
	if errors.Is(err, ErrUnknownUser) {
		return Response{http.StatusNotFound, bodyNotFound}
	}
	if err != nil {
		return Response{http.StatusInternalServerError, bodyInternal}
	}
	return a.encode(http.StatusCreated, order)
}

// cpuResult is the cpu route's answer.
type cpuResult struct {
	N    int    `json:"n"`
	Hash string `json:"hash"`
}

// CPU answers GET /cpu given the n query parameter ("" when absent).
func (a *App) CPU(n string) Response {
	rounds, ok := ParseRounds(n)
	if !ok {
		return Response{http.StatusBadRequest, bodyBadRounds}
	}
	return a.encode(http.StatusOK, cpuResult{N: rounds, Hash: CPUChain(rounds)})
}

type errorBody struct {
	Error string `json:"error"`
}

func (a *App) errorResponse(status int, msg string) Response {
	return a.encode(status, errorBody{Error: msg})
}

func (a *App) encode(status int, v any) Response {
	b, err := a.codec.Marshal(v)
	if err != nil {
		return Response{http.StatusInternalServerError, bodyInternal}
	}
	return Response{status, b}
}
