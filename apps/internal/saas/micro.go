package saas

import (
	"bytes"
	"encoding/json"
	"net/http"
)

// microUser is the micro workload's user, the id echoed as a string.
type microUser struct {
	ID    string   `json:"id"`
	Name  string   `json:"name"`
	Email string   `json:"email"`
	Roles []string `json:"roles"`
}

var microRoles = []string{"admin", "dev"}

// MicroUser answers the micro workload's GET /users/{id}.
func (a *App) MicroUser(id string) Response {
	return a.encode(http.StatusOK, microUser{ID: id, Name: "Ada", Email: "ada@example.com", Roles: microRoles})
}

// microCreated is the micro workload's POST /users answer; Created holds the
// request body, checked and compacted.
type microCreated struct {
	Created json.RawMessage `json:"created"`
}

// MicroCreate answers the micro workload's POST /users: 201
// {"created":<body>}, the body compacted with its key order kept; 400 when
// the body is not JSON.
func (a *App) MicroCreate(body []byte) Response {
	var compact bytes.Buffer
	if err := json.Compact(&compact, body); err != nil || compact.Len() == 0 {
		return Response{http.StatusBadRequest, bodyBadJSON}
	}
	return a.encode(http.StatusCreated, microCreated{Created: compact.Bytes()})
}

// NewMicro returns an App for the micro workload, which needs no database
// and no secret.
func NewMicro(codec Codec) *App { return &App{codec: codec} }
