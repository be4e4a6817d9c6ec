package workload

import (
	"fmt"
	"strconv"
)

// SpreadSize is the number of distinct requests a spread case sends
// round-robin.
const SpreadSize = 1000

// Spread users: ids are drawn from 1..spreadUsers with a fixed stride that is
// coprime to it, so the first spreadUsers draws are all distinct and the
// sequence is the same on every run.
const (
	spreadUsers  = 50000
	spreadStride = 7919 // prime, coprime to 50,000
	spreadStart  = 4241
	spreadPages  = spreadUsers / 20 // pages of the list case's limit of 20
)

// spreadID is the k-th user id of the spread sequence.
func spreadID(k int) int { return 1 + (spreadStart+k*spreadStride)%spreadUsers }

// Request is one concrete request of a case.
type Request struct {
	Method string
	Path   string
	Header []Header
	Body   []byte
}

// Requests returns the requests the load sends for a case. With spread
// false it is the case's one fixed request (the published runs'). With
// spread true, the saas-slice cases that name a user — user, list, me and
// order — get SpreadSize requests whose ids, pages, token subjects and
// order owners follow a deterministic sequence over all 50,000 users, so no
// single hot row flatters the caches and inserts do not all check one
// foreign key; other cases keep their fixed request.
func (w *Workload) Requests(c Case, secret string, spread bool) []Request {
	fixed := []Request{{Method: c.Method, Path: c.Path, Header: c.Header, Body: c.Body}}
	if !spread || w.Name != "saas-slice" {
		return fixed
	}
	var build func(k int) Request
	switch c.Name {
	case "user":
		build = func(k int) Request {
			return Request{Method: "GET", Path: "/users/" + strconv.Itoa(spreadID(k))}
		}
	case "list":
		build = func(k int) Request {
			page := 1 + (spreadStart+k*spreadStride)%spreadPages
			return Request{Method: "GET", Path: fmt.Sprintf("/users?page=%d&limit=20", page)}
		}
	case "me":
		build = func(k int) Request {
			claims := fmt.Sprintf(`{"sub":"%d","iat":0}`, spreadID(k))
			return Request{Method: "GET", Path: "/me",
				Header: []Header{{Name: "Authorization", Value: "Bearer " + SignHS256(`{"alg":"HS256"}`, claims, secret)}}}
		}
	case "order":
		build = func(k int) Request {
			return Request{Method: "POST", Path: "/orders", Header: jsonHeader,
				Body: fmt.Appendf(nil, `{"userId":%d,"amount":19.99,"currency":"USD"}`, spreadID(k))}
		}
	default:
		return fixed
	}
	out := make([]Request, SpreadSize)
	for k := range out {
		out[k] = build(k)
	}
	return out
}
