package saas

import (
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
// request body as sent.
type microCreated struct {
	Created json.RawMessage `json:"created"`
}

// MicroCreate answers the micro workload's POST /users: 201
// {"created":<body>}, the body compacted with its key order kept; 400 when
// the body is not JSON. The codec checks and compacts the body as it
// encodes the answer (both codecs compact a json.RawMessage and fail on one
// that is not JSON), so the body is scanned once, by the JSON layer under
// test.
func (a *App) MicroCreate(body []byte) Response {
	if len(body) == 0 { // a nil RawMessage would encode as null
		return Response{http.StatusBadRequest, bodyBadJSON}
	}
	b, err := a.codec.Marshal(microCreated{Created: body})
	if err != nil {
		return Response{http.StatusBadRequest, bodyBadJSON}
	}
	return Response{http.StatusCreated, b}
}

// NewMicro returns an App for the micro workload, which needs no database
// and no secret.
func NewMicro(codec Codec) *App { return &App{codec: codec} }
